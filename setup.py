"""Only what pyproject.toml cannot say: the default training configs ship inside the package.

configs/ stays the source; the wheel maps it to the package `training.configs` (training/configs/*.yaml
in site-packages), where `python -m training train <game>` finds them from any folder.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["envs*", "training*"]), "training.configs"],
    package_dir={"training.configs": "configs"},
)

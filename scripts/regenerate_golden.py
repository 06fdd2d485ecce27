"""Regenerate the golden playthroughs on purpose (after an intended rule or observation change).

    python scripts/regenerate_golden.py [game ...]

Records GOLDEN_SEEDS games for every test configuration of each game; review the diff before committing.
The recording and replaying code is the tests' own (tests/core/golden.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: its tests/ package

import envs  # noqa: E402
from tests.core import golden  # noqa: E402

GOLDEN_SEEDS = (0, 1)


def main(names: list[str]) -> None:
    for name in names or list(envs.GAMES):
        spec = envs.spec(name)
        for old in golden.golden_paths(spec):
            old.unlink()
        for config in spec.test_configs:
            for seed in GOLDEN_SEEDS:
                path = golden.golden_path(spec, config, seed)
                golden.save(path, golden.record(spec, config, seed))
                print("wrote", path.relative_to(golden.GOLDEN_DIR.parent.parent))


if __name__ == "__main__":
    main(sys.argv[1:])

"""Packaging: the extras, `import training` without torch, and the default configs shipped inside the
package (found by game name from any folder, present in a built wheel)."""

from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from envs.core import render
from training.cli import main
from training.config import default_config

ROOT = Path(__file__).resolve().parents[2]
GAMES = sorted(p.stem for p in (ROOT / "configs").glob("*.yaml"))


def run_python(code: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, **kw)


def extras() -> dict[str, list[str]]:
    tomllib = pytest.importorskip("tomllib")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def names(requirements: list[str]) -> set[str]:
    return {r.split("[")[0].split("<")[0].split(">")[0].split("=")[0].strip() for r in requirements}


def test_torch_has_no_upper_cap():
    for extra, requirements in extras().items():
        for r in requirements:
            if r.startswith("torch"):
                assert "<" not in r and "==" not in r, f"{extra}: {r}"


def test_human_rendering_and_openspiel_have_extras():
    needed = {
        line.split()[1].split(".")[0]
        for line in inspect.getsource(render.show).splitlines()
        if line.strip().startswith("import ")
    }
    assert needed and needed <= names(extras()["human"])
    assert "open_spiel" in names(extras()["openspiel"])


def test_import_training_without_torch_names_the_extra():
    done = run_python("import sys; sys.modules['torch'] = None\nimport envs\nimport training")
    assert done.returncode != 0
    assert 'pip install "tabletop-rl[train]"' in done.stderr
    assert "torch" in done.stderr.splitlines()[-1]
    # the games themselves need no torch
    games_alone = "import sys; sys.modules['torch'] = None\nimport gymnasium, envs; gymnasium.make('tabletop/Exposed-v0').reset()"
    assert run_python(games_alone).returncode == 0


def test_default_config_by_game_name_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert GAMES
    for name in GAMES:  # a game's own config, or one of its variants ("exposed-4p")
        assert yaml.safe_load(default_config(name).read_text())["game"] == name.split("-")[0]
    run = tmp_path / "run"
    tiny = ["total_steps=64", "ppo.num_envs=2", "ppo.rollout_steps=16", "eval.every=0", "eval.games=2"]
    assert main(["train", "exposed", *tiny, f"run_dir={run}", "progress=false", "--no-log"]) == 0
    used = yaml.safe_load((run / "config.yaml").read_text())
    shipped = yaml.safe_load((ROOT / "configs" / "exposed.yaml").read_text())
    assert used["game"] == "exposed" and used["ppo"]["lr"] == shipped["ppo"]["lr"]
    assert used["net"]["hidden"] == shipped["net"]["hidden"] and used["total_steps"] == 64


def test_unknown_game_name_lists_the_default_configs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["train", "nosuchgame"]) == 2
    assert "exposed" in capsys.readouterr().err
    assert main(["train", "missing/file.yaml"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_built_wheel_ships_the_default_configs_and_the_reference_agents(tmp_path):
    pytest.importorskip("setuptools", minversion="77")  # builds without isolation: no network needed
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for name in ("envs", "training", "configs"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", ".", "-w", "dist"],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = (src / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(tmp_path / "site")
        listed = set(zf.namelist())
    assert {f"training/configs/{game}.yaml" for game in GAMES} <= listed
    shipped = json.loads((ROOT / "training" / "references" / "references.json").read_text())["agents"]
    assert {"training/references/references.json"} | {
        f"training/references/{a['file']}" for a in shipped
    } <= listed
    assert not any(n.startswith("tests/") for n in listed)
    # the installed package finds them inside itself, from any folder
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    done = run_python("import training; print(training.default_config('exposed'))", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == tmp_path / "site" / "training" / "configs" / "exposed.yaml"
    for agent in shipped:  # and loads its reference agents from inside itself, checksums verified
        name = f"reference:{agent['game']}-{agent['num_players']}p-v{agent['version']}"
        done = run_python(
            f"import training; print(training.load_policy({name!r}).meta['path'])", cwd=tmp_path, env=env
        )
        assert done.returncode == 0, done.stderr
        assert Path(done.stdout.strip()) == tmp_path / "site" / "training" / "references" / agent["file"]

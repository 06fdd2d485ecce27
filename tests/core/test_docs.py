"""The README's game sections are generated from the code and must not drift."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import envs

ROOT = Path(__file__).resolve().parents[2]


def _gen_readme():
    spec = importlib.util.spec_from_file_location("gen_readme", ROOT / "scripts" / "gen_readme.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_game_sections_match_the_code():
    gen = _gen_readme()
    text = (ROOT / "README.md").read_text()
    assert gen.updated(text) == text, "README.md is out of date: run python scripts/gen_readme.py"


def test_every_game_face_documents_itself():
    for name in envs.GAMES:
        face = importlib.import_module(f"envs.{name}_v0")
        spec = envs.spec(name)
        game = spec.new_game(**spec.benchmark_config)
        for piece in game.observation_layout:
            assert f"`{piece.name}`" in face.__doc__, f"{name}: observation piece {piece.name} undocumented"

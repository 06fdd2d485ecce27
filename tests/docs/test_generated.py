"""The games' pages and the site's home page are generated (scripts/gen_docs.py) and must not drift."""

from __future__ import annotations

import importlib
import importlib.util
import shutil
from pathlib import Path

import envs

ROOT = Path(__file__).resolve().parents[2]


def _gen_docs():
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_pages_match_the_code_and_the_readme():
    stale = [str(path.relative_to(ROOT)) for path in _gen_docs().stale()]
    assert not stale, f"out of date: {stale}; run python scripts/gen_docs.py"


def test_an_edited_generated_part_is_stale_and_regenerating_restores_it(tmp_path, monkeypatch):
    """On a copy of the pages: regenerating rewrites every page, and the suite's other workers read the
    real ones meanwhile."""
    gen = _gen_docs()
    (tmp_path / "docs").mkdir()
    shutil.copytree(ROOT / "docs" / "games", tmp_path / "docs" / "games")
    for page in ("index.md", "references.md"):
        shutil.copy(ROOT / "docs" / page, tmp_path / "docs" / page)
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    monkeypatch.setattr(gen, "DOCS", tmp_path / "docs")
    page = gen.game_page("exposed")
    good = page.read_text()
    page.write_text(good.replace("## Observation", "## Observations", 1))
    assert gen.stale() == [page]
    monkeypatch.setattr(gen.sys, "argv", ["gen_docs.py"])
    assert gen.main() == 0
    assert page.read_text() == good and gen.stale() == []
    assert all(tmp_path in path.parents for path in gen.expected())  # nothing outside the copy written


def test_every_game_has_a_page_and_every_page_a_game():
    gen = _gen_docs()
    assert {p.stem for p in (ROOT / "docs" / "games").glob("*.md")} == set(envs.GAMES)
    for name in envs.GAMES:
        assert gen.START in gen.game_page(name).read_text()


def test_every_game_face_documents_itself():
    for name in envs.GAMES:
        face = importlib.import_module(f"envs.{name}_v0")
        spec = envs.spec(name)
        game = spec.new_game(**spec.benchmark_config)
        for piece in game.observation_layout:
            assert f"`{piece.name}`" in face.__doc__, f"{name}: observation piece {piece.name} undocumented"

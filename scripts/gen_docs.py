"""Regenerate the documentation's generated parts: each game's page from the code's own declarations,
the reference agents' table from their manifest, and the site's home page from README.md. Re-running it is the one way to refresh them.

python scripts/gen_docs.py          # rewrite docs/games/<game>.md and docs/references.md between the
                                    # markers, and docs/index.md
python scripts/gen_docs.py --check  # exit 1, naming each stale page (the tests run this check)
"""

from __future__ import annotations

import sys
from pathlib import Path

import envs
from envs.core.docs import game_page_body
from training import references

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
START, END = (
    "<!-- generated:start (python scripts/gen_docs.py; edit the code, not this part) -->",
    "<!-- generated:end -->",
)
HOME_NOTE = "<!-- generated from README.md by python scripts/gen_docs.py: edit README.md, not this page -->"


def game_page(name: str) -> Path:
    return DOCS / "games" / f"{name}.md"


def references_page() -> Path:
    """The reference agents' page: their table from training/references."""
    return DOCS / "references.md"


def new_game_page(spec) -> str:
    """The skeleton of a page for a game that has none yet: its title and the generated part."""
    return f"# {spec.title}\n\n{START}\n{END}\n"


def with_generated(text: str, body: str) -> str:
    """The page with its generated part rewritten as `body` (the rest of the page kept)."""
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{body}\n{END}{tail}"


def home_page(readme: str) -> str:
    """README.md as the site's home page: its links into docs/ made relative to docs/."""
    return f"{HOME_NOTE}\n\n{readme.replace('](docs/', '](')}"


def expected() -> dict[Path, str]:
    """Every generated page and the text it should hold now."""
    pages = {}
    for spec in envs.specs():
        path = game_page(spec.name)
        current = path.read_text() if path.exists() else new_game_page(spec)
        pages[path] = with_generated(current, game_page_body(spec))
    pages[DOCS / "index.md"] = home_page((ROOT / "README.md").read_text())
    page = references_page()
    pages[page] = with_generated(page.read_text(), references.markdown())
    return pages


def stale() -> list[Path]:
    """The generated pages whose text differs from what the code and README.md give now."""
    return [path for path, text in expected().items() if not path.exists() or path.read_text() != text]


def main() -> int:
    if "--check" in sys.argv:
        old = stale()
        for path in old:
            print(f"{path.relative_to(ROOT)} is out of date: run python scripts/gen_docs.py")
        return 1 if old else 0
    for path, text in expected().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

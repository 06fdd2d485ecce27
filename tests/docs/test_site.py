"""The documentation site builds in strict mode, and strict mode catches what it is there to catch."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("mkdocs", reason="the documentation site needs mkdocs (the dev extra)")


def build(project: Path, site: Path) -> subprocess.CompletedProcess:
    # not -q: mkdocs counts the warnings it logs, and a quiet build logs none, so it would pass
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)]
    return subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=120)


def copy_of_the_docs(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(ROOT / "docs", project / "docs")
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    return project


def test_the_site_builds_strictly(tmp_path):
    done = build(ROOT, tmp_path / "site")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "site" / "games" / "exposed" / "index.html").exists()


@pytest.mark.parametrize(
    "page, added, named",
    [
        ("search.md", "[the layout](layout.md#no-such-heading)", "#no-such-heading"),  # a broken anchor
        ("search.md", "[a page](no-such-page.md)", "no-such-page.md"),  # a broken link
        ("search.md", "![a picture](pictures/no-such-picture.png)", "no-such-picture.png"),
        ("search.md", "[the README](../README.md)", "../README.md"),  # a link out of docs/
        ("new-page.md", "# A page that nav does not list", "new-page.md"),
    ],
)
def test_a_broken_link_or_a_page_outside_nav_fails_the_build(tmp_path, page, added, named):
    project = copy_of_the_docs(tmp_path)
    path = project / "docs" / page
    path.write_text((path.read_text() if path.exists() else "") + f"\n{added}\n")
    done = build(project, tmp_path / "site")
    assert done.returncode != 0
    warning = done.stderr[done.stderr.index("WARNING") :]  # the warning, and the pages it lists
    assert named in warning, done.stderr

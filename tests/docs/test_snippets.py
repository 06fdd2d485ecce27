"""Every code block of README.md and the pages under docs/ runs as written: a python block as a script,
a bash block as a shell script (stopping at the first failing line), each in a subprocess with a
timeout, in a fresh folder that holds a link to the repository's configs/.

A page steers a block by an HTML comment on the line right above its fence:

    <!-- snippet: main-job -->         README's main job: run once, first; its run is what needs-run gets
    <!-- snippet: needs-run -->        the folder also holds runs/exposed-seed0, a copy of the main job's run
    <!-- snippet: requires MODULE -->  skipped, saying so, where MODULE (an optional extra's) is missing
    <!-- snippet: skip (REASON) -->    not run; reported as a skipped test with REASON (`pytest -rs` lists it)

Parts combine: `<!-- snippet: needs-run, requires ray -->`.

A page says so in its text where a block reads the main job's run. Every fence names its language:
python or bash (run) or text (program output, a file tree: not run)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

MarkdownIt = pytest.importorskip(
    "markdown_it", reason="the snippet test needs markdown-it-py (the dev extra)"
).MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
RUN = Path("runs") / "exposed-seed0"
MARKER = re.compile(r"<!--\s*snippet:\s*(?P<parts>.*?)\s*-->")
PART = re.compile(r"(?P<flag>main-job|needs-run)|requires (?P<module>[\w.]+)|skip \((?P<reason>.+)\)")
RUNNABLE = ("python", "bash")
TIMEOUT_S = 300
MAIN_JOB_TIMEOUT_S = 900

# one worker runs them all, so the main job runs once (pytest -n 2 --dist loadgroup)
pytestmark = pytest.mark.xdist_group("docs_snippets")


@dataclass(frozen=True)
class Snippet:
    page: str  # relative to the repository root
    line: int  # of the opening fence, 1-based
    language: str
    code: str
    flags: frozenset[str]  # "main-job", "needs-run"
    requires: tuple[str, ...]  # modules of optional extras
    reason: str | None  # a skip's reason
    unknown: tuple[str, ...]  # marker parts this test does not know

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[Path]:
    # docs/index.md is README.md made into the site's home page (scripts/gen_docs.py): its blocks are README's
    docs = sorted(p for p in (ROOT / "docs").rglob("*.md") if p != ROOT / "docs" / "index.md")
    return [ROOT / "README.md", *docs]


def snippets_of(path: Path) -> list[Snippet]:
    text = path.read_text()
    lines = text.splitlines()
    found = []
    for token in MarkdownIt("commonmark").parse(text):
        if token.type == "fence":
            first = token.map[0]
            marker = _marker(lines[first - 1] if first > 0 else "")
            where = dict(page=str(path.relative_to(ROOT)), line=first + 1)
            found.append(Snippet(**where, language=token.info.strip(), code=token.content, **marker))
    return found


def _marker(line: str) -> dict:
    """The parts of a `<!-- snippet: ... -->` comment on `line` (none where there is no such comment)."""
    found = MARKER.search(line)
    # commas separate the parts, except inside a skip's parenthesised reason
    parts = [p.strip() for p in re.split(r",(?![^()]*\))", found.group("parts"))] if found else []
    matches = [(p, PART.fullmatch(p)) for p in parts if p]
    known = [m for _, m in matches if m]
    return dict(
        flags=frozenset(m.group("flag") for m in known if m.group("flag")),
        requires=tuple(m.group("module") for m in known if m.group("module")),
        reason=next((m.group("reason") for m in known if m.group("reason")), None),
        unknown=tuple(p for p, m in matches if not m),
    )


ALL = [s for page in pages() for s in snippets_of(page)]
RUN_BLOCKS = [s for s in ALL if s.language in RUNNABLE]


def test_every_block_names_its_language():
    unnamed = [s.name for s in ALL if s.language not in (*RUNNABLE, "text")]
    assert not unnamed, f"fences without python, bash or text: {unnamed}"


def test_markers_are_known_and_sit_on_runnable_blocks():
    jobs = [s.name for s in ALL if "main-job" in s.flags]
    assert len(jobs) == 1, f"one block must be marked main-job, not {jobs}"
    unknown = [(s.name, s.unknown) for s in ALL if s.unknown]
    assert not unknown, f"snippet marker parts this test does not know: {unknown}"
    marked = [s.name for s in ALL if (s.flags or s.requires or s.reason) and s.language not in RUNNABLE]
    assert not marked, f"snippet markers above blocks that are not run: {marked}"


def _main_job() -> Snippet:
    (job,) = [s for s in ALL if "main-job" in s.flags]
    return job


def _folder(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "configs").symlink_to(ROOT / "configs")
    return path


def _run(snippet: Snippet, cwd: Path, timeout: int = TIMEOUT_S) -> subprocess.CompletedProcess:
    """The block as written, in `cwd`, with this checkout's code and this Python first on PATH."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "OMP_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
    }
    script = cwd / ("snippet.py" if snippet.language == "python" else "snippet.sh")
    script.write_text(snippet.code)
    command = (
        [sys.executable, script.name]
        if snippet.language == "python"
        else ["bash", "-eo", "pipefail", script.name]
    )
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def _failure(snippet: Snippet, done: subprocess.CompletedProcess) -> str:
    return f"{snippet.name} ({snippet.language}) exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def main_job(tmp_path_factory):
    """README's main job, run once as written; the folder then holds its run directory."""
    cwd = _folder(tmp_path_factory.mktemp("main-job"))
    return cwd, _run(_main_job(), cwd, MAIN_JOB_TIMEOUT_S)


@pytest.mark.parametrize("snippet", RUN_BLOCKS, ids=lambda s: s.name)
def test_snippet_runs_as_written(snippet, tmp_path, request):
    if snippet.reason:
        pytest.skip(f"{snippet.name} not run: {snippet.reason}")
    for module in snippet.requires:
        pytest.importorskip(module, reason=f"{snippet.name} needs {module} (an optional extra)")
    if "main-job" in snippet.flags:
        cwd, done = request.getfixturevalue("main_job")
        assert done.returncode == 0, _failure(snippet, done)
        assert (cwd / RUN / "eval.json").exists() and (cwd / RUN / "checkpoints" / "final.pt").exists()
        return
    cwd = _folder(tmp_path / "cwd")
    if "needs-run" in snippet.flags:
        made, done = request.getfixturevalue("main_job")
        assert done.returncode == 0, "README's main job failed, so no run to read: see its own test"
        shutil.copytree(made / RUN, cwd / RUN)
    done = _run(snippet, cwd)
    assert done.returncode == 0, _failure(snippet, done)

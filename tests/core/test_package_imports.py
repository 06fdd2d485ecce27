"""How the packages import each other, read from the source with `ast` (nothing is imported to check
it): data flows one way, so nothing in `envs` imports `training`, and no module of `envs` or `training`
imports itself in a circle - at the top of a module or inside a function alike (an import inside a
function is no way around a circle). Imports under `if TYPE_CHECKING:` (annotations only) do not count
as circles."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("envs", "training")


def modules(root: Path, packages=PACKAGES) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (its file, whether it is a package's __init__)."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(name: str, path: Path, is_package: bool, known, typing_too: bool = False) -> dict[str, int]:
    """The modules of `known` that module `name` imports anywhere in its file -> the first line.
    `from package import module` counts as importing that module; `from package import name` as
    importing the package."""
    package = name if is_package else name.rpartition(".")[0]
    found: dict[str, int] = {}

    def add(target: str, line: int) -> None:
        if target in known and target != name:
            found.setdefault(target, line)

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child) and not typing_too:
                for other in child.orelse:
                    visit_node(other)
                continue
            visit_node(child)

    def visit_node(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                if f"{source}.{alias.name}" in known:
                    add(f"{source}.{alias.name}", node.lineno)
                else:
                    add(source, node.lineno)
        visit(node)

    visit(ast.parse(path.read_text(), str(path)))
    return found


def import_graph(root: Path = ROOT, packages=PACKAGES, typing_too: bool = False) -> dict[str, dict[str, int]]:
    known = modules(root, packages)
    return {
        name: imports_of(name, path, is_package, known, typing_too)
        for name, (path, is_package) in known.items()
    }


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Every group of modules that import each other in a circle (Tarjan's strongly connected
    components of more than one module), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in graph:
        if v not in index:
            connect(v)
    return found


def describe(graph: dict[str, dict[str, int]], group: list[str]) -> str:
    edges = [f"{a} -> {b} (line {line})" for a in group for b, line in graph[a].items() if b in group]
    return "; ".join(edges)


def test_envs_imports_nothing_from_training():
    """The training package registers its players into envs.core.players, never the other way round
    (type-checking imports count too)."""
    graph = import_graph(typing_too=True)
    assert "envs.core.policies" in graph and "training.cli" in graph  # the walk sees both packages
    found = [
        f"{name} -> {target} (line {line})"
        for name, targets in graph.items()
        if name.split(".")[0] == "envs"
        for target, line in targets.items()
        if target.split(".")[0] == "training"
    ]
    assert not found, f"envs imports training: {found}"


def test_no_module_imports_itself_in_a_circle():
    graph = import_graph()
    found = [describe(graph, group) for group in circles(graph)]
    assert not found, "modules importing each other in a circle: " + " | ".join(found)


def test_the_circle_check_finds_a_circle_through_a_function_level_import(tmp_path):
    """A circle closed by an import inside a function is found, and one under TYPE_CHECKING is not."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "rules.py").write_text(
        "from .data import CARDS\n\ndef text():\n    from .render import text\n"
    )
    (package / "render.py").write_text("from . import rules\n")
    (package / "data.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .rules import text\nCARDS = 1\n"
    )
    graph = import_graph(tmp_path, ("pkg",))
    assert circles(graph) == [["pkg.render", "pkg.rules"]]
    assert graph["pkg.rules"] == {"pkg.data": 1, "pkg.render": 4}
    assert circles(import_graph(tmp_path, ("pkg",), typing_too=True)) == [
        ["pkg.data", "pkg.render", "pkg.rules"]
    ]

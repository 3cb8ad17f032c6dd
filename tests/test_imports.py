"""No import circle in the package or the pipeline: the graph of which
module imports which, read from the source (every import: at the top, in a
function, under TYPE_CHECKING), has no cycle.  A circle is broken by moving
what both ends need to the module it belongs to, not by hiding an import.
A module named by a string (``import_module``: ``runs.stages`` names each
stage's work so) is not imported by the module that names it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"joseki_miner": ROOT / "src" / "joseki_miner", "pipeline": ROOT / "pipeline"}


def modules(packages: dict[str, Path]) -> dict[str, Path]:
    """Every module of the packages (by name, their folders) by its dotted
    name (a package by its ``__init__.py``)."""
    found = {}
    for name, folder in packages.items():
        for path in folder.rglob("*.py"):
            parts = [name, *path.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that module ``name`` imports: ``from P import
    x`` imports P.x where that is a module, else P (a name P defines)."""

    def known_prefix(dotted: str) -> str | None:
        parts = dotted.split(".")
        while parts and ".".join(parts) not in known:
            parts.pop()
        return ".".join(parts) or None

    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str | None] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets.update(known_prefix(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.add(sub if sub in known else known_prefix(base))
    return {t for t in targets if t is not None and t != name}


def graph(packages: dict[str, Path] = PACKAGES) -> dict[str, set[str]]:
    """Which modules of the packages each of them imports."""
    known = modules(packages)
    return {name: imported(name, path, known) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One shortest circle through each strongly connected group of modules
    (Tarjan's), each as the modules in import order, first one repeated."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(edges):
        if v not in index:
            visit(v)

    found = []
    for group in groups:
        start = min(group)
        paths = {start: [start]}
        frontier = [start]
        circle = None
        while frontier and circle is None:
            following = []
            for v in frontier:
                for w in sorted(edges[v] & group):
                    if w == start:
                        circle = [*paths[v], start]
                        break
                    if w not in paths:
                        paths[w] = [*paths[v], w]
                        following.append(w)
                if circle:
                    break
            frontier = following
        found.append(circle)
    return sorted(found)


def test_the_graph_sees_every_kind_of_import(tmp_path):
    """At the top, in a function, under TYPE_CHECKING, relative; a module
    of a package and a name a package defines."""
    sources = {
        "__init__.py": "from pkg.a import A\n",
        "a.py": "A = 1\n\ndef f():\n    from . import b\n",
        "b.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from pkg.sub import c\n",
        "sub/__init__.py": "",
        "sub/c.py": "import os\nimport pkg.sub\nfrom .. import A\nfrom ..a import A as B\n",
    }
    for name, text in sources.items():
        (tmp_path / "pkg" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "pkg" / name).write_text(text)
    assert graph({"pkg": tmp_path / "pkg"}) == {
        "pkg": {"pkg.a"},
        "pkg.a": {"pkg.b"},
        "pkg.b": {"pkg.sub.c"},
        "pkg.sub": set(),
        "pkg.sub.c": {"pkg", "pkg.a", "pkg.sub"},
    }


def test_cycles_are_found_and_named():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"f"}, "f": {"e"}}
    assert cycles(edges) == [["a", "b", "c", "a"], ["e", "f", "e"]]


def test_no_module_imports_itself_round_a_circle():
    found = cycles(graph())
    assert not found, "import circles:\n" + "\n".join(" -> ".join(circle) for circle in found)

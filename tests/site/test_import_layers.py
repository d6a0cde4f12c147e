"""The project's modules import one way (docs/architecture.md, "Layers"):

- no import circle among the project's own modules, counting imports inside functions
  too (a lazy import is still a dependency, only a hidden one);
- the rules engine (``games/engine/``) and the bots (``games/bots/``) never import Django,
  nor any other part of the site: they are plain Python;
- inside ``games/``, lower layers never import delivery (views, consumers, tasks, admin).

The import graph is read from the source with ``ast``, so nothing is imported to build it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("games", "accounts", "guandan_site")
DELIVERY = ("views", "consumer", "consumers", "tasks", "admin", "urls", "routing")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _project_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            modules[_module_name(path)] = path
    return modules


MODULES = _project_modules()


def _resolve(module: str, level: int, here: str, is_package: bool) -> str:
    if level == 0:
        return module
    base = here.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _in_type_checking(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports_of(name: str) -> set[str]:
    """Every module this module imports (project modules and third-party roots alike)."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(), filename=str(path))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if _in_type_checking(node, parents):
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(node.module or "", node.level, name, path.name == "__init__.py")
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                found.add(submodule if submodule in MODULES else target)
    return found


def project_graph() -> dict[str, set[str]]:
    graph = {}
    for name in MODULES:
        edges = set()
        for target in imports_of(name):
            # the nearest project module a dotted name lands in
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                edges.add(target)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_the_project():
    graph = project_graph()
    assert "games.live.door" in graph and "games.tables.services" in graph
    assert "games.live.door" in graph["games.live.tasks"]
    assert "games.engine.deal" in graph["games.live.door"]


def test_no_import_circle_among_the_projects_modules():
    assert cycles(project_graph()) == []


def test_the_cycle_finder_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("package", ["games.engine", "games.bots"])
def test_engine_and_bots_are_plain_python(package):
    offenders = {}
    for name in MODULES:
        if name != package and not name.startswith(package + "."):
            continue
        bad = sorted(
            target
            for target in imports_of(name)
            if target.split(".")[0] in ("django", "channels", "celery", "asgiref", "daphne", "accounts", "guandan_site")
            or (target.startswith("games.") and not target.startswith(("games.engine", "games.bots")))
            or target == "games"
        )
        if bad:
            offenders[name] = bad
    assert offenders == {}


def test_engine_never_imports_the_bots():
    offenders = {
        name: sorted(t for t in imports_of(name) if t.startswith("games.bots"))
        for name in MODULES
        if name.startswith("games.engine")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_no_lower_layer_imports_delivery():
    """Services, selectors, policies, models, rendering and the door never import views,
    consumers, tasks, admin, urls or routing (delivery sits on top)."""
    graph = project_graph()
    offenders = {}
    for name, edges in graph.items():
        if not name.startswith(("games.", "accounts.")) or name.rpartition(".")[2] in DELIVERY:
            continue
        if name.endswith(".apps") or ".management." in name:
            continue  # the composition root and commands sit on top too
        bad = sorted(
            e for e in edges if e.rpartition(".")[2] in DELIVERY and not e.startswith(("games.engine", "games.bots"))
        )
        if bad:
            offenders[name] = bad
    assert offenders == {}

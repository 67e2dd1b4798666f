"""No import circles among the project's own modules (``vision/``, ``scoring/``, ``api/``).

Every ``import`` and ``from … import`` statement is collected with :mod:`ast` — at module level
and inside functions alike (a deferred import is still a circle, just one that bites later) —
plus ``importlib.import_module("…")`` calls with a literal name, and resolved to the project
module it loads. ``from a.b import c`` counts as importing ``a.b.c`` when ``c`` is a submodule,
else ``a.b``. A package's ``__init__`` that runs on the way to a submodule is not counted: that
parent-package edge exists for every submodule and is not a circle anyone can remove.

Circles are the strongly connected components of that graph; the test prints one path round each.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("vision", "scoring", "api")

#: Circles that exist and are known; every other one fails the test.
KNOWN_CYCLES: set[frozenset[str]] = set()  # none: a cycle found is a new one


def module_files() -> dict[str, Path]:
    """Module name → file, for every ``.py`` file under the project's packages."""
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def _absolute(module: str | None, level: int, importer: str, is_package: bool) -> str:
    """The absolute name a (possibly relative) ``from`` import refers to."""
    if not level:
        return module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _project_module(name: str, modules: dict[str, Path]) -> str | None:
    """``name`` or its longest prefix that is a project module (``a.b.attr`` → ``a.b``)."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def imports_of(importer: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules one file imports, wherever in the file the import statement is."""
    found: set[str] = set()
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module, node.level, importer, is_package)
            names = [f"{base}.{alias.name}" for alias in node.names if alias.name != "*"] or [base]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names = [node.args[0].value]
        for name in names:
            target = _project_module(name, modules)
            if target is not None and target != importer:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's strongly connected components (iterative), those of two modules or more."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(component)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return components


def a_cycle(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """One circle through the component's first module, as ``[a, b, …, a]`` (shortest, by BFS)."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(graph[node] & component):
            if child == start:
                return paths[node] + [start]
            if child not in paths:
                paths[child] = paths[node] + [child]
                queue.append(child)
    raise AssertionError(
        f"no circle found in {component}"
    )  # a strongly connected component always has one


def test_the_graph_sees_the_project_modules():
    graph = import_graph()
    assert {"api.service", "api.errors", "scoring.sheet", "vision.reader"} <= set(graph)
    assert "api.errors" in graph["api.service"]  # a module-level import is seen
    assert "scoring.validate" in graph["api.games"]  # so is a call-time import_module("...")


def test_no_import_cycles():
    graph = import_graph()
    cycles = strongly_connected(graph)
    new = [c for c in cycles if frozenset(c) not in KNOWN_CYCLES]
    assert not new, "import cycles:\n" + "\n".join(
        "  " + " → ".join(a_cycle(graph, c)) for c in new
    )

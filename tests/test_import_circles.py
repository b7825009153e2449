"""No import circles among the modules of engine/ and dashboard/.

The import graph is read from the source with :mod:`ast` (nothing is imported) and searched with
networkx. An edge ``a -> b`` is an import of module ``b`` by module ``a``: ``import b``,
``from b import name`` or, when ``b.name`` is a module, ``from b import name`` counts as an
import of ``b.name``. A package's ``__init__`` is a module of its own; importing ``p.m`` is not
counted as importing ``p`` (as import-linter and pydeps count it).

Counted: every import at module level, including those under ``if TYPE_CHECKING:`` (a circle of
types is a circle in the design, and it turns into a runtime circle as soon as one annotation is
needed at runtime). Not counted by the main test: imports inside functions, the deliberate late
bindings (registries filled at first use, the Gavel round loop); the dashboard test below counts
them, because the dashboard's circle hides behind them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "dashboard")


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_level(tree: ast.Module) -> list[ast.stmt]:
    """Statements run when the module is imported: the body, and the bodies of its top-level
    ``if`` (``TYPE_CHECKING`` included) and ``try`` blocks."""
    statements, pending = [], list(tree.body)
    while pending:
        node = pending.pop()
        statements.append(node)
        if isinstance(node, ast.If):
            pending += node.body + node.orelse
        elif isinstance(node, ast.Try):
            pending += node.body + node.orelse + node.finalbody
            pending += [stmt for handler in node.handlers for stmt in handler.body]
    return statements


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """Modules an import statement names (the candidates; non-project ones are filtered later)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:  # relative: resolve against the importing module's package
        package = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join(package[: len(package) - node.level + 1] + ([node.module or ""]))
        base = base.rstrip(".")
    else:
        base = node.module or ""
    return [f"{base}.{alias.name}" for alias in node.names] + [base]


def import_graph(
    root: Path = ROOT, packages: tuple[str, ...] = PACKAGES, lazy: bool = False
) -> nx.DiGraph:
    """The import graph of the packages' modules (module docstring); ``lazy`` also counts
    imports inside functions and classes."""
    paths = {module_name(p, root): p for pkg in packages for p in (root / pkg).rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(paths)
    for module, path in paths.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        statements = ast.walk(tree) if lazy else _module_level(tree)
        for node in statements:
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            names = _targets(node, module, path.name == "__init__.py")
            if isinstance(node, ast.ImportFrom):  # "from p import m": m if a module, else p
                *named, base = names
                names = [n for n in named if n in paths]
                names += [base] if len(names) < len(named) else []
            graph.add_edges_from((module, name) for name in names if name in paths)
    return graph


def circles(graph: nx.DiGraph) -> list[list[str]]:
    """Every elementary circle, each starting at its smallest module name, sorted."""
    found = []
    for cycle in nx.simple_cycles(graph):
        start = cycle.index(min(cycle))
        found.append(cycle[start:] + cycle[:start])
    return sorted(found)


def _describe(found: list[list[str]]) -> str:
    return "\n".join(" -> ".join([*cycle, cycle[0]]) for cycle in found)


def test_engine_and_dashboard_modules_import_each_other_in_no_circle() -> None:
    found = circles(import_graph())
    assert not found, f"{len(found)} import circle(s):\n{_describe(found)}"


def test_dashboard_modules_import_each_other_in_no_circle_even_inside_functions() -> None:
    graph = import_graph(lazy=True)
    dashboard = graph.subgraph(n for n in graph if n.split(".")[0] == "dashboard")
    found = circles(nx.DiGraph(dashboard))
    assert not found, f"{len(found)} import circle(s):\n{_describe(found)}"


def test_the_graph_finds_a_circle_through_type_checking_and_relative_imports(
    tmp_path: Path,
) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from pkg.a import A\n")
    (package / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\nA = 1\n"
    )
    (package / "b.py").write_text("from pkg import c\nB = 2\n")
    (package / "c.py").write_text("def f():\n    from pkg.a import A\n")
    graph = import_graph(tmp_path, ("pkg",))
    assert set(graph.edges) == {("pkg", "pkg.a"), ("pkg.a", "pkg.b"), ("pkg.b", "pkg.c")}
    assert circles(graph) == []
    assert circles(import_graph(tmp_path, ("pkg",), lazy=True)) == [["pkg.a", "pkg.b", "pkg.c"]]

"""No import circles among the modules of engine/ and dashboard/, counting imports inside functions.

The import graph is read from the source with :mod:`ast` (nothing is imported) and searched with
networkx. An edge ``a -> b`` is an import of module ``b`` by module ``a``: ``import b``,
``from b import name`` or, when ``b.name`` is a module, ``from b import name`` counts as an
import of ``b.name``. A package's ``__init__`` is a module of its own; importing ``p.m`` is not
counted as importing ``p`` (as import-linter and pydeps count it).

Counted: every import statement, wherever it stands: at module level, under
``if TYPE_CHECKING:`` (a circle of types is a circle in the design, and it turns into a runtime
circle as soon as one annotation is needed at runtime) and inside functions and classes (an
import deferred to first use is still a dependency). An import by a computed name
(``importlib.import_module``) counts as an import of the module it names, or, when only its
package is written out (``f"engine.study.{name}"``), of every module of that package. The one
exception is registry discovery (:data:`DISCOVERY`): a registry imports its package, and a
package its modules, on purpose, so that registering needs no list of modules; those imports
name no module in the source and are not edges.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "dashboard")
DISCOVERY = frozenset({"engine.registry"})
"""Modules allowed to import by a name computed at runtime: registry discovery
(:class:`engine.registry.Registry` imports its package; :func:`engine.registry.import_submodules`
imports a package's modules)."""


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


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


def _is_dynamic_import(node: ast.AST) -> bool:
    """``importlib.import_module(...)``, ``import_module(...)`` or ``__import__(...)``."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in ("import_module", "__import__")


def _dynamic_targets(node: ast.Call, modules: set[str]) -> list[str] | None:
    """Modules a dynamic import may reach: the one a constant names, every module of the package
    an f-string's constant prefix names (``"p."``), or None when the source names none."""
    if not node.args:
        return None
    arg = node.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return [arg.value]
    if isinstance(arg, ast.JoinedStr) and arg.values:
        head = arg.values[0]
        if isinstance(head, ast.Constant) and str(head.value).endswith("."):
            package = str(head.value)[:-1]
            return [m for m in modules if m.rsplit(".", 1)[0] == package and m != package]
    return None


def import_graph(
    root: Path = ROOT, packages: tuple[str, ...] = PACKAGES
) -> tuple[nx.DiGraph, dict[str, int]]:
    """The import graph of the packages' modules (module docstring), and the modules that
    import by a name the source does not give, with how many such imports each has."""
    paths = {module_name(p, root): p for pkg in packages for p in (root / pkg).rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(paths)
    unresolved: dict[str, int] = {}
    for module, path in paths.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if _is_dynamic_import(node):
                assert isinstance(node, ast.Call)
                reached = _dynamic_targets(node, set(paths))
                if reached is None:
                    unresolved[module] = unresolved.get(module, 0) + 1
                else:
                    graph.add_edges_from((module, name) for name in reached if name in paths)
                continue
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            names = _targets(node, module, path.name == "__init__.py")
            if isinstance(node, ast.ImportFrom):  # "from p import m": m if a module, else p
                *named, base = names
                names = [n for n in named if n in paths]
                names += [base] if len(names) < len(named) else []
            graph.add_edges_from((module, name) for name in names if name in paths)
    return graph, unresolved


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
    graph, _ = import_graph()
    found = circles(graph)
    assert not found, f"{len(found)} import circle(s):\n{_describe(found)}"


def test_only_registry_discovery_imports_by_a_computed_name() -> None:
    _, unresolved = import_graph()
    assert set(unresolved) <= DISCOVERY, (
        f"imports by a name the source does not give (not counted in the graph): "
        f"{sorted(set(unresolved) - DISCOVERY)}; name the module, or its package "
        f'(f"package.{{name}}")'
    )
    assert unresolved, "registry discovery moved: update DISCOVERY"


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    package = tmp_path / "pkg"
    package.mkdir()
    for name, text in files.items():
        (package / name).write_text(text)
    return tmp_path


def test_the_graph_finds_a_circle_through_type_checking_relative_and_function_imports(
    tmp_path: Path,
) -> None:
    root = _package(
        tmp_path,
        {
            "__init__.py": "from pkg.a import A\n",
            "a.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from .b import B\nA = 1\n",
            "b.py": "from pkg import c\nB = 2\n",
            "c.py": "def f():\n    from pkg.a import A\n",
        },
    )
    graph, unresolved = import_graph(root, ("pkg",))
    assert set(graph.edges) == {
        ("pkg", "pkg.a"), ("pkg.a", "pkg.b"), ("pkg.b", "pkg.c"), ("pkg.c", "pkg.a"),
    }  # fmt: skip
    assert circles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]
    assert unresolved == {}


def test_imports_by_a_computed_name_reach_what_the_source_names(tmp_path: Path) -> None:
    """A constant names its module; ``f"pkg.sub.{x}"`` may reach every module of pkg.sub (a
    lazy ``__getattr__``, as engine/study/__init__.py has); a name built otherwise is reported."""
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "import importlib\ndef f():\n    importlib.import_module('pkg.b')\n",
            "b.py": "from importlib import import_module\n"
            "def g(x):\n    return import_module(f'pkg.sub.{x}')\n",
            "c.py": "import importlib\ndef h(p):\n    importlib.import_module(p + '.x')\n",
        },
    )
    (root / "pkg" / "sub").mkdir()
    for name in ("__init__.py", "x.py", "y.py"):
        (root / "pkg" / "sub" / name).write_text("")
    graph, unresolved = import_graph(root, ("pkg",))
    assert set(graph.edges) == {("pkg.a", "pkg.b"), ("pkg.b", "pkg.sub.x"), ("pkg.b", "pkg.sub.y")}
    assert unresolved == {"pkg.c": 1}

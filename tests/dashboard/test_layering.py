"""Data flows one way: the dashboard imports the engine, never the reverse."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN = ("dashboard", "streamlit", "plotly")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_engine_never_imports_the_dashboard_or_ui_libraries() -> None:
    offenders = {
        str(path.relative_to(ENGINE)): sorted(
            n for n in imported_modules(path) if n.split(".")[0] in FORBIDDEN
        )
        for path in ENGINE.rglob("*.py")
    }
    assert not {k: v for k, v in offenders.items() if v}

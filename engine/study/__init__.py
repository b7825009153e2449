"""Studies: what-if variants x policies x seeds, run serially, on a process pool or on Ray,
with statistics over seeds, cost KPIs and a capacity planner (issue 10).

The flat API: :class:`Study`, :class:`Variant`, :func:`expand`, :func:`grid`,
:func:`run_study` -> :class:`StudyResult`; :class:`RunSpec` for one run (run by
:func:`engine.scenario.run`);
:class:`TraceStore` for uploaded traces.

The names load on first use (PEP 562), so importing a light submodule (``engine.study.spec``,
``engine.study.executors``) does not import the simulator, pandas and scipy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.study.run import RunResult, StudyResult, run_study
    from engine.study.spec import RunSpec
    from engine.study.study import Study, Variant, expand, grid
    from engine.study.traces import TraceStore

_HOME = {
    "RunResult": "run", "StudyResult": "run", "run_study": "run",
    "RunSpec": "spec", "Study": "study", "Variant": "study", "expand": "study", "grid": "study",
    "TraceStore": "traces",
}  # fmt: skip
__all__ = [
    "RunResult", "RunSpec", "Study", "StudyResult", "TraceStore", "Variant", "expand", "grid",
    "run_study",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    """Imports ``name`` from its submodule on first access."""
    if name not in _HOME:
        raise AttributeError(f"module 'engine.study' has no attribute {name!r}")
    return getattr(importlib.import_module(f"engine.study.{_HOME[name]}"), name)

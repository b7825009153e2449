"""Studies: what-if variants x policies x seeds, run serially, on a process pool or on Ray,
with statistics over seeds, cost KPIs and a capacity planner (issue 10).

The flat API: :class:`Study`, :class:`Variant`, :func:`expand`, :func:`grid`,
:func:`run_study` -> :class:`StudyResult`; :class:`RunSpec` and :func:`run_spec` for one run;
:class:`TraceStore` for uploaded traces.
"""

from engine.study.run import RunResult, StudyResult, run_spec, run_study
from engine.study.spec import RunSpec
from engine.study.study import Study, Variant, expand, grid
from engine.study.traces import TraceStore

__all__ = [
    "RunResult",
    "RunSpec",
    "Study",
    "StudyResult",
    "TraceStore",
    "Variant",
    "expand",
    "grid",
    "run_spec",
    "run_study",
]

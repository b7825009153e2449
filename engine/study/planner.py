"""The capacity planner: the cheapest GPU mix whose metric meets a target at a stated
confidence, today's cluster as the reference, and the cost/metric Pareto front of every mix
evaluated.

A *mix* is a node count per candidate worker type, and, when the scenario has failures on and
the plan allows spares (``PlanSpec.max_spares``), the spare nodes held per GPU type; the types
and the cost rule are in :mod:`engine.study.planner_spec`. A mix *meets* the target when the
one-sided bound of the metric's mean over seeds at ``confidence`` is on the right side of the
target (`engine.study.planner_target`); with failures on, the target is judged on the
simulations with failures, and every mix also reports its goodput (useful over allocated
GPU-hours, `engine.metrics`). The search is :func:`engine.study.planner_search.search`; every
mix runs on the same seeds first, with the same trace draws (and the same failure draws per
node), so mixes are compared on the same jobs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from engine.budget import WorkerLimits
from engine.study.executors import open_pool
from engine.study.planner_eval import Evaluator
from engine.study.planner_result import PlanProgressFn, PlanResult, pareto_front
from engine.study.planner_search import search
from engine.study.planner_spec import Candidate, Mix, PlanSpec
from engine.study.planner_target import TARGET_METRICS
from engine.study.traces import TraceStore

__all__ = [
    "TARGET_METRICS", "Candidate", "Mix", "PlanResult", "PlanSpec", "pareto_front", "plan",
]  # fmt: skip


def plan(
    spec: PlanSpec,
    *,
    executor: str = "pool",
    workers: int | None = None,
    ray_address: str | None = None,
    results_dir: Path | str | None = None,
    on_progress: PlanProgressFn | None = None,
    should_cancel: Callable[[], bool] | None = None,
    traces: TraceStore | None = None,
    trace_hash: str = "",
    limits: WorkerLimits | None = None,
) -> PlanResult:
    """Finds the cheapest mix meeting the target (see :mod:`engine.study.planner_search`).

    Args:
        spec: the question.
        executor, workers, ray_address, should_cancel, limits: as for
            :func:`engine.study.run.run_study`; the answer does not depend on them.
        results_dir: the run store: finished runs are kept there, and the search (an Optuna
            study, ``<results_dir>/planner/<spec key>.journal``), so a re-plan resumes; None
            keeps nothing.
        on_progress: called with (simulations so far, a line of the explanation).
        traces, trace_hash: the trace store and hash of an ``"upload:"`` trace source.

    Raises:
        ConfigError, TraceError: for a bad spec or trace.
        SimulationCancelled: on cancel (finished runs and trials stay stored).
    """
    evaluator = Evaluator(spec, executor, workers, ray_address, results_dir, should_cancel, limits)
    evaluator.use_trace(traces, trace_hash)
    journal = None
    if results_dir is not None:
        journal = Path(results_dir) / "planner" / f"{spec.key(evaluator.digest)}.journal"
    with open_pool(executor, workers, limits) as pool:  # one pool for all search batches
        evaluator.pool = pool
        return search(spec, evaluator, journal, on_progress)

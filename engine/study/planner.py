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
from engine.errors import ConfigError
from engine.study.executors import open_pool
from engine.study.planner_eval import Evaluator
from engine.study.planner_result import PlanProgressFn, PlanResult, pareto_front
from engine.study.planner_search import search
from engine.study.planner_spec import Candidate, Mix, PlanSpec
from engine.study.planner_target import TARGET_METRICS
from engine.study.traces import TraceStore

__all__ = [
    "TARGET_METRICS", "Candidate", "Mix", "PlanResult", "PlanSpec", "pareto_front", "plan",
    "today_value",
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


def today_value(
    spec: PlanSpec,
    *,
    executor: str = "pool",
    workers: int | None = None,
    results_dir: Path | str | None = None,
    should_cancel: Callable[[], bool] | None = None,
    traces: TraceStore | None = None,
    trace_hash: str = "",
    limits: WorkerLimits | None = None,
) -> float:
    """Today's cluster's value of the plan's metric as far as the plan's seeds tell: the
    one-sided bound of its mean over them at the plan's confidence (seconds, or a share), the
    target of a plan that asks "what is the cheapest mix as good as today's?" [R: the Planner
    page's default target, issue 38]. A mix meets it when we are as sure of it as of today's
    cluster; today's cluster meets it on these seeds by construction, so the plan never ends
    without a mix to confirm (its mean would be a target today's cluster itself misses, and
    one no mix meets when today's jobs barely queue). The runs are the plan's own (same run
    specs; ``spec.target_value`` does not enter them), so a plan on the same run store reuses
    them. Arguments as for :func:`plan`.

    Raises:
        ConfigError: when today's cluster cannot run the trace (the engine's reason).
    """
    ev = Evaluator(spec, executor, workers, None, results_dir, should_cancel, limits)
    ev.use_trace(traces, trace_hash)
    key = ev.today_key()
    ev.evaluate([key], "today", list(spec.seeds))
    row = ev.rows[key]
    if row["error"]:
        raise ConfigError(f"today's cluster cannot run the trace, so it gives no target: "
                          f"{row['error']}")  # fmt: skip
    return float(row["bound"])

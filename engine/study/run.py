"""Running a study: expand, reuse stored runs, execute the rest, collect a StudyResult.

``run_study(study, executor="pool")`` is the flat API the dashboard and ``python -m engine
sweep`` share. Finished runs are stored (``results_dir``, Parquet per run keyed by the spec's
hash) as they finish, so a re-run, a revisit or an interrupted sweep reuses them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from engine.budget import WorkerLimits
from engine.results import RunResult
from engine.study.executors import Task, run_tasks
from engine.study.result import StudyResult
from engine.study.spec import RunSpec
from engine.study.store import ResultStore
from engine.study.study import Study, expand
from engine.study.traces import TraceStore, trace_payload

__all__ = ["RunResult", "StudyResult", "run_study", "study_tasks"]

StudyProgressFn = Callable[[int, int, str], None]  # (runs done, runs in all, last run's label)


def run_study(
    study: Study,
    *,
    executor: str = "pool",
    workers: int | None = None,
    ray_address: str | None = None,
    results_dir: Path | str | None = None,
    traces: TraceStore | None = None,
    on_progress: StudyProgressFn | None = None,
    should_cancel: Callable[[], bool] | None = None,
    limits: WorkerLimits | None = None,
) -> StudyResult:
    """Runs every (variant, policy, seed) of ``study``.

    Args:
        executor: "serial", "pool" (default, all cores) or "ray".
        workers: pool or local-Ray size (default: one per core).
        ray_address: a Ray cluster to join (``ray.init(address=...)``).
        results_dir: where finished runs are stored and looked up (None: not stored).
        traces: the trace store for ``"upload:"`` sources (``study.trace_hash``).
        on_progress: called after each run as (done, total, "variant · policy · seed s").
        should_cancel: polled between runs; True stops the study (finished runs stay stored).
        limits: caps of each pool worker (see :func:`engine.study.executors.run_tasks`).

    Raises:
        ConfigError, TraceError, EngineError: the first bad variant or failing run.
        SimulationCancelled: on cancel.
    """
    tasks = study_tasks(study, traces)
    store = ResultStore(results_dir) if results_dir is not None else None
    results: list[RunResult | None] = [None] * len(tasks)
    stored = store.keys() if store else set()
    for i, (spec, _) in enumerate(tasks):
        if store and spec.key() in stored:
            results[i] = store.load(spec)
    reused = sum(r is not None for r in results)
    todo = [i for i, r in enumerate(results) if r is None]
    count = [reused]
    if on_progress:
        on_progress(reused, len(tasks), "reused stored runs" if reused else "starting")

    def done(j: int, result: RunResult) -> None:
        results[todo[j]] = result
        if store:
            store.save(result)
        count[0] += 1
        if on_progress:
            on_progress(count[0], len(tasks), _label(result.spec))

    run_tasks(
        [tasks[i] for i in todo], done, executor=executor, workers=workers,
        ray_address=ray_address, should_cancel=should_cancel,
        limits=limits,
    )  # fmt: skip
    final = tuple(r for r in results if r is not None)
    assert len(final) == len(tasks)
    return StudyResult(study, final, reused)


def study_tasks(study: Study, traces: TraceStore | None = None) -> list[Task]:
    """The expanded specs, each with its trace's hash filled in and its trace bytes."""
    payloads: dict[str, tuple[str, tuple[str, bytes] | None]] = {}
    tasks = []
    for spec in expand(study, study.trace_hash):
        trace = spec.scenario.trace
        cache_key = f"{trace.source}\0{study.trace_hash}"
        if cache_key not in payloads:
            payloads[cache_key] = trace_payload(spec.scenario, traces, study.trace_hash)
        digest, payload = payloads[cache_key]
        tasks.append((dataclasses.replace(spec, trace_hash=digest), payload))
    return tasks


def _label(spec: RunSpec) -> str:
    return f"{spec.variant} · {spec.policy_label} · seed {spec.sim_seed}"

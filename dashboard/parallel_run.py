"""A scenario's policies side by side: one run spec per policy on the study's executors.

Each policy of a scenario is an independent run (:class:`engine.study.spec.RunSpec`:
:func:`engine.scenario.scenario_specs`), so the study's executors
(:func:`engine.study.executors.run_tasks`) run them at once: a local process pool by default,
in this process with ``GPUSCHED_EXECUTOR=serial``. A worker runs only engine code
(:func:`engine.study.executors.execute`, which calls :func:`engine.scenario.run`, the one path
from a spec to a result), so every table is the one a serial run gives (only
``decision_time_s``, a wall time, differs).

Progress: each worker writes its fraction done to a small file in a temporary folder and looks
there for a cancel request (:mod:`engine.study.progress`); the caller polls the folder
between the executor's waits. No streamlit here: the pool's workers import this module.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.budget import WorkerLimits
from engine.study import executors
from engine.study.executors import Payload, run_tasks
from engine.study.progress import ProgressFiles
from engine.study.spec import RunSpec

if TYPE_CHECKING:
    from engine.results import RunResult

EXECUTOR_ENV = "GPUSCHED_EXECUTOR"  # "serial" runs in this process (tests); default "pool"


@dataclass(frozen=True)
class PolicyStatus:
    """Where one policy's run stands: ``state`` is "waiting", "running" or "done"; ``fraction``
    of its jobs finished (0..1); ``elapsed_s`` since it started (wall, seconds)."""

    name: str
    state: str
    fraction: float = 0.0
    elapsed_s: float = 0.0


StatusFn = Callable[[list[PolicyStatus]], None]


def run_policies(
    specs: Sequence[RunSpec],
    payload: Payload,
    num_jobs: int,
    *,
    on_status: StatusFn | None = None,
    should_cancel: Callable[[], bool] | None = None,
    executor: str | None = None,
    workers: int | None = None,
    limits: WorkerLimits | None = None,
) -> list[RunResult]:
    """Runs the specs of a scenario's policies (:func:`engine.scenario.scenario_specs`) at
    once, as the study's executors run specs; returns their results in the specs' order.

    Args:
        payload: the trace's (file name, bytes) for an upload (None: the workers read a sample
            from disk, or draw a synthetic trace).
        num_jobs: the trace's jobs (orders the runs, longest first: :mod:`dashboard.run_order`).
        on_status: called about every quarter second (pool) or every progress report
            (serial) with one :class:`PolicyStatus` per spec, in the specs' order.
        should_cancel: polled as often; True cancels every run.
        executor: "pool" or "serial" (default: ``$GPUSCHED_EXECUTOR``, else "pool" for more
            than one policy); workers: pool size (default one per core); limits:
            each pool worker's caps (:func:`engine.study.executors.run_tasks`).

    Raises:
        SimulationCancelled: on cancel; EngineError: the first failing run's error.
    """
    from dashboard import run_order

    policies = [spec.scenario.policies[0].name for spec in specs]
    order = run_order.longest_first(policies, num_jobs)
    tasks = [(specs[i], payload) for i in order]  # longest first; results in the specs' order
    chosen = executor or os.environ.get(EXECUTOR_ENV) or ("pool" if len(tasks) > 1 else "serial")
    results: list[RunResult | None] = [None] * len(tasks)
    with tempfile.TemporaryDirectory(prefix="gpusched-progress-") as folder:
        files = ProgressFiles(Path(folder))
        names = [spec.variant for spec in specs]

        def poll() -> bool:
            if on_status:
                on_status(_statuses(names, results, files))
            cancel = bool(should_cancel and should_cancel())
            if cancel:
                files.request_cancel()
            return cancel

        def done(submitted: int, result: RunResult) -> None:
            i = order[submitted]
            results[i] = result
            seen = files.read(names[i])
            if seen is not None:
                run_order.remember(policies[i], seen[2], len(result.jobs))
            poll()

        extra = {"poll": poll} if chosen == "serial" else {}
        worker = functools.partial(executors.execute, progress=files, **extra)
        try:
            run_tasks(tasks, done, executor=chosen, workers=workers, should_cancel=poll,
                      fn=worker, limits=limits)  # fmt: skip
        except BaseException:
            files.request_cancel()  # workers still running stop at their next report
            raise
    return [r for r in results if r is not None]


def _statuses(
    names: list[str], results: list[RunResult | None], files: ProgressFiles
) -> list[PolicyStatus]:
    statuses = []
    for name, result in zip(names, results, strict=True):
        seen = files.read(name)
        if seen is None:
            statuses.append(
                PolicyStatus(name, "done" if result else "waiting", float(bool(result)))
            )
        elif result is not None:
            statuses.append(PolicyStatus(name, "done", 1.0, seen[2]))
        else:
            statuses.append(PolicyStatus(name, "running", min(seen[0], 1.0), time.time() - seen[1]))
    return statuses


def warm_up() -> None:
    """Starts the pool's server process (it imports the engine once) and lets one worker
    import this module, so the first Run does not wait for either. Blocks until done; the
    dashboard calls it in a background thread at start (never under the serial executor)."""
    from engine.config import ScenarioConfig

    if os.environ.get(EXECUTOR_ENV, "pool") != "pool":
        return
    config = ScenarioConfig()  # a spec holds one policy: the engine's first default one
    scenario = dataclasses.replace(config, policies=config.policies[:1])
    spec = RunSpec(scenario, "warm-up", 0, 0, "")  # never run: fn does nothing
    run_tasks([(spec, None)], lambda i, r: None, executor="pool", workers=1, fn=_nothing)


def _nothing(spec: RunSpec, payload: Payload) -> None:
    """The warm-up task: nothing to do once imported."""

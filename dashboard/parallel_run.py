"""A scenario's policies side by side: one run spec per policy on the study's executors.

Each policy of a scenario is an independent run (:class:`engine.study.spec.RunSpec`: the
scenario with that one policy, its seeds and the trace's hash), so the study's executors
(:func:`engine.study.executors.run_tasks`) run them at once: a local process pool by default,
in this process with ``GPUSCHED_EXECUTOR=serial``. A worker loads the trace as
:func:`engine.scenario.run_scenario` does and simulates its policy on it, so every table is the
one a serial run gives (only ``decision_time_s``, a wall time, differs).

Progress: each worker writes its fraction done to a small file in a temporary folder and looks
there for a cancel request (:mod:`dashboard.progress_files`); the caller polls the folder
between the executor's waits. No streamlit here: the pool's workers import this module.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from dashboard.progress_files import ProgressFiles, RunReporter
from engine.policies.base import display_name
from engine.study.executors import Task, WorkerLimits, run_tasks
from engine.study.spec import RunSpec

if TYPE_CHECKING:
    from engine.config import ScenarioConfig
    from engine.results import ComparisonResult, SimulationResult
    from engine.traces import TraceLoad

EXECUTOR_ENV = "GPUSCHED_EXECUTOR"  # "serial" runs in this process (tests); default "pool"
Upload = tuple[str, bytes] | None


@dataclass(frozen=True)
class PolicyStatus:
    """Where one policy's run stands: ``state`` is "waiting", "running" or "done"; ``fraction``
    of its jobs finished (0..1); ``elapsed_s`` since it started (wall, seconds)."""

    name: str
    state: str
    fraction: float = 0.0
    elapsed_s: float = 0.0


StatusFn = Callable[[list[PolicyStatus]], None]


def policy_tasks(config: ScenarioConfig, upload: Upload) -> list[Task]:
    """One (spec, trace payload) per policy of ``config``, in the scenario's order; a spec's
    ``variant`` is the policy's display name (unique in a valid scenario)."""
    digest = hashlib.sha256(upload[1]).hexdigest() if upload else ""
    payload = upload if config.trace.source.startswith("upload:") else None
    return [
        (
            RunSpec(
                dataclasses.replace(config, policies=(policy,)),
                display_name(policy),
                config.effective_trace_seed,
                config.seed,
                digest,
                record="full",
            ),  # fmt: skip
            payload,
        )
        for policy in config.policies
    ]


def simulate_policy(
    files: ProgressFiles,
    spec: RunSpec,
    payload: Upload,
    poll: Callable[[], bool] | None = None,
) -> SimulationResult:
    """The worker function: the spec's one policy on its scenario's trace, every table kept.

    ``poll`` (serial executor only) is the caller's own poll, called between progress reports.

    Raises:
        SimulationCancelled: a cancel was requested (``files``) or ``poll()`` returned True.
    """
    from engine.scenario import run_matrix
    from engine.simulator import simulate

    config = spec.scenario
    trace = _trace(config, spec.trace_hash, payload)
    matrix = run_matrix(config, trace)
    reporter = RunReporter(files, spec.variant, poll)
    result = simulate(
        trace.jobs, config, config.policies[0], matrix,
        on_progress=reporter.progress, should_cancel=reporter.should_cancel,
    )  # fmt: skip
    files.report(spec.variant, 1.0, reporter.started)
    return result


_TRACES: dict[str, TraceLoad] = {}


def _trace(config: ScenarioConfig, trace_hash: str, payload: Upload) -> TraceLoad:
    """The scenario's jobs table, loaded once per worker process and trace."""
    from engine.scenario import load_scenario_trace, scenario_matrix

    key = dataclasses.replace(config, policies=()).to_json() + trace_hash
    if key not in _TRACES:
        _TRACES.clear()  # one scenario at a time: keep memory flat
        _TRACES[key] = load_scenario_trace(config, scenario_matrix(config), payload)
    return _TRACES[key]


def run_policies(
    config: ScenarioConfig,
    upload: Upload,
    trace: TraceLoad,
    *,
    on_status: StatusFn | None = None,
    should_cancel: Callable[[], bool] | None = None,
    executor: str | None = None,
    workers: int | None = None,
    limits: WorkerLimits | None = None,
) -> ComparisonResult:
    """Simulates every policy of ``config`` at once, as the study's executors run specs.

    Args:
        trace: the scenario's loaded trace (its notes and dropped jobs go into the result).
        on_status: called about every quarter second (pool) or every progress report
            (serial) with one :class:`PolicyStatus` per policy, in the scenario's order.
        should_cancel: polled as often; True cancels every run.
        executor: "pool" or "serial" (default: ``$GPUSCHED_EXECUTOR``, else "pool" for more
            than one policy); workers: pool size (default one per core); limits:
            each pool worker's caps (:func:`engine.study.executors.run_tasks`). Runs are
            submitted longest first (:mod:`dashboard.run_order`); results come back in the
            scenario's order.

    Raises:
        SimulationCancelled: on cancel; EngineError: the first failing run's error.
    """
    from dashboard import run_order
    from engine.results import ComparisonResult

    num_jobs = len(trace.jobs)
    order = run_order.longest_first([p.name for p in config.policies], num_jobs)
    in_scenario_order = policy_tasks(config, upload)
    tasks = [in_scenario_order[i] for i in order]  # longest first; results in scenario order
    chosen = executor or os.environ.get(EXECUTOR_ENV) or ("pool" if len(tasks) > 1 else "serial")
    results: list[SimulationResult | None] = [None] * len(tasks)
    with tempfile.TemporaryDirectory(prefix="gpusched-progress-") as folder:
        files = ProgressFiles(Path(folder))
        names = [spec.variant for spec, _ in in_scenario_order]

        def poll() -> bool:
            if on_status:
                on_status(_statuses(names, results, files))
            cancel = bool(should_cancel and should_cancel())
            if cancel:
                files.request_cancel()
            return cancel

        def done(submitted: int, result: SimulationResult) -> None:
            i = order[submitted]
            results[i] = result
            seen = files.read(names[i])
            if seen is not None:
                run_order.remember(config.policies[i].name, seen[2], num_jobs)
            poll()

        extra = {"poll": poll} if chosen == "serial" else {}
        worker = functools.partial(simulate_policy, files, **extra)
        try:
            run_tasks(tasks, done, executor=chosen, workers=workers, should_cancel=poll,
                      fn=worker, limits=limits)  # fmt: skip
        except BaseException:
            files.request_cancel()  # workers still running stop at their next report
            raise
    final = tuple(r for r in results if r is not None)
    return ComparisonResult(config, final, trace.notes, trace.dropped_job_ids)


def _statuses(
    names: list[str], results: list[SimulationResult | None], files: ProgressFiles
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
    from engine.config import PolicySpec, ScenarioConfig

    if os.environ.get(EXECUTOR_ENV, "pool") != "pool":
        return
    ((spec, payload),) = policy_tasks(ScenarioConfig(policies=(PolicySpec("fifo"),)), None)
    run_tasks([(spec, payload)], lambda i, r: None, executor="pool", workers=1, fn=_nothing)


def _nothing(spec: RunSpec, payload: Upload) -> None:
    """The warm-up task: nothing to do once imported."""

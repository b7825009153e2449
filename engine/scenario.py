"""One unit of work: ``run(spec) -> RunResult``, the one path from a spec to a simulated run.

Every run goes through :func:`run`: the command line and a scenario's comparison
(:func:`run_scenario`, one spec per policy), a study's and the planner's executors
(:func:`engine.study.executors.execute`) and the dashboard's workers
(:mod:`dashboard.parallel_run`). It builds the scenario's throughput matrix, validates the
scenario, takes the trace (parsed once per process and trace, :func:`load_scenario_trace`),
simulates the spec's one policy and returns the result with its spec.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Callable

import pandas as pd

from engine.budget import Budget, check_config
from engine.config import ScenarioConfig
from engine.errors import ConfigError
from engine.jobs import gc_paused
from engine.metrics import utilization_by_type
from engine.policies.base import display_name
from engine.power.energy import with_power
from engine.results import ComparisonResult, RunResult, SimulationResult
from engine.simulator import CancelFn, ProgressFn, simulate
from engine.step_time.throughput import ThroughputMatrix, load_matrix
from engine.study.spec import RunSpec
from engine.study.traces import trace_payload
from engine.traces import TraceLoad, draw_trace, fit_trace
from engine.traces.resolve import TraceFile
from engine.validate import validate_config

OverallProgressFn = Callable[[float, str], None]
DRAWN_KEPT = 8  # drawn traces a process keeps (a sweep draws each (trace, seed, load) once)


def run(
    spec: RunSpec,
    file: TraceFile | None = None,
    *,
    on_progress: ProgressFn | None = None,
    should_cancel: CancelFn | None = None,
) -> RunResult:
    """Simulates the spec's one policy on its scenario's trace.

    Args:
        file: the trace's (file name, bytes) when the caller has them (an upload's; the
            executors ship them with the task); a sample or path is read from disk when None.
        on_progress: called with the fraction of the run done (0..1).
        should_cancel: polled during the run; True stops it.

    Raises:
        ConfigError, TraceError, OversizedJobsError, EngineError: bad scenario or trace (the
            message names the key, row or column); SimulationCancelled: cancelled.
    """
    config = spec.scenario
    validate_config(config, scenario_matrix(config))
    trace = load_scenario_trace(config, file, spec.trace_hash)
    full = spec.record == "full"
    simulation = simulate(  # the decision log only where the run's tables are kept
        trace.jobs, config, config.policies[0], run_matrix(config, trace),
        on_progress=on_progress, should_cancel=should_cancel,
        record_segments=full, decision_log=None if full else False,
        stage_rows=trace.stage_rows, trace_file=trace.file_name,
    )  # fmt: skip
    if config.power is not None:  # the power layer (engine.power): its KPIs in the summary
        simulation = with_power(simulation, config.cluster, config.power)
    usage = _usage(simulation, len(trace.dropped_job_ids), config)
    return RunResult(spec, simulation, usage, trace.notes, trace.dropped_job_ids)


def prepare(
    config: ScenarioConfig,
    upload: TraceFile | None = None,
    budget: Budget | None = None,
    name: str = "",
    upload_rows: int | None = None,
) -> tuple[str, TraceFile | None, list[RunSpec]]:
    """The one preparation of a scenario for running, for the CLI and every dashboard page:
    its size against ``budget`` when given (:func:`engine.budget.check_config`, before the trace
    is parsed), its fields (:func:`engine.validate.validate_config`), its trace's SHA-256 and
    bytes (:func:`engine.study.traces.trace_payload`) and one run spec per policy.

    Args:
        upload_rows: lines of ``upload``, counted when it was stored
            (:meth:`engine.study.traces.TraceStore.rows`); the budget's jobs bound.

    Returns:
        (trace SHA-256, (file name, bytes) of the trace or None for a synthetic one, run specs).

    Raises:
        BudgetError: a limit exceeded (naming the scenario when ``name`` is given);
            ConfigError, TraceError: a bad field, an unreadable trace file.
    """
    if budget is not None:
        check_config(config, budget, upload_rows, name)
    validate_config(config, scenario_matrix(config))
    digest, file = trace_payload(config, None, upload=upload)
    return digest, file, scenario_specs(config, digest)


def run_scenario(
    config: ScenarioConfig,
    *,
    upload: TraceFile | None = None,
    on_progress: OverallProgressFn | None = None,
    should_cancel: CancelFn | None = None,
) -> ComparisonResult:
    """Every policy of ``config`` on its trace, one :func:`run` each, in the scenario's order.

    Args:
        upload: (file name, bytes) of an uploaded trace when ``config.trace.source`` is
            ``"upload:<name>"``.
        on_progress: called with (fraction of the whole scenario done, policy name).
        should_cancel: polled during the run; True stops it.

    Raises:
        ConfigError, TraceError: bad configuration or trace (message names key / row / column).
        SimulationCancelled: the user cancelled.
    """
    digest, file, specs = prepare(config, upload)
    runs = []
    for i, spec in enumerate(specs):

        def progress(fraction: float, i: int = i, name: str = spec.variant) -> None:
            if on_progress:
                on_progress((i + fraction) / len(specs), name)

        progress(0.0)
        runs.append(run(spec, file, on_progress=progress, should_cancel=should_cancel))
    if on_progress:
        on_progress(1.0, "done")
    return ComparisonResult.of(config, runs)


def scenario_specs(config: ScenarioConfig, trace_hash: str) -> list[RunSpec]:
    """One full-record spec per policy of a validated ``config`` (:func:`validate_config`
    checks the policies' labels are unique), in its order; a spec's ``variant`` is the
    policy's display name.

    Args:
        trace_hash: the trace's SHA-256 (:func:`engine.study.traces.trace_payload`).
    """
    return [
        RunSpec(
            dataclasses.replace(config, policies=(policy,)),
            display_name(policy),
            config.effective_trace_seed,
            config.seed,
            trace_hash,
            record="full",
        )
        for policy in config.policies
    ]


def scenario_matrix(config: ScenarioConfig) -> ThroughputMatrix:
    """The throughput matrix with the scenario's extra worker types added by speed ratio.

    Raises:
        ConfigError: for an extra type whose base is unknown, a ratio <= 0, or a name taken.
    """
    matrix = load_matrix(config.throughputs)
    for i, extra in enumerate(config.extra_worker_types, start=1):
        where = f"extra GPU type {i} ({extra.name!r})"
        if not extra.name or extra.name in matrix.worker_types:
            raise ConfigError(f"{where}: the name is empty or already a GPU type")
        if extra.base not in matrix.worker_types:
            raise ConfigError(f"{where}: unknown base type {extra.base!r}")
        if not extra.speed_ratio > 0:
            raise ConfigError(f"{where}: speed ratio must be > 0")
        matrix = matrix.with_worker_type(extra.name, extra.base, extra.speed_ratio)
    return matrix


def run_matrix(config: ScenarioConfig, trace: TraceLoad) -> ThroughputMatrix:
    """The matrix a run simulates with: :func:`scenario_matrix` with the trace's own measured
    speeds added (:meth:`ThroughputMatrix.merged`), every step slowed by the rounds'
    ``step_time_overhead`` (:meth:`ThroughputMatrix.slowed`)."""
    matrix = scenario_matrix(config).merged(trace.throughputs)
    return matrix.slowed(config.rounds.step_time_overhead)


_DRAWN: OrderedDict[tuple[object, ...], TraceLoad] = OrderedDict()
_DRAWN_LOCK = threading.Lock()  # the dashboard's sessions share the process


def load_scenario_trace(
    config: ScenarioConfig, file: TraceFile | None = None, trace_hash: str = ""
) -> TraceLoad:
    """The scenario's validated jobs table: the trace drawn with :func:`scenario_matrix`
    (:func:`engine.traces.draw_trace`, independent of the GPU mix), then fitted to the cluster
    (:func:`engine.traces.fit_trace`).

    The drawn trace is kept per process by the trace's SHA-256 (``trace_hash``) and what shapes
    the draw (trace settings, load, trace seed, matrix), so the policies of a scenario, the
    seeds of a sweep on one worker and the dashboard's preview parse a file once.

    Args:
        file: the trace's (file name, bytes); needed for an upload (see
            :func:`engine.traces.resolve.read_trace_file`).
        trace_hash: the file's SHA-256; "" draws afresh (a sample or path read from disk).

    Raises:
        TraceError, OversizedJobsError, ConfigError: bad trace, load or matrix.
    """
    matrix = scenario_matrix(config)
    seed = config.effective_trace_seed
    key = (
        trace_hash, config.trace, config.load, seed, config.throughputs,
        config.extra_worker_types,
    )  # fmt: skip
    kept = bool(trace_hash) or config.trace.source == "synthetic"
    with _DRAWN_LOCK:
        drawn = _DRAWN.get(key) if kept else None
        if drawn is not None:
            _DRAWN.move_to_end(key)
    if drawn is None:
        with gc_paused():  # a million rows' strings: the collector walked them a few times
            drawn = draw_trace(config.trace, matrix, seed, file, config.load)
        if kept:
            with _DRAWN_LOCK:
                _DRAWN[key] = drawn
                while len(_DRAWN) > DRAWN_KEPT:
                    _DRAWN.popitem(last=False)
    return fit_trace(drawn, config.cluster, matrix, config.trace.drop_oversized)


def _usage(result: SimulationResult, dropped: int, config: ScenarioConfig) -> dict[str, float]:
    usage = {"jobs_dropped": float(dropped), "num_decisions": float(result.num_decisions)}
    end_s = float(result.jobs["completion_s"].max()) if len(result.jobs) else 0.0
    busy = utilization_by_type(result.utilization, end_s) if end_s > 0 else pd.Series(dtype=float)
    for worker_type, capacity in sorted(config.cluster.capacity().items()):
        usage[f"capacity_gpus:{worker_type}"] = float(capacity)
        share = float(busy.get(worker_type, 0.0))
        usage[f"gpu_h:{worker_type}"] = share * capacity * end_s / 3600.0
    return usage

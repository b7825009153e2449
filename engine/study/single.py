"""Running one spec: resolve the trace (independent of the cluster), fit it, simulate, summarise.

:func:`run_spec` is what every executor runs, in this process, a worker process or a Ray
worker. The same spec gives the same :class:`RunResult`, bit for bit, wherever it runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import pandas as pd

from engine.config import LoadConfig, ScenarioConfig, TraceSpec
from engine.errors import TraceError
from engine.metrics import utilization_by_type
from engine.results import SimulationResult
from engine.scenario import run_matrix, scenario_matrix, validate_config
from engine.simulator import simulate
from engine.study.spec import RunSpec
from engine.study.traces import TraceStore, trace_payload
from engine.throughput import load_matrix
from engine.traces import TraceLoad, draw_trace, fit_trace

Payload = tuple[str, bytes] | None  # (file name, bytes) of the trace, None for synthetic


@dataclass(frozen=True)
class RunResult:
    """One finished run.

    Attributes:
        spec: what ran.
        summary: metric -> value: the KPIs of :func:`engine.metrics.summarize`, plus
            ``jobs_dropped`` (jobs larger than the cluster, dropped), ``num_decisions``, and per
            worker type ``gpu_h:<type>`` (allocated GPU-hours over the run) and
            ``capacity_gpus:<type>`` (the GPU mix), from which `engine.study.cost` prices it.
        jobs: the per-job table (`engine.results`).
        segments, utilization: only with ``spec.record == "full"``, else None.
        notes: trace notes (assumptions, load, drops).
        decision_time_s: wall time inside the policy (not part of the summary: it varies).
    """

    spec: RunSpec
    summary: dict[str, float]
    jobs: pd.DataFrame
    segments: pd.DataFrame | None = None
    utilization: pd.DataFrame | None = None
    notes: tuple[str, ...] = ()
    decision_time_s: float = 0.0


def run_spec(
    spec: RunSpec, store: TraceStore | None = None, payload: Payload | None = None
) -> RunResult:
    """Simulates one spec.

    Args:
        store: where an ``"upload:"`` trace is found by ``spec.trace_hash``.
        payload: the trace's (file name, bytes) when the caller already has them (executors
            ship them with the task); otherwise read from ``store`` or the sample / path.

    Raises:
        ConfigError, TraceError, OversizedJobsError, EngineError: as for a single scenario.
    """
    config = spec.scenario
    matrix = scenario_matrix(config)
    validate_config(config, matrix)
    if payload is None and config.trace.source != "synthetic":
        _, payload = trace_payload(config, store, spec.trace_hash)
    drawn = _drawn_trace(spec, payload)
    trace = fit_trace(drawn, config.cluster, matrix, config.trace.drop_oversized)
    matrix = run_matrix(config, trace)
    full = spec.record == "full"
    result = simulate(  # the decision log only where the run's tables are kept
        trace.jobs, config, config.policies[0], matrix,
        record_segments=full, decision_log=None if full else False,
    )  # fmt: skip
    return RunResult(
        spec,
        _summary(result, len(trace.dropped_job_ids), config),
        result.jobs,
        result.segments if full else None,
        result.utilization if full else None,
        trace.notes,
        result.decision_time_s,
    )


def _summary(result: SimulationResult, dropped: int, config: ScenarioConfig) -> dict[str, float]:
    summary = dict(result.summary)
    summary["jobs_dropped"] = float(dropped)
    summary["num_decisions"] = float(result.num_decisions)
    end_s = float(result.jobs["completion_s"].max()) if len(result.jobs) else 0.0
    utilization = result.utilization
    busy = utilization_by_type(utilization, end_s) if end_s > 0 else pd.Series(dtype=float)
    for worker_type, capacity in sorted(config.cluster.capacity().items()):
        summary[f"capacity_gpus:{worker_type}"] = float(capacity)
        share = float(busy.get(worker_type, 0.0))
        summary[f"gpu_h:{worker_type}"] = share * capacity * end_s / 3600.0
    return summary


def _drawn_trace(spec: RunSpec, payload: Payload) -> TraceLoad:
    """The cluster-independent trace, drawn with the base matrix (no extra types) and cached
    per process by content hash (a sweep draws each (trace, seed, load) once per worker)."""
    config = spec.scenario
    if config.trace.source != "synthetic" and payload is None:
        raise TraceError("no trace bytes for this run", file=config.trace.source)
    if spec.trace_hash or config.trace.source == "synthetic":
        return _cached_draw(
            spec.trace_hash, config.trace, config.load, config.effective_trace_seed,
            config.throughputs, payload,
        )  # fmt: skip
    return draw_trace(
        config.trace, load_matrix(config.throughputs), config.effective_trace_seed,
        load=config.load, raw=payload,
    )  # fmt: skip


@lru_cache(maxsize=8)
def _cached_draw(
    trace_hash: str,
    trace: TraceSpec,
    load: LoadConfig,
    seed: int,
    throughputs: str,
    payload: Payload,
) -> TraceLoad:
    return draw_trace(trace, load_matrix(throughputs), seed, load=load, raw=payload)

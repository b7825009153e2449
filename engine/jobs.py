"""Building the per-job simulation state from a jobs table, and each job's isolated run time.

Everything here is computed once per run, before the event loop starts.
"""

from __future__ import annotations

import gc
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pandas as pd

from engine.config import NetworkConfig
from engine.state import JobState
from engine.step_time.network import network_sensitivity
from engine.step_time.throughput import ThroughputMatrix


def job_states(
    jobs: pd.DataFrame, matrix: ThroughputMatrix, capacity: dict[str, int], net: NetworkConfig
) -> list[JobState]:
    """One JobState per row of a validated jobs table, in arrival order (ties: job id).

    Precomputes each job's measured steps/s per worker type at its scale factor, its gradient
    size, its reference speeds and its network sensitivity (on the fastest worker type whose
    GPUs can hold it, see :func:`engine.step_time.network.network_sensitivity`). The jobs of one
    (job type, scale factor) share one ``steps_per_s`` dict and one job type string, read-only
    (a copy per job was ~300 of the ~730 bytes each job state held on 1,000,000 jobs, issue 37).
    """
    ordered = jobs if _in_order(jobs) else jobs.sort_values(["arrival_s", "job_id"], kind="stable")
    type_codes, job_types = pd.factorize(ordered["job_type"].astype(str))
    columns = zip(
        ordered["job_id"].astype(str).tolist(),
        ordered["arrival_s"].astype(float).tolist(),
        np.asarray(job_types, dtype=object)[type_codes].tolist(),  # one string per job type
        ordered["scale_factor"].astype(int).tolist(),
        ordered["total_steps"].astype(float).tolist(),
        ordered["priority_weight"].astype(float).tolist(),
        strict=True,
    )
    states: list[JobState] = []
    _fill_states(states, columns, matrix, capacity, net)
    return states


def _in_order(jobs: pd.DataFrame) -> bool:
    """Whether ``jobs`` is sorted by arrival, then job id (a validated table is: its sort,
    of a million string ids, is then skipped); ties compared by pyarrow, not one by one."""
    arrival = jobs["arrival_s"].to_numpy(dtype=float)
    if not bool((arrival[1:] >= arrival[:-1]).all()):
        return False
    tied = np.flatnonzero(arrival[1:] == arrival[:-1])
    ids = jobs["job_id"].astype(str)
    first, second = ids.iloc[tied].reset_index(drop=True), ids.iloc[tied + 1].reset_index(drop=True)
    return bool((first < second).all())


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pauses Python's cyclic garbage collector while a run builds its job states, runs, and
    tabulates its rows. The engine's objects hold no reference cycles, yet every few hundred
    allocations trigger a collection that walks the young objects, and now and then all of them
    (measured on the full Philly trace: more than half of the time of building 82,247 job states;
    1.6 s of a 42 s Tiresias LAS run, 0.2 s of a 4 s FIFO run; peak memory unchanged).
    Reference counting still frees memory. Pauses are counted process-wide: runs in several
    threads of one server (the dashboard runs a single policy in its own thread) keep the
    collector off until the last of them ends, and the state before the first is restored."""
    global _pauses, _enabled_before
    with _pause_lock:
        if _pauses == 0:
            _enabled_before = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pauses -= 1
            if _pauses == 0 and _enabled_before:
                gc.enable()


_pause_lock = threading.Lock()
_pauses = 0  # runs inside gc_paused() now, in any thread
_enabled_before = True


def _fill_states(
    states: list[JobState],
    columns: Iterator[tuple[str, float, str, int, float, float]],
    matrix: ThroughputMatrix,
    capacity: dict[str, int],
    net: NetworkConfig,
) -> None:
    worker_types = list(capacity)
    ref_speeds: dict[str, dict[str, float]] = {}
    per_kind: dict[tuple[str, int], tuple[str, dict[str, float], float, float]] = {}
    for i, (job_id, arrival_s, job_type, scale_factor, steps, weight) in enumerate(columns):
        kind = per_kind.get((job_type, scale_factor))
        if kind is None:  # computed once per (job type, scale factor): a trace has few
            kind = per_kind[job_type, scale_factor] = (
                job_type,
                *_kind(matrix, capacity, net, job_type, scale_factor),
            )
        kind_type, rates, grad, sensitivity = kind
        if job_type not in ref_speeds:
            ref_speeds[job_type] = reference_speeds(matrix, job_type, worker_types)
        states.append(
            JobState(
                i, job_id, arrival_s, kind_type, scale_factor, steps, weight, rates, grad,
                ref_speeds[job_type], sensitivity,
            )
        )  # fmt: skip


def _kind(
    matrix: ThroughputMatrix,
    capacity: dict[str, int],
    net: NetworkConfig,
    job_type: str,
    scale_factor: int,
) -> tuple[dict[str, float], float, float]:
    """Steps/s per worker type, gradient bytes and network sensitivity of a job kind."""
    rates = {wt: matrix.steps_per_s(job_type, wt, scale_factor) for wt in capacity}
    grad = matrix.gradient_bytes(job_type)
    holdable = [v for wt, v in rates.items() if capacity[wt] >= scale_factor]
    sensitivity = network_sensitivity(max(holdable, default=0.0), scale_factor, grad, net)
    return rates, grad, sensitivity


def reference_speeds(
    matrix: ThroughputMatrix, job_type: str, worker_types: list[str]
) -> dict[str, float]:
    """One-GPU speed of ``job_type`` on each worker type relative to the slowest that fits it
    (Hare's reference-GPU-seconds, Chen et al., TCC 2024); 0 where it does not fit."""
    one_gpu = {wt: matrix.steps_per_s(job_type, wt, 1) for wt in worker_types}
    slowest = min((v for v in one_gpu.values() if v > 0), default=0.0)
    return {wt: v / slowest if slowest > 0 else 0.0 for wt, v in one_gpu.items()}


def isolated_run_s(jobs: list[JobState], capacity: dict[str, int]) -> np.ndarray:
    """Run time on a capacity-weighted mix of the cluster (see :mod:`engine.metrics`)."""
    total = sum(capacity.values())
    scale_factor = np.array([job.scale_factor for job in jobs])
    rate = np.zeros(len(jobs))
    for wt, gpus in capacity.items():  # the same sum, term by term in the same order
        steps_per_s = np.array([job.steps_per_s[wt] for job in jobs], dtype=float)
        rate += np.where(gpus >= scale_factor, gpus / total * steps_per_s, 0.0)
    total_steps = np.array([job.total_steps for job in jobs], dtype=float)
    out = np.full(len(jobs), math.nan)
    np.divide(total_steps, rate, out=out, where=rate > 0)
    index = np.array([job.index for job in jobs], dtype=np.intp)
    result = np.empty(len(jobs))
    result[index] = out
    return result

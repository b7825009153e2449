"""Building the per-job simulation state from a jobs table, and each job's isolated run time.

Everything here is computed once per run, before the event loop starts.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from engine.config import NetworkConfig
from engine.network import network_sensitivity
from engine.state import JobState
from engine.throughput import ThroughputMatrix, gradient_bytes


def job_states(
    jobs: pd.DataFrame, matrix: ThroughputMatrix, capacity: dict[str, int], net: NetworkConfig
) -> list[JobState]:
    """One JobState per row of a validated jobs table, in arrival order (ties: job id).

    Precomputes each job's measured steps/s per worker type at its scale factor, its gradient
    size, its reference speeds and its network sensitivity (on the fastest worker type whose
    GPUs can hold it, see :func:`engine.network.network_sensitivity`).
    """
    worker_types = list(capacity)
    ordered = jobs.sort_values(["arrival_s", "job_id"], kind="stable")
    columns = zip(
        ordered["job_id"].astype(str).tolist(),
        ordered["arrival_s"].astype(float).tolist(),
        ordered["job_type"].astype(str).tolist(),
        ordered["scale_factor"].astype(int).tolist(),
        ordered["total_steps"].astype(float).tolist(),
        ordered["priority_weight"].astype(float).tolist(),
        strict=True,
    )
    states = []
    ref_speeds: dict[str, dict[str, float]] = {}
    per_kind: dict[tuple[str, int], tuple[dict[str, float], float, float]] = {}
    for i, (job_id, arrival_s, job_type, scale_factor, steps, weight) in enumerate(columns):
        kind = per_kind.get((job_type, scale_factor))
        if kind is None:  # computed once per (job type, scale factor): a trace has few
            kind = per_kind[job_type, scale_factor] = _kind(
                matrix, capacity, net, job_type, scale_factor
            )
        rates, grad, sensitivity = kind
        if job_type not in ref_speeds:
            ref_speeds[job_type] = reference_speeds(matrix, job_type, worker_types)
        states.append(
            JobState(
                i, job_id, arrival_s, job_type, scale_factor, steps, weight, dict(rates), grad,
                ref_speeds[job_type], sensitivity,
            )
        )  # fmt: skip
    return states


def _kind(
    matrix: ThroughputMatrix,
    capacity: dict[str, int],
    net: NetworkConfig,
    job_type: str,
    scale_factor: int,
) -> tuple[dict[str, float], float, float]:
    """Steps/s per worker type, gradient bytes and network sensitivity of a job kind."""
    rates = {wt: matrix.steps_per_s(job_type, wt, scale_factor) for wt in capacity}
    grad = gradient_bytes(job_type)
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
    out = np.empty(len(jobs))
    for job in jobs:
        rate = sum(
            capacity[wt] / total * job.steps_per_s[wt]
            for wt in capacity
            if capacity[wt] >= job.scale_factor
        )
        out[job.index] = job.total_steps / rate if rate > 0 else math.nan
    return out

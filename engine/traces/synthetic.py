"""Synthetic workloads: Poisson arrivals with Gavel's Philly-derived job mix.

Source: Narayanan et al., "Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning
Workloads", OSDI 2020, Section 7 and ``scheduler/utils.py`` (``_generate_scale_factor``,
``_generate_duration``, ``generate_job``) of https://github.com/stanford-futuredata/gavel (MIT).
We read the numbers below in that code:

- job type uniform over the job table, redrawn until it fits the drawn scale factor (Gavel
  redraws until the model is "distributed"; here: the matrix measures it at that scale factor on
  the reference type, or, if no job type is measured there, it merely runs there);
- scale factor 1 w.p. 0.70, 2 w.p. 0.10, 4 w.p. 0.15, 8 w.p. 0.05;
- duration ``60 * 10**x`` s with x ~ U[1.5, 3] w.p. 0.8 and x ~ U[3, 4] w.p. 0.2;
- ``total_steps = duration * steps_per_s(job_type, "v100", scale_factor)``.

Arrivals: the first job at 0 s, then exponential inter-arrival times of mean
``3600 / jobs_per_hour`` s.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from engine.config import SyntheticSpec
from engine.errors import ConfigError, TraceError
from engine.step_time.throughput import ThroughputMatrix
from engine.traces.rules import steps_from_duration
from engine.traces.validate import build_jobs, numbered_ids

SCALE_FACTORS = np.array([1, 2, 4, 8])
SCALE_FACTOR_PROBS = np.array([0.70, 0.10, 0.15, 0.05])
LONG_JOB_PROB = 0.2
SHORT_LOG10_MIN = (1.5, 3.0)  # x range of 10**x minutes, short jobs
LONG_LOG10_MIN = (3.0, 4.0)  # x range, long jobs
REFERENCE_WORKER_TYPE = "v100"


def generate_synthetic(
    spec: SyntheticSpec,
    matrix: ThroughputMatrix,
    rng: np.random.Generator,
    reference_worker_type: str = REFERENCE_WORKER_TYPE,
) -> pd.DataFrame:
    """Generates ``spec.num_jobs`` jobs (see the module docstring for the distributions).

    Returns:
        The canonical jobs table; job ids ``synth-<n>``, ``duration_s`` the drawn duration (s).

    Raises:
        ConfigError: for a non-positive job count or arrival rate.
        TraceError: if the reference worker type runs no job type of the matrix.
    """
    check_job_count(spec)
    n = spec.num_jobs
    gaps_s = rng.exponential(3600.0 / spec.jobs_per_hour, size=n - 1)
    arrival_s = np.concatenate([[0.0], np.cumsum(gaps_s)])
    scale_factor = rng.choice(SCALE_FACTORS, size=n, p=SCALE_FACTOR_PROBS)
    long_job = rng.random(n) < LONG_JOB_PROB
    log10_min = np.where(
        long_job, rng.uniform(*LONG_LOG10_MIN, size=n), rng.uniform(*SHORT_LOG10_MIN, size=n)
    )
    duration_s = 60.0 * 10.0**log10_min
    job_type = _draw_job_types(matrix, reference_worker_type, scale_factor, rng)
    return synthetic_jobs(
        "synth", matrix, reference_worker_type, arrival_s, job_type, scale_factor, duration_s
    )


def check_job_count(spec: SyntheticSpec) -> None:
    """Raises ConfigError for a non-positive job count or arrival rate (every generator)."""
    if spec.num_jobs < 1 or not spec.jobs_per_hour > 0:
        raise ConfigError("trace.synthetic: num_jobs must be >= 1 and jobs_per_hour > 0")


def synthetic_jobs(
    prefix: str,
    matrix: ThroughputMatrix,
    reference_worker_type: str,
    arrival_s: np.ndarray,
    job_type: Sequence[str],
    scale_factor: Sequence[int] | np.ndarray,
    duration_s: Sequence[float] | np.ndarray,
) -> pd.DataFrame:
    """The canonical jobs table of n generated jobs (per-job sequences in draw order).

    Job ids are ``<prefix>-<n>``, zero-padded to n's width; a job's work is its drawn duration
    on ``reference_worker_type`` at its size, ``total_steps = duration_s x steps_per_s(job type,
    reference, scale factor)`` (Gavel's synthetic rule, ``generate_job``; the trace importers'
    rule 3, :func:`engine.traces.rules.steps_from_duration`), so the job runs its drawn duration
    alone on that type.

    Raises:
        TraceError: naming the job's row, for a job type that does not run at its size on the
            reference.
    """
    n = len(job_type)
    scale_factor = np.asarray(scale_factor, dtype=np.int64)
    duration_s = np.asarray(duration_s, dtype=np.float64)
    total_steps = steps_from_duration(
        job_type,
        scale_factor,
        duration_s,
        matrix,
        reference_worker_type,
        "synthetic",
        "job_type",
        setting="reference GPU type or job type of the mix",
    )
    return build_jobs(
        "synthetic",
        matrix,
        job_id=numbered_ids(prefix, n),
        arrival_s=arrival_s,
        job_type=job_type,
        scale_factor=scale_factor,
        total_steps=total_steps,
        duration_s=duration_s,
    )


def candidate_job_types(matrix: ThroughputMatrix, worker_type: str, scale_factor: int) -> list[str]:
    """Job types a synthetic job of ``scale_factor`` GPUs may have (see the module docstring)."""
    measured = [
        jt for jt in matrix.job_types
        if matrix.table[jt].get(worker_type, {}).get(scale_factor, 0.0) > 0
    ]  # fmt: skip
    if measured:
        return measured
    return [jt for jt in matrix.job_types if matrix.steps_per_s(jt, worker_type, scale_factor) > 0]


def _draw_job_types(
    matrix: ThroughputMatrix,
    worker_type: str,
    scale_factors: np.ndarray,
    rng: np.random.Generator,
) -> list[str]:
    candidates = {sf: candidate_job_types(matrix, worker_type, sf) for sf in SCALE_FACTORS.tolist()}
    if not all(candidates.values()):
        raise TraceError(f"no job type of the throughput matrix runs on {worker_type!r}")
    u = rng.random(len(scale_factors))
    return [
        candidates[int(sf)][int(draw * len(candidates[int(sf)]))]
        for sf, draw in zip(scale_factors, u, strict=True)
    ]

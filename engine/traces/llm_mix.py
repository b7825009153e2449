"""The LLM-era synthetic workload: stated, editable job classes and a daily arrival cycle.

Every number is ours [R] and editable in ``TraceSpec.synthetic.llm`` (:class:`LLMMixSpec`); the
defaults (:data:`engine.config.DEFAULT_LLM_CLASSES`) describe a 2026 training cluster as the
issue states it: many small jobs on 1-8 GPUs, fine-tunes on 8-64, a few pre-training runs on
hundreds of GPUs. Per job, with the scenario's seeded trace generator:

- **arrivals**: a Poisson process whose rate follows the day,
  ``jobs_per_hour x (1 + a cos(2 pi (t - peak) / 24 h))`` (``a = daily_amplitude``, t = 0 is
  midnight), drawn by thinning (Lewis and Shedler, 1979);
- **class**: by its share; **size**: a power of two in ``[min_gpus, max_gpus]``, each equally
  likely; **job type**: uniform among the class's types that run on the reference GPU type;
- **work**: a duration log-uniform in ``[min_hours, max_hours]`` on the reference GPU type at
  that size, so ``total_steps = duration_s x steps_per_s(job type, reference, size)`` (Gavel's
  synthetic rule); with the MLPerf matrix a step is one run of the benchmark.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from engine.config import JobClass, SyntheticSpec
from engine.errors import ConfigError
from engine.step_time.throughput import ThroughputMatrix
from engine.traces.synthetic import check_job_count, synthetic_jobs

DAY_S = 86_400.0


def generate_llm_mix(
    spec: SyntheticSpec, matrix: ThroughputMatrix, rng: np.random.Generator
) -> pd.DataFrame:
    """``spec.num_jobs`` jobs of the LLM-era mix (see the module docstring).

    Returns:
        The canonical jobs table; job ids ``llm-<n>``, ``duration_s`` the drawn duration on the
        reference GPU type (s).

    Raises:
        ConfigError: naming the class and field of a bad value, or a class none of whose job
            types runs on the reference GPU type.
    """
    mix = spec.llm
    check_job_count(spec)
    if not 0 <= mix.daily_amplitude <= 1:
        raise ConfigError("trace.synthetic.llm.daily_amplitude must be between 0 and 1")
    reference = matrix.canonical(mix.reference_worker_type)
    if not matrix.has_worker_type(reference):
        raise ConfigError(
            f"trace.synthetic.llm.reference_worker_type {mix.reference_worker_type!r} is not a "
            f"GPU type of the {matrix.name} throughput matrix"
        )
    types = [_class_job_types(c, i, matrix, reference) for i, c in enumerate(mix.classes, 1)]
    n = spec.num_jobs
    arrival_s = _arrivals(n, spec.jobs_per_hour, mix.daily_amplitude, mix.peak_hour, rng)
    shares = np.array([c.share for c in mix.classes], dtype=float)
    if not shares.sum() > 0:
        raise ConfigError("trace.synthetic.llm: the classes' shares must sum to more than 0")
    which = rng.choice(len(mix.classes), size=n, p=shares / shares.sum())
    u_size, u_type, u_hours = rng.random(n), rng.random(n), rng.random(n)
    job_type, scale_factor, duration_s = [], [], []
    for k, i in enumerate(which.tolist()):
        job_class = mix.classes[i]
        sizes = _sizes(job_class)
        lo, hi = math.log(job_class.min_hours), math.log(job_class.max_hours)
        job_type.append(types[i][int(u_type[k] * len(types[i]))])
        scale_factor.append(sizes[int(u_size[k] * len(sizes))])
        duration_s.append(3600.0 * math.exp(lo + (hi - lo) * u_hours[k]))
    return synthetic_jobs("llm", matrix, reference, arrival_s, job_type, scale_factor, duration_s)


def llm_mix_note(spec: SyntheticSpec) -> str:
    """The trace note stating the mix, e.g. "LLM-era workload: 200 jobs, 3 jobs/h on average
    (daily cycle +-50%, peak 14:00); small 60% (1-8 GPUs, 0.25-4 h), ..."."""
    mix = spec.llm
    total = sum(c.share for c in mix.classes) or 1.0
    classes = "; ".join(
        f"{c.name} {100 * c.share / total:.0f}% ({c.min_gpus}-{c.max_gpus} GPUs, "
        f"{c.min_hours:g}-{c.max_hours:g} h: {c.job_types})"
        for c in mix.classes
    )
    return (
        f"LLM-era workload: {spec.num_jobs} jobs, {spec.jobs_per_hour:g} jobs/h on average "
        f"(daily cycle +-{100 * mix.daily_amplitude:.0f}%, peak {mix.peak_hour:g}:00); {classes}; "
        f"durations on {mix.reference_worker_type}"
    )


def _arrivals(
    n: int, jobs_per_hour: float, amplitude: float, peak_hour: float, rng: np.random.Generator
) -> np.ndarray:
    """n arrival times (s) of the daily-cycle Poisson process, by thinning, the first at its
    draw (not shifted to 0)."""
    peak_rate = jobs_per_hour / 3600.0 * (1 + amplitude)
    out: list[float] = []
    t = 0.0
    while len(out) < n:
        gaps = rng.exponential(1 / peak_rate, size=2 * (n - len(out)) + 8)
        keep = rng.random(len(gaps))
        for gap, u in zip(gaps.tolist(), keep.tolist(), strict=True):
            t += gap
            phase = 2 * math.pi * (t - peak_hour * 3600.0) / DAY_S
            if u * (1 + amplitude) <= 1 + amplitude * math.cos(phase):
                out.append(t)
                if len(out) == n:
                    break
    return np.array(out)


def _sizes(job_class: JobClass) -> list[int]:
    sizes = [2**k for k in range(0, 20) if job_class.min_gpus <= 2**k <= job_class.max_gpus]
    return sizes or [job_class.min_gpus]


def _class_job_types(
    job_class: JobClass, i: int, matrix: ThroughputMatrix, reference: str
) -> list[str]:
    where = f"trace.synthetic.llm.classes[{i}] ({job_class.name!r})"
    if not job_class.share >= 0 or not 1 <= job_class.min_gpus <= job_class.max_gpus:
        raise ConfigError(f"{where}: share must be >= 0 and 1 <= min_gpus <= max_gpus")
    if not 0 < job_class.min_hours <= job_class.max_hours:
        raise ConfigError(f"{where}: hours must satisfy 0 < min_hours <= max_hours")
    names = [matrix.canonical(t.strip()) for t in job_class.job_types.split(",") if t.strip()]
    unknown = [t for t in names if not matrix.has_job_type(t)]
    if unknown:
        raise ConfigError(
            f"{where}: job types {unknown} are not in the {matrix.name} throughput matrix"
        )
    runnable = [t for t in names if matrix.fits(t, reference)]
    if not runnable:
        raise ConfigError(f"{where}: none of {names} has a throughput on {reference}")
    return runnable

"""What sharing GPUs did to a run (issue 35, :mod:`engine.sharing`): present only when some job
ran in a shared group, so a run without sharing has none of these columns or metrics.

- slowdown from sharing, per job (jobs column ``slowdown_from_sharing``, a ratio >= 1 when a
  group runs each job slower than alone): the wall time the job ran in shared groups over the
  time the same progress takes at its exclusive speed on the same GPUs, i.e. its exclusive rate
  over its shared rate, time-weighted over its shared segments,
  ``sum(held_s) / sum(held_s * share_speed)``; ``share_speed`` is the job's own iteration time
  over its group's (Muri, Zhao et al., SIGCOMM 2022, every member advances one iteration per
  group iteration). NaN for a job that never shared [R: our definition; a JCT-based one would
  need a second run without sharing].
- GPU-hours saved by sharing, per run (``gpu_hours_saved_sharing``): the GPU-hours the jobs ran
  on (each job's GPUs times its time on them, ``attained_service_gpu_s``: a shared GPU counts
  once per job on it) less the GPU-hours allocated (the utilization table: once per GPU) [R:
  the GPUs the guests would have held had each run alone at the same times].
- mean slowdown from sharing (``slowdown_from_sharing_mean``) over the jobs that shared.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from engine.state import JobState

SHARING_COLUMN = "slowdown_from_sharing"
HOST_COLUMN = "host_job"
"""The segments table's column, with sharing: the job whose GPUs a guest's segment ran on
("" for a segment on the job's own GPUs), so a view can draw both jobs on the same GPUs."""
SHARING_METRICS = ("gpu_hours_saved_sharing", "slowdown_from_sharing_mean", "jobs_shared")
"""The summary metrics of a run in which some job shared GPUs; absent otherwise."""


def slowdown_from_sharing(
    num_jobs: int, shared_s: dict[int, float], shared_exclusive_s: dict[int, float]
) -> np.ndarray:
    """Each job's slowdown from sharing (module docstring), shape (num_jobs,), a ratio; NaN
    for a job that never shared (1.0 for one that shared no time, e.g. preempted at once).

    Args:
        num_jobs: jobs of the run, indexed 0..num_jobs-1.
        shared_s: by job index, seconds it ran in shared groups.
        shared_exclusive_s: by job index, the seconds the same progress takes alone
            (sum of ``held_s * share_speed``).
    """
    slowdown = np.full(num_jobs, np.nan)
    for index, held_s in shared_s.items():
        exclusive_s = shared_exclusive_s[index]
        slowdown[index] = held_s / exclusive_s if exclusive_s > 0.0 else 1.0
    return slowdown


def sharing_summary(jobs: pd.DataFrame, allocated_gpu_s: float) -> dict[str, float]:
    """The run's :data:`SHARING_METRICS` from its jobs table (with ``slowdown_from_sharing``)
    and its allocated GPU-seconds (the utilization table's integral to the last completion)."""
    slowdown = jobs[SHARING_COLUMN].to_numpy(dtype=float)
    shared = slowdown[~np.isnan(slowdown)]
    ran_gpu_s = float(np.nansum(jobs["attained_service_gpu_s"].to_numpy(dtype=float)))
    return {
        "gpu_hours_saved_sharing": (ran_gpu_s - allocated_gpu_s) / 3600,
        "slowdown_from_sharing_mean": float(shared.mean()) if shared.size else 1.0,
        "jobs_shared": float(shared.size),
    }


def host_jobs(
    segments: pd.DataFrame, jobs: list[JobState], hosts: dict[tuple[int, float], int]
) -> list[str]:
    """Per segments row, the id of the job whose GPUs it ran on as a guest, else "".

    Args:
        segments: the run's segments table (job_id, start_s).
        jobs: the run's jobs by index.
        hosts: (job index, segment start_s) -> the host's job index, from the recorder.
    """
    index_of = {job.job_id: job.index for job in jobs}
    return [
        jobs[hosts[key]].job_id if (key := (index_of[job], start_s)) in hosts else ""
        for job, start_s in zip(segments["job_id"].astype(str), segments["start_s"], strict=True)
    ]

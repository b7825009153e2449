"""The order in which a scenario's policies go to the worker pool: the longest run first.

A pool with fewer workers than policies finishes soonest when the longest runs start first
(LPT, "longest processing time first": within 4/3 of the best order; R. L. Graham, "Bounds on
multiprocessing timing anomalies", SIAM J. Appl. Math. 17(2), 1969). Started in the scenario's
order, a slow policy listed last (``hadar`` after FIFO, LAS and Gavel max-min) waits for a free
worker and finishes last. The order changes when results arrive, never what they are: every
run is independent (:mod:`dashboard.parallel_run`).

A run's length is guessed from the policy's seconds per job: the last one seen in this server
process, else :data:`SAMPLE_S_PER_JOB`.
"""

from __future__ import annotations

import statistics

SAMPLE_S_PER_JOB = {
    name: seconds / 2000
    for name, seconds in {
        "consolidation_none": 2.14, "consolidation_strict": 1.21, "consolidation_tiresias": 2.02,
        "dally": 1.58, "doubling": 2.92, "fifo": 0.16, "gavel_fifo": 0.81,
        "gavel_fifo_perf": 0.69, "gavel_ftf": 1.65, "gavel_ftf_agnostic": 2.30,
        "gavel_maxmin": 1.23, "gavel_maxmin_agnostic": 1.86, "gavel_min_total_duration": 1.63,
        "gavel_min_total_duration_agnostic": 2.70, "hadar": 1.87, "hadare": 3.76,
        "hare_hlas": 2.19, "hare_offline": 2.85, "las": 0.42, "one_gpu_per_job": 0.15,
        "sampling_placement": 15.52, "sampling_placement_equal_split": 7.34,
        "sampling_placement_exact": 15.31, "srtf": 1.41,
    }.items()
}  # fmt: skip
"""Seconds per job of each registered policy: ``benchmarks/bench_select_all.py`` on the 2,000-job
Philly sample, default scenario, on the project's 2-core machine (November 2026). Only their
order matters; a policy not listed is taken to cost the median."""

_seen_s_per_job: dict[str, float] = {}


def estimate_s(policy: str, num_jobs: int) -> float:
    """Guessed seconds to simulate ``policy`` on ``num_jobs`` jobs (for ordering only)."""
    per_job = _seen_s_per_job.get(policy) or SAMPLE_S_PER_JOB.get(policy)
    if per_job is None:
        per_job = statistics.median(SAMPLE_S_PER_JOB.values())
    return per_job * num_jobs


def remember(policy: str, elapsed_s: float, num_jobs: int) -> None:
    """Records a finished run's wall time, the estimate for the policy's next run."""
    if elapsed_s > 0 and num_jobs > 0:
        _seen_s_per_job[policy] = elapsed_s / num_jobs


def longest_first(policies: list[str], num_jobs: int) -> list[int]:
    """Indices of ``policies`` by guessed run time, longest first (ties keep their order)."""
    guesses = [estimate_s(name, num_jobs) for name in policies]
    return sorted(range(len(policies)), key=lambda i: -guesses[i])

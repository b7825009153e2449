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
        "consolidation_none": 1.40, "consolidation_strict": 1.13, "consolidation_tiresias": 1.24,
        "dally": 1.47, "doubling": 2.45, "fifo": 0.14, "gavel_fifo": 0.66,
        "gavel_fifo_perf": 0.55, "gavel_ftf": 1.30, "gavel_ftf_agnostic": 1.86,
        "gavel_maxmin": 0.90, "gavel_maxmin_agnostic": 1.27, "gavel_min_total_duration": 1.25,
        "gavel_min_total_duration_agnostic": 2.31, "hadar": 1.13, "hadare": 2.54,
        "hare_hlas": 1.84, "hare_offline": 2.35, "las": 0.41, "one_gpu_per_job": 0.13,
        "sampling_placement": 6.06, "sampling_placement_equal_split": 3.04,
        "sampling_placement_exact": 6.01, "srtf": 0.97,
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

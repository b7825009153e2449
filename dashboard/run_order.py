"""The order in which a scenario's policies go to the worker pool: the longest run first.

A pool with fewer workers than policies finishes soonest when the longest runs start first
(LPT, "longest processing time first": within 4/3 of the best order; R. L. Graham, "Bounds on
multiprocessing timing anomalies", SIAM J. Appl. Math. 17(2), 1969). Started in the scenario's
order, a slow policy listed last (``hadar`` after FIFO, LAS and Gavel max-min) waits for a free
worker and finishes last. The order changes when results arrive, never what they are: every
run is independent (:mod:`dashboard.parallel_run`).

A run's length is guessed from the policy's seconds per job: the last one seen in this server
process, else the policy's own measured figure (``Policy.cost_s_per_job``: the 2,000-job Philly
sample, ``benchmarks/bench_select_all.py``), else the median of those figures. Only their order
matters.
"""

from __future__ import annotations

import functools
import statistics

_seen_s_per_job: dict[str, float] = {}


def estimate_s(policy: str, num_jobs: int) -> float:
    """Guessed seconds to simulate ``policy`` on ``num_jobs`` jobs (for ordering only)."""
    per_job = _seen_s_per_job.get(policy) or _measured_s_per_job().get(policy)
    if per_job is None:
        per_job = statistics.median(_measured_s_per_job().values())
    return per_job * num_jobs


@functools.cache
def _measured_s_per_job() -> dict[str, float]:
    """Each registered policy's ``cost_s_per_job`` where it states one."""
    from engine.policies import get_policy, list_policies

    costs = {name: get_policy(name).cost_s_per_job for name in list_policies()}
    return {name: cost for name, cost in costs.items() if cost > 0}


def remember(policy: str, elapsed_s: float, num_jobs: int) -> None:
    """Records a finished run's wall time, the estimate for the policy's next run."""
    if elapsed_s > 0 and num_jobs > 0:
        _seen_s_per_job[policy] = elapsed_s / num_jobs


def longest_first(policies: list[str], num_jobs: int) -> list[int]:
    """Indices of ``policies`` by guessed run time, longest first (ties keep their order)."""
    guesses = [estimate_s(name, num_jobs) for name in policies]
    return sorted(range(len(policies)), key=lambda i: -guesses[i])

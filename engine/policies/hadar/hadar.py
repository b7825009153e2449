"""Hadar: task-level heterogeneity-aware scheduling with primal-dual prices, decided per round.

Sultana, Xu, Yuan, Chen, Tzeng, "Hadar: Heterogeneity-Aware Optimization-Based Online Scheduling
for Deep Learning Cluster", IPDPS 2024, doi 10.1109/IPDPS57955.2024.00066 (the DOI is not in
shared/seeds, whose abstract is the extended version's; it is the publisher's DOI as indexed by
public catalogue pages). Extended with HadarE in Sultana, Pakka, Xu, Yuan, Chen, Tzeng,
arXiv 2503.10918, 2025 (see :mod:`engine.policies.hadar.hadare`).

[P] Hadar characterizes task-level heterogeneity in an optimization problem, decides in space and
time (which GPUs, which rounds), runs online, and is solved by a primal-dual framework with a
dual subroutine. Every rule below is a reconstruction [R] (shared/docs/schedulers.md, section D):

- [R] Utility: a job is worth its priority weight ``w``, earned as it completes; a round earns
  ``w * min(remaining, rate * t) / remaining`` (the share of the remaining work the round does;
  ``remaining_work_utility=False``: the share of the total work). ``t`` is the round length, or
  ``T^2 / (T + restore)`` when the job ran before and its GPUs change (the restore eats part of
  the lease). Clairvoyant: Hadar's formulation knows each job's iterations.
- [R] Rate: ``g_k`` = the measured steps/s of the whole job at its scale factor on type ``k``
  (``job.steps_per_s``). A gang on mixed types runs at the slowest type's ``g_k``; with
  ``combine="proportional"`` at ``sum_k m_k g_k / scale_factor``. The estimate ignores what the
  placement adds to communication; the engine charges it (:mod:`engine.step_time.progress`). This is
  deliberately not the step-time estimator's placement-aware rate
  (:mod:`engine.step_time.estimator`,
  which HadarE uses): ``L``, ``U``, the density and the admission rule below are built on
  ``g_k``, and a spread or mixed placement rated lower than ``g_k`` can earn less than ``L``
  per GPU, so a job could go unadmitted on an idle cluster (tried: a 2-GPU job on one V100
  and one K80 never starts).
- [R] Types a job does not fit at its scale factor (``g_k = 0``) are never used for it.
- [R] Utility density: the job's utility per GPU on the best GPUs the empty cluster could give
  it. Jobs are taken in decreasing density (ties: arrival).
- [R] Prices: per node (one worker type each), ``p = L (U/L)^(used/capacity)`` per GPU, ``used``
  counting GPUs granted earlier in the same decision; ``L`` and ``U`` are the least and greatest
  utility per GPU that a (re)started whole-job gang would earn, over the active jobs and the
  worker types each fits. A job pays, for each node it uses, the node's price before its own
  grant.
- [R] Slots: for each worker type ``k`` taken as the slowest allowed, the cheapest
  ``scale_factor`` GPUs of types at least as fast (ties: the node with more free GPUs, then the
  faster type, then the lower node index); the choice with the largest utility minus price wins.
- [R] Admission: the job starts if its utility is at least the summed price (a tie admits, so
  the first job of a round always starts: the cluster is empty for it and its utility per GPU
  is at least ``L``).
- [R] Stability: a running job keeps its grant when those GPUs are still free in this decision
  and keeping nets at least as much as its best move (which pays the restore).
- [R] Rounds: the whole allocation at round boundaries; mid-round, only waiting jobs, on free
  GPUs, at the prices of the nodes' current use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from engine.errors import ConfigError
from engine.policies.base import POLICIES, Part, PolicyContext
from engine.policies.hadar.prices import Offer, PriceBook
from engine.policies.hadar.rounds import REMAINING_WORK_UTILITY_HELP, PricedRounds
from engine.state import JobState


class Hadar(PricedRounds):
    """Hadar: per round, jobs in utility-density order buy task slots on any GPU types at
    exponentially rising per-node prices, and start only if their utility covers the price.

    Sultana et al., IPDPS 2024 (doi 10.1109/IPDPS57955.2024.00066); clairvoyant, preemptive at
    round boundaries. The pricing, utility and slot rules are reconstructions (module docstring).
    """

    cost_s_per_job: ClassVar[float] = 0.000565  # run order: bench_select_all.py

    display_name = "Hadar"
    group = "Seed papers"
    honours_placement = False
    placement_note = "Its per-node dual prices choose the nodes of every task."

    @dataclass(frozen=True)
    class Params:
        combine: str = field(
            default="gang",
            metadata={
                "help": "Tasks on mixed GPU types: gang (slowest task's pace) or proportional "
                "(batch rebalanced by speed)",
                "choices": ("gang", "proportional"),
            },
        )
        remaining_work_utility: bool = field(
            default=True,
            metadata={"help": REMAINING_WORK_UTILITY_HELP},
        )
        keep_running: bool = field(
            default=True,
            metadata={"help": "Keep a running job's GPUs unless moving nets more utility"},
        )

    def __init__(self, params: Params, context: PolicyContext) -> None:
        super().__init__(params, context)
        if params.combine not in ("gang", "proportional"):
            raise ConfigError(
                f"hadar: combine must be gang or proportional, not {params.combine!r}"
            )
        self.combine = params.combine
        self._best_rates: dict[int, float] = {}
        self._thresholds: dict[int, list[float]] = {}

    def _rate(self, job: JobState, parts: Sequence[Part]) -> float:
        speeds = self.speeds(job)
        if self.combine == "proportional":
            return sum(speeds[p.worker_type] * p.num_gpus for p in parts) / job.scale_factor
        return min(speeds[p.worker_type] for p in parts)

    def _density(self, job: JobState) -> float:
        rate = self._best_rate(job)
        seconds = self._seconds(job, keep=job.placement is not None)
        return self._utility(job, rate, seconds) / job.scale_factor if rate > 0 else 0.0

    def _utility_bounds(self, job: JobState, seconds: float) -> tuple[float, float] | None:
        """As the base class, from the slowest and fastest ``g_k`` only: with a positive
        weight the utility is non-decreasing in the rate, and so are its rounded floats
        (:meth:`_utility`, inlined: this runs for every running job at every decision)."""
        levels = self._thresholds.get(job.index) or self._speed_levels(job)
        remaining = job.total_steps - job.steps_done
        remaining = remaining if remaining > 0.0 else 0.0  # job.remaining_steps
        basis = self.basis_steps(job, remaining)
        weight = job.priority_weight
        if not levels or basis <= 0 or weight <= 0:
            return super()._utility_bounds(job, seconds)
        sf = job.scale_factor
        slow, fast = levels[-1] * seconds, levels[0] * seconds  # min(remaining, ...) below
        least = weight * (slow if slow < remaining else remaining) / basis / sf
        if least <= 0:  # only the fastest types earn anything: every type, one by one
            return super()._utility_bounds(job, seconds)
        return least, weight * (fast if fast < remaining else remaining) / basis / sf

    def _speed_levels(self, job: JobState) -> list[float]:
        """The job's distinct ``g_k``, fastest first (cached: fixed for a job)."""
        levels = self._thresholds.get(job.index)
        if levels is None:
            levels = sorted(set(self.speeds(job).values()), reverse=True)
            self._thresholds[job.index] = levels
        return levels

    def _best_rate(self, job: JobState) -> float:
        """Rate on the fastest ``scale_factor`` GPUs of the whole cluster (cached)."""
        rate = self._best_rates.get(job.index)
        if rate is None:
            rate = self._best_rates[job.index] = self._best_rate_uncached(job)
        return rate

    def _best_rate_uncached(self, job: JobState) -> float:
        left, total, slowest = job.scale_factor, 0.0, 0.0
        for worker_type, g in sorted(self.speeds(job).items(), key=lambda kv: -kv[1]):
            take = min(left, self.capacity[worker_type])
            total, slowest, left = total + take * g, g, left - take
            if left == 0:
                return total / job.scale_factor if self.combine == "proportional" else slowest
        return 0.0

    def _best_offer(self, job: JobState, book: PriceBook, seconds: float) -> Offer | None:
        if self.combine == "proportional":
            return self._proportional_offer(job, book, seconds)
        return self._gang_offer(job, book, seconds)

    def _gang_offer(self, job: JobState, book: PriceBook, seconds: float) -> Offer | None:
        """For each type taken as the slowest allowed, the cheapest ``scale_factor`` GPUs of
        types at least as fast; the pick of greatest utility minus price (the first on ties)."""
        speeds = self.speeds(job)
        # the groups of the types the job fits, ranked once: cheapest, emptiest, fastest (ties:
        # type, first node); a slowest allowed type keeps the rows at least that fast, in order
        ranked = sorted(
            (price, -free, -speeds[wt], wt, members[0], members)
            for wt, free, price, members in book.levels()
            if wt in speeds
        )
        remaining = job.remaining_steps  # self._utility, inlined
        basis = self.basis_steps(job, remaining)
        weight = job.priority_weight
        best: tuple[list[tuple[int, str, int]], float, float] | None = None
        best_net = 0.0
        present = {row[2] for row in ranked}
        for threshold in self._speed_levels(job):
            if -threshold not in present:
                continue  # no nodes of this speed: the same pick as the faster threshold's
            pick = _first_gpus(job.scale_factor, ranked, -threshold)
            if pick is None:
                continue
            taken, rate, cost = pick
            utility = 0.0 if basis <= 0 else weight * min(remaining, rate * seconds) / basis
            if best is None or utility - cost > best_net:
                best, best_net = (taken, utility, cost), utility - cost
        if best is None:
            return None
        taken, utility, cost = best
        parts = tuple(Part(wt, gpus, node) for node, wt, gpus in sorted(taken))
        return Offer(parts, utility, cost)

    def _move_ceiling(self, job: JobState, book: PriceBook, seconds: float) -> float:
        """No offer runs faster than the job's fastest ``g_k`` (a gang runs at its slowest
        type's, a proportional mix at a weighted mean), and none pays less than ``scale_factor``
        times the cheapest free GPU's price: no offer nets more than the difference (the
        utility raised and the price lowered by a relative 1e-12, far more than the rounding of
        a mean rate or a summed price)."""
        levels = self._speed_levels(job)
        if not levels:
            return float("inf")
        remaining = job.remaining_steps  # self._utility, inlined
        basis = self.basis_steps(job, remaining)
        work = levels[0] * seconds
        utility = 0.0 if basis <= 0 else job.priority_weight * min(remaining, work) / basis
        return utility * (1 + 1e-12) - job.scale_factor * (1 - 1e-12) * book.min_price()

    def _proportional_offer(self, job: JobState, book: PriceBook, seconds: float) -> Offer | None:
        """The GPUs of highest value minus price, each worth its share of the job's rate."""
        speeds = self.speeds(job)
        per_gpu = {
            wt: self._utility(job, g, seconds) / job.scale_factor for wt, g in speeds.items()
        }

        def rank(wt: str, price: float, free: int) -> tuple[float, ...] | None:
            return (price - per_gpu[wt], -free) if wt in per_gpu else None

        pick = book.cheapest(job.scale_factor, rank)
        if pick is None:
            return None
        parts, price = pick
        return Offer(parts, self._utility(job, self._rate(job, parts), seconds), price)


POLICIES.register("hadar", Hadar)


def _first_gpus(
    need: int, ranked: list[tuple[float, int, float, str, int, list[int]]], neg_threshold: float
) -> tuple[list[tuple[int, str, int]], float, float] | None:
    """The first ``need`` GPUs of the ranked groups at least ``-neg_threshold`` fast (whole
    groups in node order) as (node, type, GPUs), the slowest speed among them and their summed
    price; None if there are fewer."""
    taken: list[tuple[int, str, int]] = []
    cost, left, rate = 0.0, need, float("inf")
    for price, neg_free, neg_speed, worker_type, _, members in ranked:
        if neg_speed > neg_threshold:
            continue
        free = -neg_free
        if -neg_speed < rate:
            rate = -neg_speed
        for node in members:
            take = free if free < left else left
            taken.append((node, worker_type, take))
            cost += take * price
            left -= take
            if left == 0:
                return taken, rate, cost
    return None

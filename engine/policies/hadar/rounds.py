"""Shared machinery of Hadar and HadarE: the priced round loop (prices in :mod:`.prices`).

Sultana, Xu, Yuan, Chen, Tzeng, IPDPS 2024 (Hadar) and Sultana, Pakka et al., arXiv 2503.10918,
2025 (HadarE). The rules and their reconstructions are listed in :mod:`engine.policies.hadar.hadar`
and :mod:`engine.policies.hadar.hadare`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from engine.policies.base import (
    Allocation,
    Grant,
    Part,
    Policy,
    PolicyContext,
    SchedulerState,
)
from engine.policies.explain import Explanation
from engine.policies.hadar.prices import TOLERANCE, Offer, PriceBook
from engine.state import JobState

REMAINING_WORK_UTILITY_HELP = "A round earns the share of the remaining (else total) work it does"
"""Help of the ``remaining_work_utility`` knob of Hadar and HadarE (rule:
:meth:`PricedRounds.basis_steps`)."""


class HadarExplanation(Explanation):
    """Hadar's rule (its utility densities and prices are not in the run's records)."""

    rule: ClassVar[str] = (
        "Hadar takes jobs in decreasing utility per GPU and gives each the GPUs where its "
        "utility most exceeds their price, if it covers the price, round by round."
    )


class PricedRounds(Policy):
    """Shared machinery of Hadar and HadarE: utilities, prices, density order, stability.

    Subclasses define the rate of a set of parts, a job's best offer and its density bound.
    """

    explanation: ClassVar[type[Explanation]] = HadarExplanation

    preemptive = True
    uses_rounds = True
    combine = "gang"

    def __init__(self, params: Any, context: PolicyContext) -> None:
        super().__init__(params, context)
        self.nodes = context.nodes
        self.node_types, self.node_gpus = context.layout.node_type, context.layout.node_gpus
        self.capacity = context.cluster.capacity()
        self.round_s = context.rounds.round_duration_s
        self.restore_s = context.rounds.checkpoint_restore_s
        self._seconds_moved = self.round_s**2 / (self.round_s + self.restore_s)
        self.now_s = 0.0
        self._round_index = -1
        self._speeds: dict[int, dict[str, float]] = {}
        self._bounds: dict[int, tuple[float, float, float, float]] = {}
        self._empty_book = PriceBook(self.node_types, self.node_gpus, self.node_gpus, 1.0, 1.0)

    def allocate(self, state: SchedulerState) -> Allocation:
        """Round boundary: the whole allocation. Mid-round: starts of waiting jobs on free GPUs."""
        full = state.round_index != self._round_index
        self._round_index = state.round_index
        self.now_s = state.now_s
        active = [*state.waiting, *state.running]
        bounds = self._price_bounds(active)
        if bounds is None:
            return self._finishing(state, None) if full else {}
        if full:
            book = self._empty_book.repriced(*bounds)
        else:
            book = PriceBook(self.node_types, self.node_gpus, state.node_free_gpus[:], *bounds)
        candidates = active if full else list(state.waiting)
        density = {job.index: self._density(job) for job in candidates}
        ordered = sorted(
            (job for job in candidates if density[job.index] > 0),
            key=lambda job: (-density[job.index], job.index),
        )
        allocation = self._finishing(state, book) if full else {}
        for job in ordered:
            if book.total_free <= 0 or self._out_of_reach(density[job.index], book):
                break
            grant = self._grant(job, book, full)
            if grant is not None:
                allocation[job.index] = grant
        self._extend(allocation, ordered, book, full)
        return allocation

    def _finishing(self, state: SchedulerState, book: PriceBook | None) -> Allocation:
        """Running jobs whose last step is done keep their GPUs through their final model
        consolidation (HadarE's copies; see :attr:`JobState.final_s`)."""
        kept: Allocation = {}
        for job in state.running:
            grant = job.grant
            if job.last_step_s is None or grant is None:
                continue
            if book is not None:
                if not book.fits(grant.pieces()):
                    continue
                book.take(grant.pieces())
            kept[job.index] = grant
        return kept

    def _grant(self, job: JobState, book: PriceBook, full: bool) -> Grant | None:
        """The job's best offer, or its current grant when keeping it is at least as good;
        None when the utility does not cover the price."""
        seconds = self._seconds(job, keep=False)
        current = job.grant if full and self.params.keep_running else None
        offer = None
        parts = current.pieces() if current is not None else ()
        price = book.cost_if_fits(parts) if parts else None
        if price is not None:
            kept = Offer(parts, self._utility(job, self._rate(job, parts), self.round_s), price)
            if _admitted(kept):
                # a kept grant netting at least the ceiling beats every move: no search
                keep = kept.net >= self._move_ceiling(job, book, seconds)
                if not keep:
                    offer = self._best_offer(job, book, seconds)
                    keep = offer is None or self._prefer_kept(kept, offer)
                if keep:
                    book.take(parts)
                    return current
        if offer is None:
            offer = self._best_offer(job, book, seconds)
        if offer is None or not _admitted(offer):
            return None
        book.take(offer.parts)
        return Grant.of_parts(offer.parts, self.combine)

    def _move_ceiling(self, job: JobState, book: PriceBook, seconds: float) -> float:
        """At least the net of any offer :meth:`_best_offer` could make that
        :meth:`_prefer_kept` would take over keeping: a kept grant netting this much is kept
        without a search (here: no bound)."""
        return float("inf")

    def _prefer_kept(self, kept: Offer, move: Offer) -> bool:
        return kept.net >= move.net - TOLERANCE * abs(move.net)

    def _extend(
        self, allocation: Allocation, ordered: list[JobState], book: PriceBook, full: bool
    ) -> None:
        """Hook after every job had its turn (HadarE adds copies here)."""

    def _out_of_reach(self, density: float, book: PriceBook) -> bool:
        """Whether no job of this density or less can cover the cheapest free GPU's price."""
        return density < book.min_price() * (1 - TOLERANCE)

    def speeds(self, job: JobState) -> dict[str, float]:
        """``g_k``: the job's measured steps/s at its scale factor per worker type it fits."""
        speeds = self._speeds.get(job.index)
        if speeds is None:
            speeds = {
                wt: rate for wt, rate in job.steps_per_s.items() if rate > 0 and wt in self.capacity
            }
            self._speeds[job.index] = speeds
        return speeds

    def _seconds(self, job: JobState, keep: bool) -> float:
        """Productive seconds of the round: all of it, unless a job that ran before moves."""
        if keep or job.first_start_s is None:
            return self.round_s
        return self._seconds_moved

    def basis_steps(self, job: JobState, remaining: float) -> float:
        """Steps a round's work is a share of: ``remaining`` (the job's remaining steps), or its
        total steps with ``remaining_work_utility=False`` ([R], :mod:`.hadar` docstring)."""
        return remaining if self.params.remaining_work_utility else job.total_steps

    def _utility(self, job: JobState, rate: float, seconds: float) -> float:
        """What a round at ``rate`` steps/s for ``seconds`` earns (see module docstring)."""
        remaining = job.remaining_steps
        basis = self.basis_steps(job, remaining)
        if basis <= 0:
            return 0.0
        return job.priority_weight * min(remaining, rate * seconds) / basis

    def _utility_per_gpu(self, job: JobState, seconds: float) -> dict[str, float]:
        """Utility per GPU of a whole-job gang on each type the job fits (sets L and U)."""
        sf = job.scale_factor
        return {wt: self._utility(job, g, seconds) / sf for wt, g in self.speeds(job).items()}

    def _price_bounds(self, jobs: Sequence[JobState]) -> tuple[float, float] | None:
        """``L`` and ``U``: the least and greatest positive utility per GPU of a (re)started
        whole-job gang over ``jobs`` and the types each fits (None when none is positive)."""
        inf = float("inf")
        low, high = inf, 0.0
        round_s, moved_s = self.round_s, self._seconds_moved
        known = self._bounds  # a job's bounds hold while its progress does (e.g. waiting)
        for job in jobs:
            seconds = round_s if job.first_start_s is None else moved_s  # keep=False
            steps = job.steps_done
            hit = known.get(job.index)
            if hit is None or hit[0] != steps or hit[1] != seconds:
                # none positive: (inf, 0), which moves neither bound
                bounds = self._utility_bounds(job, seconds) or (inf, 0.0)
                hit = known[job.index] = (steps, seconds, *bounds)
            if hit[2] < low:
                low = hit[2]
            if hit[3] > high:
                high = hit[3]
        return None if low == inf else (low, high)

    def _utility_bounds(self, job: JobState, seconds: float) -> tuple[float, float] | None:
        """The least and greatest positive utility per GPU of :meth:`_utility_per_gpu` (None
        when none is positive): the job's share of ``L`` and ``U``."""
        positive = [u for u in self._utility_per_gpu(job, seconds).values() if u > 0]
        return (min(positive), max(positive)) if positive else None

    def _density(self, job: JobState) -> float:
        """Utility per GPU on the best GPUs an empty cluster offers the job."""
        raise NotImplementedError

    def _rate(self, job: JobState, parts: Sequence[Part]) -> float:
        raise NotImplementedError

    def _best_offer(self, job: JobState, book: PriceBook, seconds: float) -> Offer | None:
        raise NotImplementedError


def _admitted(offer: Offer) -> bool:
    """Whether the offer's utility covers its summed price (a tie admits)."""
    return offer.utility >= offer.price * (1 - TOLERANCE)

"""HadarE: Hadar with job forking; each job trains as copies on separate nodes at once.

Sultana, Pakka, Xu, Yuan, Chen, Tzeng, "Resource Heterogeneity-Aware and Utilization-Enhanced
Scheduling for Deep Learning Clusters", arXiv 2503.10918, 2025 (extends Hadar, IPDPS 2024, doi
10.1109/IPDPS57955.2024.00066; see :mod:`engine.policies.hadar.hadar`).

[P] HadarE forks each job into copies that train at once on GPUs of separate nodes; a job tracker
aggregates their progress and consolidates the models. The engine models a ``copies`` grant
(:mod:`engine.step_time.progress`): every copy trains alone at the measured node-local throughput,
all
copies advance one shared step counter, every round ends with a consolidation of
``gradient_bytes / bandwidth + consolidation_fixed_s`` seconds, and so does the job once its
last step is done. ``k`` copies process ``k`` batches between consolidations, so their samples
count at the statistical efficiency of a ``k``-fold batch (Pollux, Qiao et al., OSDI 2021;
:func:`engine.step_time.progress.statistical_efficiency`, knob ``noise_scale_ratio``): two copies
of a
job whose batch sits at its critical batch size progress 1.33x as fast as one, and no number of
copies beats 2x. A job's first start costs nothing; any later start or change of its copies
restarts every copy from the last consolidated model and pays the checkpoint-restore cost.
Reconstructions [R]:

- [R] Hadar's utility, prices and density order (:mod:`engine.policies.hadar.hadar`), at node
  granularity: a copy takes ``min(free GPUs, max_gpus_per_copy)`` GPUs of one node whose type
  fits the job (``max_gpus_per_copy = 0``: the job's scale factor); its rate is the scenario
  matrix's throughput at ``m`` GPUs of that type, as the engine runs a copy. ``L``, ``U`` and a
  job's density are utilities per GPU of one copy on an empty node.
- [R] The job's first copy goes where utility minus price is greatest (ties: more GPUs, faster
  type, lower node), admitted if its utility covers the price, as in Hadar.
- [R] Extra copies fill what the first copies leave: in passes, each admitted job (in density
  order) may add one copy per pass on a node it does not use yet, up to ``max_copies``. A copy
  is admitted if the utility it adds (the job's utility with it minus without it, at the
  estimated job rate net of the consolidation share and the statistical efficiency) covers the
  node's price. Growing an unchanged running job changes its grant, so the gain is measured
  against the job keeping its copies for the whole round without a restore.
- [R] ``max_copies`` defaults to 4. The paper forks a job into copies on "separate available
  nodes" of its physical AWS and lab testbeds, clusters of a handful of nodes; their node
  counts are not in shared/seeds, so 4 stands for a testbed's worth of nodes. 0 means one copy
  per node of the cluster (shared/docs/schedulers.md's reading), which on a 64-node cluster
  forks far beyond anything the paper ran.
- [R] A job whose last step is done keeps its copies through its final consolidation.
- [R] A running job keeps all its copies while they still cover their price (it grows rather
  than moves).
- [R] ``consolidation_fixed_s`` defaults to 10 s (saving, gathering, averaging and reloading the
  copies' models); the abstract gives no figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from engine.errors import ConfigError
from engine.policies.base import POLICIES, Allocation, Grant, Part, PolicyContext
from engine.policies.hadar.copies import CopyRates
from engine.policies.hadar.prices import TOLERANCE, Offer, PriceBook
from engine.policies.hadar.rounds import REMAINING_WORK_UTILITY_HELP, PricedRounds
from engine.state import JobState
from engine.step_time.progress import NOISE_SCALE_RATIO


class HadarE(PricedRounds):
    """HadarE: Hadar's prices at node granularity, with each job forked into copies on separate
    nodes that share one step counter and consolidate the model every round.

    Sultana, Pakka et al., arXiv 2503.10918, 2025. Clairvoyant, preemptive at round boundaries;
    the copy rules are reconstructions (module docstring).
    """

    cost_s_per_job: ClassVar[float] = 0.00127  # run order: bench_select_all.py

    display_name = "HadarE"
    group = "Seed papers"
    honours_placement = False
    placement_note = "Forks each job into one copy per node, on nodes its per-node prices choose."

    combine = "copies"

    @dataclass(frozen=True)
    class Params:
        max_copies: int = field(
            default=4, metadata={"help": "Most copies of a job, one per node (0 = number of nodes)"}
        )
        max_gpus_per_copy: int = field(
            default=0,
            metadata={"help": "GPUs a copy may take on its node (0 = the job's scale factor)"},
        )
        consolidation_fixed_s: float = field(
            default=10.0,
            metadata={
                "help": "Fixed part of the model consolidation at every round end and when a job "
                "ends (s)"
            },
        )
        remaining_work_utility: bool = field(
            default=True,
            metadata={"help": REMAINING_WORK_UTILITY_HELP},
        )
        keep_running: bool = field(
            default=True,
            metadata={"help": "Keep a running job's copies while they cover their price"},
        )
        noise_scale_ratio: float = field(
            default=NOISE_SCALE_RATIO,
            metadata={
                "help": "Gradient noise scale over a job's batch (Pollux); sets how much k copies "
                "gain: at most (1 + ratio)x one copy"
            },
        )

    def __init__(self, params: Params, context: PolicyContext) -> None:
        super().__init__(params, context)
        knobs = (params.max_copies, params.max_gpus_per_copy, params.consolidation_fixed_s,
                 params.noise_scale_ratio)  # fmt: skip
        if min(knobs) < 0:
            raise ConfigError(
                "hadare: max_copies, max_gpus_per_copy, consolidation_fixed_s and "
                "noise_scale_ratio must be >= 0"
            )
        self.consolidation_fixed_s = params.consolidation_fixed_s
        self.noise_scale_ratio = params.noise_scale_ratio
        self.max_copies = params.max_copies or len(self.nodes)
        self.copies = CopyRates(
            context, params.max_gpus_per_copy, params.noise_scale_ratio,
            params.consolidation_fixed_s,
        )  # fmt: skip

    def _rate(self, job: JobState, parts: Sequence[Part]) -> float:
        return self.copies.rate(job, parts, self.now_s)

    def _utility_per_gpu(self, job: JobState, seconds: float) -> dict[str, float]:
        """Utility per GPU of one copy on an empty node of each type the job fits."""
        table = self.copies.on_empty_nodes(job, self.speeds(job))
        remaining = job.remaining_steps
        basis = self.basis_steps(job, remaining)
        if basis <= 0:
            return {wt: 0.0 for wt, _, _ in table}
        weight = job.priority_weight  # as _utility, inlined: called for every job and decision
        return {wt: weight * min(remaining, rate * seconds) / basis / gpus
                for wt, gpus, rate in table}  # fmt: skip

    def _utility_bounds(self, job: JobState, seconds: float) -> tuple[float, float] | None:
        """Least and greatest positive utility per GPU of one copy on an empty node (as
        :meth:`_utility_per_gpu`, without the dict: it runs for every job at every decision)."""
        table = self.copies.on_empty_nodes(job, self.speeds(job))
        remaining = job.remaining_steps
        basis = self.basis_steps(job, remaining)
        if basis <= 0:
            return None
        weight, low, high = job.priority_weight, float("inf"), 0.0
        for _, gpus, rate in table:
            work = rate * seconds
            utility = weight * (work if work < remaining else remaining) / basis / gpus
            if utility > 0:
                if utility < low:
                    low = utility
                if utility > high:
                    high = utility
        return None if low == float("inf") else (low, high)

    def _density(self, job: JobState) -> float:
        """Utility per GPU of the job's best single copy on an empty node."""
        seconds = self._seconds(job, keep=job.placement is not None)
        table = self.copies.on_empty_nodes(job, self.speeds(job))
        remaining = job.remaining_steps  # as _utility_per_gpu, without the dict
        basis = self.basis_steps(job, remaining)
        if basis <= 0 or not table:
            return 0.0
        weight, best = job.priority_weight, -float("inf")
        for _, gpus, rate in table:
            utility = weight * min(remaining, rate * seconds) / basis / gpus
            if utility > best:
                best = utility
        return best

    def _out_of_reach(self, density: float, book: PriceBook) -> bool:
        return False  # a kept grant of several copies may earn more than the density bound

    def _prefer_kept(self, kept: Offer, move: Offer) -> bool:
        return True  # a running job keeps its copies while they cover their price

    def _move_ceiling(self, job: JobState, book: PriceBook, seconds: float) -> float:
        return -float("inf")  # keeping is preferred to any move: no search

    def _best_offer(self, job: JobState, book: PriceBook, seconds: float) -> Offer | None:
        """The single copy of greatest utility minus price (ties: more GPUs, faster type, lower
        node)."""
        speeds = self.speeds(job)
        remaining = job.remaining_steps  # self._utility and self.copies.single, inlined
        basis = self.basis_steps(job, remaining)
        weight = job.priority_weight
        cap = self.copies.max_gpus_per_copy or job.scale_factor
        single, singles = self.copies.single, self.copies.single_cache
        best, best_key = None, None
        for worker_type, free, price, members in book.levels():
            speed = speeds.get(worker_type)
            if speed is None:
                continue
            gpus = free if free < cap else cap  # min(free, cap), inlined here and below
            rate = singles.get((job.job_type, job.scale_factor, worker_type, gpus))
            if rate is None:
                rate = single(job, worker_type, gpus)
            work = rate * seconds
            utility = (
                0.0 if basis <= 0 else weight * (work if work < remaining else remaining) / basis
            )
            cost = gpus * price
            key = (utility - cost, gpus, speed, -members[0])
            if best_key is None or key > best_key:
                best, best_key = (worker_type, gpus, members[0], utility, cost), key
        if best is None:
            return None
        worker_type, gpus, node, utility, cost = best
        return Offer((Part(worker_type, gpus, node),), utility, cost)

    def _extend(
        self, allocation: Allocation, ordered: list[JobState], book: PriceBook, full: bool
    ) -> None:
        """Extra copies, one per job per pass in density order, while some job gains one."""
        growing = [job for job in ordered if job.index in allocation]
        while growing and book.total_free > 0:
            grown = []
            for job in growing:
                grant = allocation[job.index]
                if book.total_free <= 0 or len(grant.pieces()) >= self.max_copies:
                    continue
                part = self._extra_copy(job, grant, book, kept=full and grant == job.grant)
                if part is None:
                    continue
                book.take((part,))
                parts = sorted((*grant.pieces(), part), key=lambda p: p.node)
                allocation[job.index] = Grant.of_parts(parts, self.combine)
                grown.append(job)
            growing = grown

    def _extra_copy(self, job: JobState, grant: Grant, book: PriceBook, kept: bool) -> Part | None:
        """The best admissible new copy of ``job`` on a node it does not use yet, or None."""
        parts = grant.pieces()
        used = {p.node for p in parts}
        speeds = self.speeds(job)
        seconds = self._seconds(job, keep=False)
        rate_now = self._rate(job, parts)
        # growing an unchanged running job changes its grant: every copy pays a restore
        before = self._utility(job, rate_now, self.round_s if kept else seconds)
        remaining = job.remaining_steps  # self._utility, inlined below
        basis = self.basis_steps(job, remaining)
        weight = job.priority_weight
        rate_with = self.copies.adding(job, parts, self.now_s)
        cap = self.copies.max_gpus_per_copy or job.scale_factor
        best, best_key = None, None
        for worker_type, free, price, members in book.levels():
            speed = speeds.get(worker_type)
            if speed is None:
                continue
            for node in members:  # the group's first node the job does not use
                if node not in used:
                    break
            else:
                continue
            gpus = free if free < cap else cap  # self.copies.gpus
            work = rate_with(worker_type, gpus, node) * seconds
            done = work if work < remaining else remaining
            gain = (0.0 if basis <= 0 else weight * done / basis) - before
            cost = gpus * price
            if gain > 0 and gain >= cost * (1 - TOLERANCE):
                key = (gain - cost, gpus, speed, -node)
                if best_key is None or key > best_key:
                    best, best_key = (worker_type, gpus, node), key
        return None if best is None else Part(*best)


POLICIES.register("hadare", HadarE)

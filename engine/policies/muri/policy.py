"""Muri-S and Muri-L: jobs that share GPUs by multi-resource interleaving.

Zhao, Han, Yang, Zhang, Cui, Wang, Zhang, Yang, Zhou, Ding, Zhang, Jiang: "Multi-Resource
Interleaving for Deep Learning Training", SIGCOMM 2022 (doi 10.1145/3544216.3544224); code
github.com/Rivendile/Muri (Apache-2.0, read, not copied), ``cluster_exp/run.py``,
``multi_resource_blossom_same_sim_jobs``: Muri-S is its ``multi-resource-blossom-same-gpu``
(``gputime=True, know_duration=True``), Muri-L its ``-unaware`` variant (``know_duration=False``).

Rules, with their sources:

- Priority: Muri-S takes jobs in increasing remaining GPU time (remaining iterations x
  iteration time x GPUs: ``sort_val = remaining_gputime``); Muri-L in increasing attained GPU
  time (time held x GPUs: ``total_executed_gputime``), so it needs no durations. Ties: arrival,
  then index [R]. Remaining time is on the job's fastest fitting worker type (as SRTF's).
- Candidates, groups and their order: :mod:`engine.policies.muri.grouping` (Muri's scan, its
  Blossom matching of jobs with the same GPU count under the interleaving model, or groups in
  priority order under time slicing).
- A group's speed: the scenario's sharing model (:mod:`engine.sharing`): interleaving, Muri's
  interleaved iteration time from the jobs' stage times (every member advances one iteration
  per group iteration) times the scenario's measured overhead for the group's size (none by
  default; Muri's simulator's under the ``muri_testbed`` preset, ``simulator/matching.py``), or
  time slicing. A job alone runs at its own speed. The matching weighs groups without the
  overhead, as Muri does (``calc_weight``).
- Every decision re-plans every job (preemptive), at every arrival and completion; under the
  ``muri_testbed`` preset only at its 360-s round boundaries, relaunching every job there
  (``cluster_exp/run.sh``: ``schedule_intervals=("360")``).
- Defaults from Muri's run script (``run.sh``, ``run.py`` flags): ``k`` = 4
  (``packing_nums``, the scenario's ``sharing.k``), the best ordering of a group
  (``ordering=1``), matching weights above 0 (``weight_lbd``), 4 stages a cycle
  (``multi_resource``).

Departures [R]: GPUs are counted per worker type, not per node (the placement strategy picks
nodes); a group's members keep their speed until the next decision when one of them finishes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from engine.allocation.grants import gang_grant, shared_grant
from engine.policies.base import (
    POLICIES,
    Allocation,
    Policy,
    PolicyContext,
    SchedulerState,
)
from engine.policies.explain import AttainedService, Explanation, RemainingGpuWork
from engine.policies.muri.grouping import choose_candidates, form_groups
from engine.sharing import MURI_K, StageTimes, check_sharing_factor
from engine.sharing.speeds import GroupSpeeds
from engine.state import JobState


@dataclass(frozen=True)
class MuriParams:
    """Muri's knob: ``k``, most jobs on the same GPUs (1 = exclusive GPUs, the default, so the
    layer is off; Muri's run script uses :data:`engine.sharing.MURI_K` = 4, which the
    ``muri_testbed`` preset sets).

    Raises:
        SharingError: ``k`` < 1 or not whole (naming ``k``).
    """

    k: int = field(
        default=1,
        metadata={
            "help": f"most jobs sharing the same GPUs (1 = exclusive; Muri's testbed: {MURI_K})"
        },
    )

    def __post_init__(self) -> None:
        check_sharing_factor(self.k)


class MuriSExplanation(RemainingGpuWork):
    """Muri-S: remaining GPU time first (``remaining_gputime``), groups sharing GPUs."""

    rule: ClassVar[str] = (
        "Muri-S takes jobs in increasing remaining GPU time (work left × GPUs) and "
        "interleaves groups of them on the same GPUs."
    )


class MuriLExplanation(AttainedService):
    """Muri-L: attained GPU time first (``total_executed_gputime``), groups sharing GPUs."""

    rule: ClassVar[str] = (
        "Muri-L takes jobs in increasing attained GPU time (GPU-hours held) and interleaves "
        "groups of them on the same GPUs."
    )


class MuriS(Policy):
    """Muri-S: jobs share GPUs by multi-resource interleaving; shortest remaining GPU time first
    (known durations).

    Zhao et al., SIGCOMM 2022. Groups up to ``sharing.k`` jobs of the same GPU count by Muri's
    matching; the rules and their sources are in :mod:`engine.policies.muri.policy`.
    """

    explanation: ClassVar[type[Explanation]] = MuriSExplanation

    display_name: ClassVar[str] = "Muri-S"
    group: ClassVar[str] = "Shared GPUs"
    preemptive: ClassVar[bool] = True
    shares_gpus: ClassVar[bool] = True
    known_durations: ClassVar[bool] = True
    Params: ClassVar[type[MuriParams]] = MuriParams

    def __init__(self, params: MuriParams, context: PolicyContext) -> None:
        super().__init__(params, context)
        self.k = params.k
        self.capacity = context.cluster.capacity()
        self.interleaving = self.k > 1 and context.sharing.model == "interleaving"
        self.speeds = GroupSpeeds(
            self.k, context.sharing, context.stage_rows, context.trace_file, self.interleaving
        )
        self._fastest: dict[int, tuple[str, float]] = {}

    def _fastest_type(self, job: JobState) -> tuple[str, float]:
        """The job's fastest worker type with enough GPUs, and its steps/s there ("" and 0 when
        none)."""
        found = self._fastest.get(job.index)
        if found is None:
            fits = [(rate, wt) for wt, rate in job.steps_per_s.items()
                    if rate > 0 and self.capacity.get(wt, 0) >= job.scale_factor]  # fmt: skip
            rate, worker_type = max(fits) if fits else (0.0, "")
            found = self._fastest[job.index] = (worker_type, rate)
        return found

    def priority_key(self, job: JobState) -> float:
        """Muri-S: remaining GPU-seconds on the fastest fitting type."""
        rate = self._fastest_type(job)[1]
        return job.remaining_steps / rate * job.scale_factor if rate > 0 else float("inf")

    def stages_of(self, index: int, job: JobState) -> StageTimes:
        """The job's stage times (:meth:`engine.sharing.speeds.GroupSpeeds.stages_of`)."""
        return self.speeds.stages_of(index, job.job_id)

    def allocate(self, state: SchedulerState) -> Allocation:
        jobs = {job.index: job for job in state.active()}
        order = sorted(jobs.values(), key=lambda j: (self.priority_key(j), j.arrival_s, j.index))
        ranked = [(j.index, j.scale_factor, self._fastest_type(j)[0]) for j in order
                  if self._fastest_type(j)[1] > 0]  # fmt: skip
        k = self.k
        allocation: Allocation = {}
        for worker_type, chosen in choose_candidates(ranked, state.capacity, k).items():
            free = state.capacity.get(worker_type, 0)
            groups = form_groups(
                chosen, lambda i: self.stages_of(i, jobs[i]), free, k, self.interleaving
            )
            for gpus, group in groups:
                if free >= gpus:
                    free -= gpus
                    allocation.update(
                        self._grants(worker_type, gpus, [jobs[c.job_id] for c in group])
                    )
        return allocation

    def _grants(self, worker_type: str, gpus: int, members: list[JobState]) -> Allocation:
        """One group's grants: its lowest job index holds the GPUs (host), each member at its
        speed in the group (its own iteration time over the group's)."""
        if len(members) == 1:
            return {members[0].index: gang_grant(worker_type, gpus)}
        members.sort(key=lambda j: j.index)
        host = members[0].index
        shares = self._shares(members)
        return {
            job.index: shared_grant(worker_type, gpus, -1 if job.index == host else host, share)
            for job, share in zip(members, shares, strict=True)
        }

    def _shares(self, members: list[JobState]) -> list[float]:
        """Each member's speed in the group over its exclusive speed."""
        return self.speeds.shares([(job.index, job.job_id) for job in members])


POLICIES.register("muri_s", MuriS)


class MuriL(MuriS):
    """Muri-L: jobs share GPUs by multi-resource interleaving; least attained GPU time first
    (no durations needed).

    Zhao et al., SIGCOMM 2022 (Muri's ``-unaware`` variant). As Muri-S, with jobs ranked by the
    GPU-seconds they have held; the rules and their sources are in
    :mod:`engine.policies.muri.policy`.
    """

    explanation: ClassVar[type[Explanation]] = MuriLExplanation

    display_name: ClassVar[str] = "Muri-L"
    known_durations: ClassVar[bool] = False

    def priority_key(self, job: JobState) -> float:
        """Muri-L: attained GPU-seconds (time held x GPUs)."""
        return job.attained_service_gpu_s


POLICIES.register("muri_l", MuriL)

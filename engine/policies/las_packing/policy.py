"""Packing LAS: Tiresias LAS that packs waiting jobs onto running jobs' GPUs when the queue is
longer than the free GPUs allow, and unpacks when it empties (Gandiva's packing).

Sources: Tiresias LAS (Gu et al., NSDI 2019; :mod:`engine.policies.las`, whose queue rule this
policy calls, :func:`engine.policies.las.keys.queue_of`, thresholds as ``las``'s default);
Gandiva (Xiao et al., OSDI 2018, section 4.2, "packing": jobs share GPUs when the cluster is
oversubscribed, and are unpacked when load drops). Rules:

- Order: LAS's, queue of attained GPU-seconds (thresholds ``queue_thresholds_gpu_s``), then
  arrival, then index.
- At every round boundary every active job is re-planned in that order: a job keeps its worker
  type when it has room, else takes the fitting type with the most free GPUs
  (:func:`engine.policies.agnostic.most_free_type`, as LAS). Jobs left without GPUs form the
  queue; while it is not empty and ``k`` > 1 each, in LAS order, joins a granted job of its gang
  size (:mod:`engine.policies.las_packing.packing`), up to ``k`` jobs a group. An empty queue
  packs nothing, so groups are undone at the next round boundary (unpacking).
- Mid-round: waiting jobs in LAS order onto free GPUs, exclusive (as LAS's admission).
- A group's speed: interleaving (Muri's model) when the trace has stage times and the scenario's
  model is interleaving, else time slicing with the scenario's packing efficiency
  (:class:`engine.sharing.speeds.GroupSpeeds`).

Departures from ``las`` [R]: no STARVELIMIT promotion (a packed job is not starved) and no
requeue ordering. ``k`` = 1 (the default) never packs.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar

from engine.allocation.grants import gang_grant, shared_grant
from engine.policies.agnostic import most_free_type
from engine.policies.base import POLICIES, Allocation, Policy, PolicyContext, SchedulerState
from engine.policies.las.keys import THRESHOLDS_GPU_S, THRESHOLDS_HELP, parse_thresholds
from engine.policies.las_packing.packing import OpenGroup, Packer
from engine.policies.las_packing.waiting import WaitingList, las_key
from engine.sharing import check_sharing_factor
from engine.sharing.speeds import GroupSpeeds
from engine.state import JobState

GANDIVA_K = 2
"""What the help suggests: Gandiva packs jobs two to a GPU in its evaluation (section 6.3)."""


@dataclass(frozen=True)
class LasPackingParams:
    """Packing LAS's knobs.

    Raises:
        SharingError: ``k`` < 1 or not whole (naming ``k``).
        ConfigError: bad thresholds (as ``las``).
    """

    k: int = field(
        default=1,
        metadata={
            "help": f"most jobs sharing the same GPUs (1 = never pack; Gandiva: {GANDIVA_K})"
        },
    )
    queue_thresholds_gpu_s: str = field(
        default=THRESHOLDS_GPU_S, metadata={"help": THRESHOLDS_HELP}
    )

    def __post_init__(self) -> None:
        check_sharing_factor(self.k)
        parse_thresholds(self.queue_thresholds_gpu_s)


class LasPacking(Policy):
    """Tiresias LAS with Gandiva-style packing: least attained GPU-seconds first; when jobs wait,
    up to ``k`` share a running job's GPUs until the queue empties.

    Gu et al., NSDI 2019 (LAS) and Xiao et al., OSDI 2018 (packing); rules and sources in
    :mod:`engine.policies.las_packing.policy`.
    """

    display_name: ClassVar[str] = "Packing LAS"
    group: ClassVar[str] = "Shared GPUs"
    preemptive: ClassVar[bool] = True
    uses_rounds: ClassVar[bool] = True
    needs_sync: ClassVar[bool] = False  # reads running jobs' service itself (las.keys)
    shares_gpus: ClassVar[bool] = True
    Params: ClassVar[type[LasPackingParams]] = LasPackingParams

    def __init__(self, params: LasPackingParams, context: PolicyContext) -> None:
        super().__init__(params, context)
        self.k = params.k
        self.thresholds = parse_thresholds(params.queue_thresholds_gpu_s)
        interleaving = (
            self.k > 1
            and context.sharing.model == "interleaving"
            and context.stage_rows is not None
        )
        self.speeds = GroupSpeeds(
            self.k, context.sharing, context.stage_rows, context.trace_file, interleaving
        )
        self._round_index = -1
        self.waiting = WaitingList()
        self._granted: list[JobState] = []  # the last decision's grants

    def allocate(self, state: SchedulerState) -> Allocation:
        now_s, waiting = state.now_s, self.waiting
        for job in state.arrived:
            waiting.add(job, las_key(self.thresholds, job, now_s))
        self._requeue_unstarted(now_s)
        granted: dict[int, JobState] = {}
        if state.round_index == self._round_index:
            allocation, _ = self._fill(waiting.items(), dict(state.free_gpus), granted)
        else:
            self._round_index = state.round_index
            allocation = self._full_round(state, granted)
        for job in granted.values():
            waiting.remove(job)
        self._granted = list(granted.values())
        return allocation

    def _requeue_unstarted(self, now_s: float) -> None:
        """Jobs granted at the last decision that did not start wait again."""
        for job in self._granted:
            if job.placement is None and job.completion_s is None and job.index not in self.waiting:
                self.waiting.add(job, las_key(self.thresholds, job, now_s))

    def _full_round(self, state: SchedulerState, granted: dict[int, JobState]) -> Allocation:
        """Round boundary: running and waiting jobs merged in LAS order onto every GPU, the
        rest packed (k > 1); running jobs left out wait again. Adds the granted jobs to
        ``granted`` by index."""
        now_s, thresholds = state.now_s, self.thresholds
        running = sorted((las_key(thresholds, job, now_s), job) for job in state.running)
        merged = heapq.merge(running, self.waiting.items())
        allocation, _ = self._fill(merged, dict(state.capacity), granted)
        left = [item for item in running if item[1].index not in allocation]
        if self.k > 1 and allocation:
            self._pack(allocation, left, granted)
        for key, job in left:
            if job.index not in allocation:
                self.waiting.add(job, key)
        return allocation

    def _fill(
        self,
        order: Iterator[tuple[int, JobState]],
        free: dict[str, int],
        granted: dict[int, JobState],
    ) -> tuple[Allocation, list[tuple[int, JobState]]]:
        """Exclusive grants in ``order`` onto ``free`` (edited) until no GPU is free; returns
        them and the jobs passed over for want of room (``order`` is left after the last GPU).
        The granted jobs are added to ``granted`` by index."""
        allocation: Allocation = {}
        skipped: list[tuple[int, JobState]] = []
        total_free = sum(free.values())
        if total_free <= 0:
            return allocation, skipped
        for item in order:
            job = item[1]
            gpus, grant = job.scale_factor, job.grant
            worker_type = grant.worker_type if grant is not None else None
            if worker_type is None or free.get(worker_type, 0) < gpus:
                worker_type = most_free_type(job, free)
            if worker_type is None:
                skipped.append(item)
                continue
            free[worker_type] -= gpus
            total_free -= gpus
            allocation[job.index] = gang_grant(worker_type, gpus)
            granted[job.index] = job
            if total_free <= 0:
                break
        return allocation, skipped

    def _pack(
        self, allocation: Allocation, running: list[tuple[int, JobState]], jobs: dict[int, JobState]
    ) -> None:
        """The jobs without GPUs (``running`` ones left out, by key, and the waiting ones), in
        LAS order, onto the GPUs of the granted ``jobs`` (by index; the packed ones are added;
        module docstring). A job joins only groups of its gang size, so each size is packed
        on its own, from the waiting jobs of that size."""
        speeds = self.speeds
        stages_of = (lambda i: speeds.stages_of(i, jobs[i].job_id)) if speeds.interleaving else None
        packer = Packer(self.k, stages_of)
        for rank, (index, grant) in enumerate(allocation.items()):
            packer.add_host(grant.worker_type, grant.num_gpus, index, rank)
        groups: dict[int, OpenGroup] = {}
        for size in sorted(packer.open_by_size):
            same = [item for item in running if item[1].scale_factor == size]
            for _, job in heapq.merge(same, self.waiting.of_size(size)):
                if not packer.open_by_size[size]:
                    break
                if job.index in allocation or job.index in jobs:
                    continue
                jobs[job.index] = job
                types = [wt for wt, rate in job.steps_per_s.items() if rate > 0]
                held = -1 if job.grant is None else job.grant.host
                group = packer.join(job.index, size, types, held)
                if group is None:
                    del jobs[job.index]
                else:
                    groups[group.members[0]] = group
        for group in groups.values():
            self._grant_group(allocation, group, jobs)

    def _grant_group(
        self, allocation: Allocation, group: OpenGroup, jobs: dict[int, JobState]
    ) -> None:
        """A group's grants: the host's in its place, the members' after every exclusive one."""
        members = group.members
        shares = self.speeds.shares([(i, jobs[i].job_id) for i in members])
        host = members[0]
        for index, share in zip(members, shares, strict=True):
            allocation[index] = shared_grant(
                group.worker_type, group.num_gpus, -1 if index == host else host, share
            )


POLICIES.register("las_packing", LasPacking)

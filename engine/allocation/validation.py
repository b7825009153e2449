"""Checks on a policy's allocation at the boundary between policy and placement.

The engine calls :func:`validate_allocation` on every decision, before it preempts or places
anything, so a policy that grants GPUs that do not exist, or GPUs a job cannot use, fails at once
with an :class:`engine.errors.AllocationError` naming the policy, the job and the time. Whether
the granted GPUs are *free* is checked later, when the placement strategy places them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.allocation.grants import keeps_grant
from engine.errors import AllocationError

if TYPE_CHECKING:
    from collections.abc import Iterable

    from engine.allocation.grants import Allocation, Grant
    from engine.allocation.layout import NodeLayout
    from engine.state import JobState
    from engine.throughput import ThroughputMatrix


def validate_allocation(
    allocation: Allocation,
    jobs: list[JobState],
    layout: NodeLayout,
    matrix: ThroughputMatrix,
    policy: str,
    now_s: float,
    free_gpus: dict[str, int] | None = None,
    num_running: int = -1,
    stamp: int = -1,
    running: Iterable[JobState] | None = None,
) -> list[tuple[int, Grant]]:
    """Checks that every grant is usable by its job and fits the cluster's capacity.

    A job's unchanged grant (equal to the one it runs under, checked when it started) is not
    re-checked for usability; it still counts towards capacity.

    Args:
        allocation: the policy's allocation (job index -> grant).
        jobs: every job's state, indexed by job index (a list: compiled, indexed in C).
        layout: the cluster's nodes.
        matrix: the scenario's throughput matrix.
        policy: the policy's registry name, for messages.
        now_s: simulated time (s), for messages.
        free_gpus: the cluster's free GPUs per worker type now, and ``num_running`` the number
            of running jobs: when every running job keeps its one-type gang, their grants hold
            exactly the busy GPUs (capacity - free), which then count towards capacity without
            a look at each (the engine's full rounds). None: each grant counted.
        stamp: when >= 0, every job whose entry keeps its grant gets ``kept_stamp = stamp``
            (the engine passes its decision count, and its preemption scan then finds the
            running jobs without their grant by that mark, not by a lookup in the allocation).
        running: the running jobs (with ``free_gpus`` and ``stamp``): when some of them lose
            their grants and every kept grant is a one-type gang, the kept grants hold the
            busy GPUs less those of the running jobs left unmarked (:func:`held_by_unmarked`),
            counted without a look at each kept grant.

    Returns:
        The changed entries: (job index, grant) of every grant that is not the job's current
        one (every grant of a job that is not running), in the allocation's order. The other
        entries are running jobs that keep their GPUs.

    Raises:
        AllocationError: a job granted GPUs it cannot use (:func:`unusable`), more GPUs of a
            worker type than the cluster has, or more GPUs pinned to a node than it has.
    """
    granted = {worker_type: 0 for worker_type in layout.capacity}  # (compiled: no method call)
    pinned: dict[int, int] = {}
    changed: list[tuple[int, Grant]] = []
    kept: list[Grant] = []  # unchanged one-type gangs, counted towards capacity after the loop
    by_marks = running is not None and free_gpus is not None and stamp >= 0
    num_kept, kept_parts = 0, False
    for index, grant in allocation.items():
        job = jobs[index]
        same = keeps_grant(grant, job.grant)
        if not same:
            changed.append((index, grant))
        elif stamp >= 0:
            job.kept_stamp = stamp
        if grant.parts or grant.combine != "gang":
            validate_parts(job, grant, matrix, granted, pinned, policy)
            kept_parts = kept_parts or same
            continue
        if same:
            num_kept += 1
            if not by_marks:
                kept.append(grant)
            continue
        worker_type, num_gpus = grant.worker_type, grant.num_gpus
        if num_gpus < 1 or not gang_fits(job, worker_type, num_gpus, matrix):
            raise unusable(job, worker_type, num_gpus, policy)
        granted[worker_type] = granted.get(worker_type, 0) + num_gpus
    if (
        num_kept
        and free_gpus is not None
        and (num_kept == num_running or (by_marks and not kept_parts))
    ):  # the kept gangs hold the busy GPUs (less those of running jobs not kept)
        for worker_type, capacity in layout.capacity.items():
            busy = capacity - free_gpus.get(worker_type, capacity)
            granted[worker_type] = granted[worker_type] + busy
        if num_kept != num_running and running is not None:
            held_by_unmarked(running, stamp, granted)
    else:
        if by_marks:  # a kept grant of several parts: each kept gang counted
            kept = [g for i, g in allocation.items() if jobs[i].kept_stamp == stamp
                    and not g.parts and g.combine == "gang"]  # fmt: skip
        for grant in kept:
            granted[grant.worker_type] = granted.get(grant.worker_type, 0) + grant.num_gpus
    for worker_type, total in granted.items():
        if total > layout.capacity.get(worker_type, 0):
            raise AllocationError(
                f"{policy}: granted {total} {worker_type} GPUs at t={now_s:.0f}s; "
                f"the cluster has {layout.capacity.get(worker_type, 0)}"
            )
    for node, total in pinned.items():
        if not 0 <= node < len(layout.node_gpus) or total > layout.node_gpus[node]:
            raise AllocationError(
                f"{policy}: granted {total} GPUs on node n{node} at "
                f"t={now_s:.0f}s, which does not have that many"
            )
    return changed


def held_by_unmarked(running: Iterable[JobState], stamp: int, granted: dict[str, int]) -> None:
    """Takes the GPUs held by each running job not marked with ``stamp`` off ``granted``
    (per worker type): the busy GPUs less these are those held by the marked jobs."""
    for job in running:  # (a dict's values view: fewer instructions than the typed dict's loop)
        if job.kept_stamp == stamp:
            continue
        placement = job.placement
        if placement is None:
            continue
        if placement.node_types:
            for worker_type, count in placement.gpus_by_type().items():
                granted[worker_type] = granted[worker_type] - count
        else:
            worker_type = placement.worker_type
            granted[worker_type] = granted[worker_type] - placement.num_gpus


def validate_parts(
    job: JobState,
    grant: Grant,
    matrix: ThroughputMatrix,
    granted: dict[str, int],
    pinned: dict[int, int],
    policy: str,
) -> None:
    """Checks a grant of several parts: each part's worker type runs the job on one GPU (not
    re-checked for the grant the job already runs under).

    Adds the parts' GPUs to ``granted`` (per worker type) and ``pinned`` (per node).

    Raises:
        AllocationError: a part of fewer than one GPU or of a type the job cannot run on.
    """
    checked = grant is job.grant or grant == job.grant  # checked when the job started
    for part in grant.pieces():
        if not checked and (
            part.num_gpus < 1 or matrix.steps_per_s(job.job_type, part.worker_type, 1) <= 0
        ):
            raise unusable(job, part.worker_type, part.num_gpus, policy)
        granted[part.worker_type] = granted.get(part.worker_type, 0) + part.num_gpus
        if part.node >= 0:
            pinned[part.node] = pinned.get(part.node, 0) + part.num_gpus


def gang_fits(job: JobState, worker_type: str, num_gpus: int, matrix: ThroughputMatrix) -> bool:
    """Whether a one-type gang of ``num_gpus`` runs the job: a measured speed at its scale
    factor, or the matrix's speed at that size."""
    return job.steps_per_s.get(worker_type, 0.0) > 0 or (
        num_gpus != job.scale_factor and matrix.steps_per_s(job.job_type, worker_type, num_gpus) > 0
    )


def unusable(job: JobState, worker_type: str, num_gpus: int, policy: str) -> AllocationError:
    """The error for a job granted ``num_gpus`` GPUs of ``worker_type`` that it cannot use."""
    return AllocationError(
        f"{policy}: job {job.job_id} granted {num_gpus} x {worker_type}, which it cannot use"
    )

"""Checks on a policy's allocation at the boundary between policy and placement.

The engine calls :func:`validate_allocation` on every decision, before it preempts or places
anything, so a policy that grants GPUs that do not exist, or GPUs a job cannot use, fails at once
with an :class:`engine.errors.AllocationError` naming the policy, the job and the time. Whether
the granted GPUs are *free* is checked later, when the placement strategy places them. The check
is a verdict only: it changes nothing, and the engine works out which entries change what runs
(:func:`engine.decision_step.changed_entries`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.allocation.grants import keeps_grant
from engine.errors import AllocationError

if TYPE_CHECKING:
    from engine.allocation.grants import Allocation, Grant
    from engine.allocation.layout import NodeLayout
    from engine.state import JobState
    from engine.step_time.throughput import ThroughputMatrix


def validate_allocation(
    allocation: Allocation,
    jobs: list[JobState],
    layout: NodeLayout,
    matrix: ThroughputMatrix,
    policy: str,
    now_s: float,
) -> None:
    """Checks that every grant is usable by its job and fits the cluster's capacity; the verdict
    is its return (None) or its error. It reads the jobs and changes nothing.

    A job's unchanged grant (equal to the one it runs under, checked when it started) is not
    re-checked for usability; it still counts towards capacity.

    Args:
        allocation: the policy's allocation (job index -> grant).
        jobs: every job's state, indexed by job index (a list: compiled, indexed in C).
        layout: the cluster's nodes.
        matrix: the scenario's throughput matrix.
        policy: the policy's registry name, for messages.
        now_s: simulated time (s), for messages.

    Raises:
        AllocationError: a job granted GPUs it cannot use (:func:`unusable`), more GPUs of a
            worker type than the cluster has, or more GPUs pinned to a node than it has.
    """
    granted = {worker_type: 0 for worker_type in layout.capacity}  # (compiled: no method call)
    pinned: dict[int, int] = {}
    order: dict[int, int] = {}  # job index -> position, built at the first shared member
    for index, grant in allocation.items():
        job = jobs[index]
        if grant.host >= 0 or grant.share_speed != 1.0:  # a shared group (engine.sharing)
            if grant.host >= 0:
                if not order:
                    order = {i: n for n, i in enumerate(allocation)}
                validate_guest(job, grant, allocation, order, policy)
                continue  # on its host's GPUs: none of its own
            check_share_speed(job, grant, policy)
        if grant.parts or grant.combine != "gang":
            validate_parts(job, grant, matrix, granted, pinned, policy)
            continue
        worker_type, num_gpus = grant.worker_type, grant.num_gpus
        if not keeps_grant(grant, job.grant) and (
            num_gpus < 1 or not gang_fits(job, worker_type, num_gpus, matrix)
        ):
            raise unusable(job, worker_type, num_gpus, policy)
        granted[worker_type] = granted.get(worker_type, 0) + num_gpus
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


def validate_guest(
    job: JobState, grant: Grant, allocation: Allocation, order: dict[int, int], policy: str
) -> None:
    """Checks a shared group's member: its host is granted earlier in ``allocation`` (``order``:
    job index -> position) as a host (a gang of its own), of the same worker type and GPU count
    (:class:`engine.allocation.grants.Grant`).

    Raises:
        AllocationError: naming the job, its host and what does not match.
    """
    check_share_speed(job, grant, policy)
    host = allocation.get(grant.host)
    where = f"{policy}: job {job.job_id} shares the GPUs of job index {grant.host}"
    if host is None or host.host >= 0 or host.parts or host.combine != "gang":
        raise AllocationError(f"{where}, which holds no GPUs of its own in the allocation")
    if (host.worker_type, host.num_gpus) != (grant.worker_type, grant.num_gpus):
        raise AllocationError(
            f"{where}: granted {grant.num_gpus} x {grant.worker_type}, the host "
            f"{host.num_gpus} x {host.worker_type}"
        )
    if order[grant.host] > order[job.index]:
        raise AllocationError(f"{where}, which comes after it in the allocation")


def check_share_speed(job: JobState, grant: Grant, policy: str) -> None:
    """Raises AllocationError for a ``share_speed`` that is not a finite number > 0."""
    speed = grant.share_speed
    if not (speed > 0 and speed < float("inf")):
        raise AllocationError(f"{policy}: job {job.job_id} granted share_speed {speed!r}")


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

"""Tiresias LAS's bookkeeping (:mod:`engine.policies.las`): a record per arrived job (its
book), a record per worker type for the fill (its slot, :mod:`engine.policies.las.fill`), the
books' key.

Compiled with mypyc together with :mod:`engine.policies.las` (:mod:`engine.native`); issue 11's
speed work on the full Philly trace (~130,000 decisions, ~800,000 preemptions) moved the policy's
per-job state from dicts keyed by job index into books that its queues hold directly.
"""

from __future__ import annotations

import math

from engine.allocation.grants import Grant, gang_grant
from engine.state import JobState


class Book:
    """What the policy keeps about one arrived job (a native class under mypyc, whose fields
    are C slots). The waiting queues and the running list hold books, so the hot paths reach
    them without a lookup; the policy maps job indices to books for the rest."""

    def __init__(self, job: JobState) -> None:
        self.job = job
        self.index: int = job.index  # (native ints: read without a call into the job)
        self.order: int = job.index  # its place in its queue (a requeue stamp under requeue)
        self.gpus: int = job.scale_factor
        self.slot: TypeSlot | None = None  # the worker type of the policy's last grant
        self.fitting: list[TypeSlot] | None = None  # types it has a throughput on, once found
        self.shelf = -1  # its shape's queue (engine.policies.las.queues; -1: not yet queued)
        self.key = 0  # waiting: its queue key (frozen); running: its cached key, see until_s
        self.until_s = -math.inf  # running: a time before which its key cannot change
        self.run_start_s = math.nan  # start of the run the policy gave it (NaN: none)
        self.last_run_s = math.nan  # length of its last run, until promoted (NaN: none)
        self.offset_gpu_s = 0.0  # attained service at its last promotion
        self.since_s = math.nan  # preempted at (NaN: not preempted since it last started)


class TypeSlot:
    """One worker type in the fill (:mod:`engine.policies.las.fill`): its capacity, its GPUs
    still free in the current decision, and its gang grants by size (shared instances, see
    :func:`engine.allocation.grants.gang_grant`)."""

    def __init__(self, worker_type: str, capacity: int) -> None:
        self.worker_type = worker_type
        self.capacity = capacity
        self.free = capacity
        self._gangs: dict[int, Grant] = {}

    def gang(self, num_gpus: int) -> Grant:
        """The gang grant of ``num_gpus`` GPUs of this type."""
        grant = self._gangs.get(num_gpus)
        if grant is None:
            grant = self._gangs[num_gpus] = gang_grant(self.worker_type, num_gpus)
        return grant


def book_key(book: Book) -> int:
    """The book's key (the sort key of the running books and of the waiting queues)."""
    return book.key

"""Tiresias LAS's bookkeeping (:mod:`engine.policies.las`): a record per arrived job (its
book), lists of books ordered by queue key, and the fill that grants jobs in that order.

Compiled with mypyc together with :mod:`engine.policies.las` (:mod:`engine.native`); issue 11's
speed work on the full Philly trace (~130,000 decisions, ~800,000 preemptions) moved the policy's
per-job state from dicts keyed by job index into books that its queues hold directly.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from engine.allocation.grants import Allocation, gang_grant
from engine.policies.agnostic import most_free_type
from engine.state import JobState


class Book:
    """What the policy keeps about one arrived job (a native class under mypyc, whose fields
    are C slots). The waiting queues and the running list hold books, so the hot paths reach
    them without a lookup; ``TiresiasLas._books`` maps job indices to books for the rest."""

    def __init__(self, job: JobState) -> None:
        self.job = job
        self.key = 0  # waiting: its queue key (frozen); running: its cached key, see until_s
        self.until_s = -math.inf  # running: a time before which its key cannot change
        self.run_start_s = math.nan  # start of the run the policy gave it (NaN: none)
        self.last_run_s = math.nan  # length of its last run, until promoted (NaN: none)
        self.offset_gpu_s = 0.0  # attained service at its last promotion
        self.since_s = math.nan  # preempted at (NaN: not preempted since it last started)


def book_key(book: Book) -> int:
    """The book's key (the sort key of the running books)."""
    return book.key


def merged_by_key(first: list[Book], second: list[Book]) -> list[Book]:
    """Two lists of books sorted by key merged into one (keys are unique)."""
    merged: list[Book] = []
    at, end, other, other_end = 0, len(first), 0, len(second)
    while at < end and other < other_end:
        if second[other].key < first[at].key:
            merged.append(second[other])
            other += 1
        else:
            merged.append(first[at])
            at += 1
    merged.extend(first[at:])
    merged.extend(second[other:])
    return merged


def position(waiting: list[Book], key: int) -> int:
    """Where ``key`` is or goes in ``waiting``, books by key descending: the first position
    whose key is not above it. A bisection written out (compiled, it compares native ints;
    ``bisect``'s ``key=`` would call back into Python for every probe)."""
    low, high = 0, len(waiting)
    while low < high:
        middle = (low + high) >> 1
        if waiting[middle].key > key:
            low = middle + 1
        else:
            high = middle
    return low


def fill(
    ordered: Iterable[Book], free: dict[str, int], granted: list[Book], started: list[Book]
) -> Allocation:
    """Grants jobs in order while GPUs remain; a job without room is skipped. Appends the
    jobs granted to ``granted`` (in order) and the waiting ones among them (those without a
    placement) to ``started``.

    A running job keeps its worker type when it has room; others take the type with the most
    free GPUs (heterogeneity-agnostic, as Tiresias).
    """
    allocation: Allocation = {}
    total_free = sum(free.values())
    for book in ordered:
        if total_free <= 0:
            break
        job = book.job
        placement = job.placement  # job.worker_type, without the property call
        scale_factor = job.scale_factor
        if placement is not None and free[placement.worker_type] >= scale_factor:
            worker_type = placement.worker_type
            # its own grant, a gang of worker_type already: the engine sees it unchanged
            grant = job.grant or gang_grant(worker_type, scale_factor)
        else:
            found = most_free_type(job, free)
            if found is None:
                continue
            worker_type, grant = found, gang_grant(found, scale_factor)
            if placement is None:
                started.append(book)
        allocation[job.index] = grant
        granted.append(book)
        free[worker_type] -= scale_factor
        total_free -= scale_factor
    return allocation

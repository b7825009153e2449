"""Packing LAS's waiting jobs, kept in LAS order between decisions.

A waiting job's key does not change while it waits (it attains no service), so the list is
kept sorted by bisection as jobs arrive, are preempted or start, instead of sorted afresh at
every decision (the full Philly trace has thousands waiting at busy times).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator

from engine.policies.las.keys import KEY_BITS, queue_of, service_gpu_s
from engine.state import JobState


def las_key(thresholds: tuple[float, ...], job: JobState, now_s: float) -> int:
    """LAS's order as an int: queue of attained GPU-seconds << KEY_BITS | index (indices follow
    arrival, so ties go by arrival then index; :mod:`engine.policies.las.keys`)."""
    return (queue_of(thresholds, service_gpu_s(job, 0.0, now_s)) << KEY_BITS) | job.index


class WaitingList:
    """Waiting jobs by key, ascending (LAS order)."""

    def __init__(self) -> None:
        self.keys: list[int] = []
        self.jobs: list[JobState] = []
        self.key_of: dict[int, int] = {}

    def add(self, job: JobState, key: int) -> None:
        """Job ``job`` waits under ``key``."""
        at = bisect.bisect_left(self.keys, key)
        self.keys.insert(at, key)
        self.jobs.insert(at, job)
        self.key_of[job.index] = key

    def remove(self, index: int) -> None:
        """Job ``index`` no longer waits (no-op when it did not)."""
        key = self.key_of.pop(index, None)
        if key is not None:
            at = bisect.bisect_left(self.keys, key)
            del self.keys[at]
            del self.jobs[at]

    def __contains__(self, index: int) -> bool:
        return index in self.key_of

    def items(self) -> Iterator[tuple[int, JobState]]:
        """(key, job) in LAS order; the caller changes the list only after reading."""
        return zip(self.keys, self.jobs, strict=True)

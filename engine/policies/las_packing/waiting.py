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
    """Waiting jobs by key, ascending (LAS order): all of them, and those of each gang size
    (packing looks only at jobs of a group's size)."""

    def __init__(self) -> None:
        self.keys: list[int] = []
        self.jobs: list[JobState] = []
        self.key_of: dict[int, int] = {}
        self.by_size: dict[int, tuple[list[int], list[JobState]]] = {}

    def add(self, job: JobState, key: int) -> None:
        """Job ``job`` waits under ``key``."""
        sized = self.by_size.setdefault(job.scale_factor, ([], []))
        for keys, jobs in ((self.keys, self.jobs), sized):
            at = bisect.bisect_left(keys, key)
            keys.insert(at, key)
            jobs.insert(at, job)
        self.key_of[job.index] = key

    def remove(self, job: JobState) -> None:
        """Job ``job`` no longer waits (no-op when it did not)."""
        key = self.key_of.pop(job.index, None)
        if key is not None:
            for keys, jobs in ((self.keys, self.jobs), self.by_size[job.scale_factor]):
                at = bisect.bisect_left(keys, key)
                del keys[at]
                del jobs[at]

    def of_size(self, num_gpus: int) -> Iterator[tuple[int, JobState]]:
        """(key, job) of the jobs of gang size ``num_gpus`` in LAS order."""
        keys, jobs = self.by_size.get(num_gpus, ((), ()))
        return zip(keys, jobs, strict=True)

    def __contains__(self, index: int) -> bool:
        return index in self.key_of

    def items(self) -> Iterator[tuple[int, JobState]]:
        """(key, job) in LAS order; the caller changes the list only after reading."""
        return zip(self.keys, self.jobs, strict=True)

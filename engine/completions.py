"""When running jobs complete: a heap with lazy invalidation (SimPy's event heap).

Entries are ``(time_s, seq, job index, job version)``, unique keys ordered by time, then by
filing order. A job whose rate changes is filed again under a new version; its older entries go
stale, as do those of a job that no longer runs. Stale entries are skipped when they reach the
top, and dropped all at once when they outnumber the running jobs by far (:data:`COMPACT_AT`),
so the heap stays near the number of running jobs however often jobs are preempted.
"""

from __future__ import annotations

import math
from heapq import heapify, heappop, heappush

from engine.state import JobState

COMPACT_AT = 1024
"""Entries beyond 4 per running job at which the stale ones are dropped [R]."""


class CompletionHeap:
    """The running jobs' completion times (module docstring), for the jobs of one run."""

    def __init__(self, jobs: list[JobState]) -> None:
        self.jobs = jobs  # every job of the run, by index
        self.entries: list[tuple[float, int, int, int]] = []
        self.seq = 0

    def file(self, job: JobState, at_s: float, running: int) -> None:
        """Files a running job's completion at ``at_s`` under its current version (its earlier
        entries go stale); ``running``: how many jobs run now."""
        self.seq += 1
        entries = self.entries
        heappush(entries, (at_s, self.seq, job.index, job.version))
        if len(entries) > COMPACT_AT + 4 * running:
            live = [entry for entry in entries if not self._stale(entry)]
            heapify(live)
            entries[:] = live  # (unique keys: the live entries pop in the same order)

    def next_s(self) -> float:
        """The earliest completion time (s; ``inf`` when no job runs); drops the stale entries
        at the top."""
        entries = self.entries
        while entries and self._stale(entries[0]):
            heappop(entries)
        return entries[0][0] if entries else math.inf

    def pop_due(self, now_s: float) -> JobState | None:
        """The next job to complete by ``now_s``, its entry removed; None when none is due."""
        entries = self.entries
        while entries and entries[0][0] <= now_s:
            entry = heappop(entries)
            if not self._stale(entry):
                return self.jobs[entry[2]]
        return None

    def _stale(self, entry: tuple[float, int, int, int]) -> bool:
        job = self.jobs[entry[2]]
        return job.placement is None or job.version != entry[3]

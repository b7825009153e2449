"""Tiresias LAS's starvation checks (:mod:`engine.policies.las`): STARVELIMIT's promotion.

Gu et al., NSDI 2019: a job that has waited at least ``promote_knob`` x its last run goes back
to the highest-priority queue. We check at round boundaries [R], and only the jobs whose check
falls due: a preemption files a check at ``since + knob x last run``, in buckets of one round by
due time (a heap cost more: ~800,000 preemptions on the full Philly trace). Stale checks (the
job started again, was preempted again since, or was promoted already) are dropped when their
bucket comes up.

Compiled with mypyc with :mod:`engine.policies.las` (:mod:`engine.native`).
"""

from __future__ import annotations

import math
from typing import Final

from engine.policies.las.books import Book


def promotion_due_s(preempted_s: float, last_run_s: float, knob: float) -> float:
    """When a job preempted at ``preempted_s`` after a run of ``last_run_s`` seconds has waited
    ``knob`` x that run (STARVELIMIT, Gu et al.): its check falls due then (s); it is promoted at
    the first round boundary at or after."""
    return preempted_s + knob * last_run_s


class Check:
    """A promotion check: the book, the time it was preempted, and when it is due (native
    floats under mypyc: no boxed floats per preemption)."""

    def __init__(self, book: Book, since_s: float, due_s: float) -> None:
        self.book = book
        self.since_s = since_s
        self.due_s = due_s


class PromotionChecks:
    """Pending checks in buckets of ``bucket_s`` seconds by due time."""

    def __init__(self, bucket_s: float) -> None:
        self.bucket_s = bucket_s
        self.next_bucket = 0  # the first bucket that may hold checks (the sweep has passed others)
        self._due: dict[int, list[Check]] = {}

    def file(self, book: Book, since_s: float, due_s: float) -> None:
        """Files a check of ``book`` (preempted at ``since_s``) in its due bucket, never one
        :meth:`starved` has passed."""
        bucket = max(int(due_s // self.bucket_s), self.next_bucket)
        checks = self._due.get(bucket)
        if checks is None:
            self._due[bucket] = [Check(book, since_s, due_s)]
        else:
            checks.append(Check(book, since_s, due_s))

    def starved(self, now_s: float, knob: float) -> list[Book]:
        """The books due for promotion at ``now_s``: preempted and waiting (since their check
        was filed) at least ``knob`` x their last run. Each is marked promoted: its service
        counts afresh from its attained service now, and it has no last run.

        Only the buckets up to ``now_s`` are looked at; the test itself is the exact
        ``waited >= knob x last run``, so rounding in the due time changes nothing (a check
        not yet passed moves to the next bucket).
        """
        due, horizon_s = self._due, now_s + _DUE_SLACK_S
        first, last = self.next_bucket, int(horizon_s // self.bucket_s)
        self.next_bucket = max(first, last)
        promoted: list[Book] = []
        if not due:
            return promoted
        not_yet: list[Check] = []
        for bucket in range(first, last + 1):
            checks = due.pop(bucket, None)
            if checks is None:
                continue
            for check in checks:
                book, since_s = check.book, check.since_s
                if book.since_s != since_s or math.isnan(book.last_run_s):
                    continue  # started again (NaN), preempted again since, or promoted already
                if check.due_s > horizon_s or not now_s - since_s >= knob * book.last_run_s:
                    not_yet.append(check)
                    continue
                book.offset_gpu_s = book.job.attained_service_gpu_s
                book.last_run_s = math.nan
                promoted.append(book)
        if not_yet:
            due.setdefault(self.next_bucket, []).extend(not_yet)
        return promoted


_DUE_SLACK_S: Final = 1e-3  # far above the rounding of ``since + knob x last run`` at trace times

"""Gavel max-min's round boundary without the full pair list: the ranked pairs and the greedy
pass over them, then over the zero-share pairs walked job by job.

:func:`engine.policies.gavel.rounds.priority_pairs` lists every (job, worker type) pair: those
with a share ``X > 0`` ranked by priority, then (``work_conserving``) those with ``X = 0`` in
arrival order, and :func:`engine.policies.gavel.pairs.greedy_grants` walks that list. At a
boundary of the full Philly trace that is ~430 pairs over ~145 jobs, ~260 of them with ``X = 0``,
and the full list is needed again only when a mid-round pass happens. Here the boundary ranks
only the pairs with a share, walks them, then walks the zero-share pairs job by job (a job
granted GPUs skips its other pairs at once), and :func:`full_pairs` builds the full list only
for a mid-round pass. The grants and the order are the plain ones exactly (tests against
``priority_pairs`` and ``greedy_grants``). Each row's columns with and without a share are
kept by the book at every solve (:attr:`RoundBook.share_cols`, :attr:`RoundBook.zero_cols`).

:class:`ActiveJobs` keeps the active jobs in index order across boundaries from the engine's
arrivals (``SchedulerState.arrived``, contiguous in index order) and completions, instead of
sorting the waiting and running jobs at every boundary. Compiled with mypyc
(:mod:`engine.native`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

from engine.policies.gavel.rounds import RoundBook, active_in_order
from engine.state import JobState


class ActiveJobs:
    """The active jobs (waiting or running) in index order, and their indices.

    Jobs leave when their ``completion_s`` is set; arrivals join at the end (the engine
    numbers jobs in arrival order, so arrivals have the largest indices). When the kept
    list does not add up to the engine's waiting and running jobs (an engine that does not
    report arrivals), it is rebuilt by :func:`active_in_order`.
    """

    def __init__(self) -> None:
        self.jobs: list[JobState] = []
        self.indices: list[int] = []
        self._arrived: list[JobState] = []  # since the last boundary

    def add_arrivals(self, arrived: Sequence[JobState]) -> None:
        """Notes the jobs that arrived since the policy's previous call (any call)."""
        if arrived:
            self._arrived.extend(arrived)

    def at_boundary(
        self, waiting: Collection[JobState], running: Collection[JobState]
    ) -> tuple[list[JobState], list[int]]:
        """The active jobs and their indices at a round boundary (after :meth:`add_arrivals`
        of this call's arrivals); the lists are new ones, kept for the next boundary."""
        jobs: list[JobState] = []
        indices: list[int] = []
        for job in self.jobs:
            if job.completion_s is None:
                jobs.append(job)
                indices.append(job.index)
        last = indices[-1] if indices else -1
        in_order = True
        for job in self._arrived:
            if job.completion_s is None:
                if job.index <= last:
                    in_order = False
                last = job.index
                jobs.append(job)
                indices.append(last)
        self._arrived = []
        if not in_order or len(jobs) != len(waiting) + len(running):
            jobs, indices = active_in_order(waiting, running)
        self.jobs, self.indices = jobs, indices
        return jobs, indices


def ranked_pairs(
    book: RoundBook, indices: list[int], count_round: bool
) -> tuple[list[int], list[int]]:
    """The pairs with a share of the rows ``indices``, in priority order (as
    :func:`priority_pairs` ranks them): positions into ``indices`` and worker-type columns.
    With ``count_round`` (at a round boundary), each row's rounds in the system
    (``RoundBook.in_system``) grow by one after it is read: the ranking is the last reader
    of the round."""
    num_types = book.num_types
    shares, rounds, present, share_cols = (
        book.share_rows, book.round_cells, book.in_system, book.share_cols
    )  # fmt: skip
    keys: list[float] = []
    ranked_pos: list[int] = []
    ranked_cols: list[int] = []
    for p in range(len(indices)):
        row = indices[p]
        here = present[row]
        if count_round:
            present[row] = here + 1.0
        cols = share_cols[row]
        if not cols:
            continue
        share_row, base = shares[row], row * num_types
        for col in cols:
            share = share_row[col]
            received = rounds[base + col] / here if here > 0 else 0.0
            keys.append(-(share / received) if received > 0 else -math.inf)
            ranked_pos.append(p)
            ranked_cols.append(col)
    order = sorted(range(len(keys)), key=keys.__getitem__)  # stable: ties in listed order
    _settle_ties(order, keys, ranked_pos, ranked_cols, shares, indices)
    return [ranked_pos[i] for i in order], [ranked_cols[i] for i in order]


def _settle_ties(
    order: list[int],
    keys: list[float],
    ranked_pos: list[int],
    ranked_cols: list[int],
    shares: list[list[float]],
    indices: list[int],
) -> None:
    """Sorts each run of equal priorities in ``order`` by larger share, stably (the share
    read only for pairs in such runs): ``_lex_order``'s second key."""
    start, previous = 0, math.nan
    for at in range(len(order) + 1):
        key = keys[order[at]] if at < len(order) else math.nan
        if key == previous:
            continue
        if at - start > 1 and not _by_share_already(
            order, start, at, ranked_pos, ranked_cols, shares, indices
        ):
            # a run of equal priorities (NaN never equals: no false runs), out of share order
            run = order[start:at]
            neg_share = [-shares[indices[ranked_pos[i]]][ranked_cols[i]] for i in run]
            by_share = sorted(range(len(run)), key=neg_share.__getitem__)
            order[start:at] = [run[j] for j in by_share]
        start, previous = at, key


def _by_share_already(
    order: list[int],
    start: int,
    end: int,
    ranked_pos: list[int],
    ranked_cols: list[int],
    shares: list[list[float]],
    indices: list[int],
) -> bool:
    """Whether ``order[start:end]`` already lists its pairs by non-increasing share (then
    the stable sort by share leaves the run as it is: most runs are jobs of one class)."""
    i = order[start]
    previous = shares[indices[ranked_pos[i]]][ranked_cols[i]]
    for at in range(start + 1, end):
        i = order[at]
        share = shares[indices[ranked_pos[i]]][ranked_cols[i]]
        if share > previous:
            return False
        previous = share
    return True


def boundary_grants(
    book: RoundBook,
    indices: list[int],
    ranked_pos: list[int],
    ranked_cols: list[int],
    work_conserving: bool,
    free: list[int],
) -> tuple[list[int], list[int]]:
    """Gavel's greedy pass (:func:`greedy_grants`) over the ranked pairs, then (with
    ``work_conserving``) over each job's zero-share columns in arrival order: what the pass
    over :func:`priority_pairs`' list grants. ``free`` is decreased in place. Returns the
    granted positions (into ``indices``) and columns, in grant order."""
    sizes = book.sizes
    taken = [False] * len(indices)
    granted_pos: list[int] = []
    granted_cols: list[int] = []
    total = sum(free)
    for i in range(len(ranked_pos)):
        if total <= 0:
            break
        p, col = ranked_pos[i], ranked_cols[i]
        size = sizes[indices[p]]
        if free[col] < size or taken[p]:
            continue
        gpus = int(size)
        free[col] = free[col] - gpus
        total -= gpus
        taken[p] = True
        granted_pos.append(p)
        granted_cols.append(col)
    if work_conserving and total > 0:
        zero_cols = book.zero_cols
        for p in range(len(indices)):
            if taken[p]:
                continue
            if total <= 0:
                break
            row = indices[p]
            size = sizes[row]
            for col in zero_cols[row]:
                if free[col] >= size:
                    gpus = int(size)
                    free[col] = free[col] - gpus
                    total -= gpus
                    granted_pos.append(p)
                    granted_cols.append(col)
                    break
    return granted_pos, granted_cols


def full_pairs(
    book: RoundBook,
    indices: list[int],
    ranked_pos: list[int],
    ranked_cols: list[int],
    work_conserving: bool,
) -> tuple[list[int], list[int], list[float]]:
    """:func:`priority_pairs`' three lists from the ranked pairs: the zero-share pairs
    (``work_conserving``) appended job by job in arrival order, and each pair's GPUs."""
    return waiting_pairs(
        book, [True] * len(indices), indices, ranked_pos, ranked_cols, work_conserving
    )


def waiting_pairs(
    book: RoundBook,
    waiting: list[bool],
    indices: list[int],
    ranked_pos: list[int],
    ranked_cols: list[int],
    work_conserving: bool,
) -> tuple[list[int], list[int], list[float]]:
    """:func:`full_pairs` of the jobs with ``waiting[p]`` only (positions still into
    ``indices``): the pairs a mid-round pass can grant, in the same order."""
    pos: list[int] = []
    cols: list[int] = []
    for i in range(len(ranked_pos)):
        p = ranked_pos[i]
        if waiting[p]:
            pos.append(p)
            cols.append(ranked_cols[i])
    if work_conserving:
        zero_cols = book.zero_cols
        for p in range(len(indices)):
            if waiting[p]:
                for col in zero_cols[indices[p]]:
                    pos.append(p)
                    cols.append(col)
    sizes = book.sizes
    return pos, cols, [sizes[indices[p]] for p in pos]

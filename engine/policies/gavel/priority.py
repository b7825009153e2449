"""Gavel's round mechanism rule, written once: rank the (job, worker type) pairs by share /
received fraction, then grant greedily along that order.

Narayanan et al., OSDI 2020, §5 (the round mechanism); ``scheduler/scheduler.py`` of
stanford-futuredata/gavel (MIT). ``priority[j, k] = X[j, k] / received[j, k]`` (infinite when
``X > 0`` and nothing received yet); pairs are taken in decreasing priority, ties by larger
``X``, then arrival, then (heterogeneity-aware) the job's faster type first; pairs with
``X = 0`` come after all of them, in arrival order (only with ``work_conserving``). Each pair
in order gets its job's GPUs of its type if that many are free and the job has none yet.

:func:`ranked_pairs` ranks only the pairs with a share (~170 of ~430 pairs at a boundary of the
full Philly trace) and :func:`grant_in_order` walks them, then walks the zero-share pairs job
by job (a job granted GPUs skips its other pairs at once): the grants of the pass over the full
pair list, without building that list (``tests/engine/reference/`` holds the full list and the
plain pass, and checks these against them). The round boundary, the mid-round passes over the
jobs the boundary left waiting, and the jobs that arrived since the boundary all go through
these two functions. Each row's columns with and without a share are kept by the book at every
solve (:attr:`RoundBook.share_cols`, :attr:`RoundBook.zero_cols`).

:class:`ActiveJobs` keeps the active jobs in index order across boundaries from the engine's
arrivals (``SchedulerState.arrived``, contiguous in index order) and completions, instead of
sorting the waiting and running jobs at every boundary. Compiled with mypyc
(:mod:`engine.native`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence

from engine.allocation.grants import gang_grant
from engine.policies.base import Allocation, Grant
from engine.policies.gavel.book import RoundBook
from engine.state import JobState


def is_waiting(job: JobState) -> bool:
    """Whether the job is in the system without GPUs (neither placed nor completed)."""
    return job.placement is None and job.completion_s is None


def active_in_order(
    waiting: Iterable[JobState], running: Iterable[JobState]
) -> tuple[list[JobState], list[int]]:
    """The active jobs sorted by index (= arrival order), and their indices."""
    jobs = [*waiting, *running]
    keys = [job.index for job in jobs]
    order = sorted(range(len(keys)), key=keys.__getitem__)  # int keys: CPython's fast compare
    return [jobs[i] for i in order], [keys[i] for i in order]


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
    """The pairs with a share of the rows ``indices``, in priority order (module docstring):
    positions into ``indices`` and worker-type columns.
    With ``count_round`` (at a round boundary), each row's rounds in the system
    (``RoundBook.in_system``) grow by one after it is read: the ranking is the last reader
    of the round."""
    num_types = book.num_types
    shares, rounds, present, share_cols = (
        book.share_rows, book.round_cells, book.in_system, book.share_cols
    )  # fmt: skip
    keys: list[float] = []
    neg_shares: list[float] = []
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
            neg_shares.append(-share)
            ranked_pos.append(p)
            ranked_cols.append(col)
    order = sorted(range(len(keys)), key=keys.__getitem__)  # stable: ties in listed order
    _by_share_in_ties(order, keys, neg_shares)
    return [ranked_pos[i] for i in order], [ranked_cols[i] for i in order]


def _by_share_in_ties(order: list[int], keys: list[float], neg_shares: list[float]) -> None:
    """Sorts each run of equal ``keys`` in ``order`` by larger share, stably (a sort by float
    keys alone, then the runs again: CPython compares float keys without the generic
    comparison; NaN never equals, so it makes no runs)."""
    start, size = 0, len(order)
    while start < size:
        key, end = keys[order[start]], start + 1
        while end < size and keys[order[end]] == key:
            end += 1
        if end - start > 1:
            run = order[start:end]
            run.sort(key=neg_shares.__getitem__)
            order[start:end] = run
        start = end


def grant_in_order(
    book: RoundBook,
    indices: list[int],
    ranked_pos: list[int],
    ranked_cols: list[int],
    work_conserving: bool,
    free: list[int],
    eligible: list[bool] | None = None,
) -> tuple[list[int], list[int]]:
    """Gavel's greedy pass (module docstring) over the ranked pairs, then (with
    ``work_conserving``) over each job's zero-share columns in arrival order; stops when no GPU
    is free.

    Args:
        indices: the rows of the jobs; ``ranked_pos`` are positions into it.
        ranked_pos, ranked_cols: :func:`ranked_pairs` of ``indices``.
        free: free GPUs per worker-type column; decreased in place by the grants.
        eligible: per position, whether the job may be granted (None: all): a mid-round pass
            grants only the jobs still waiting.

    Returns:
        The granted positions (into ``indices``) and columns, in grant order.
    """
    sizes = book.sizes
    taken = [False] * len(indices) if eligible is None else [not e for e in eligible]
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


class GrantTable:
    """The grant of each worker-type column and GPU count, one object per pair for a run (those
    of :func:`gang_grant`), looked up by column and count: a list index and an int key, half the
    cost of ``gang_grant``'s (type, GPUs) key (8 against 16 us per 150 grants, compiled), on the
    ~10^7 grants of a full-trace run. Both round mechanisms grant through it."""

    def __init__(self, worker_types: list[str]) -> None:
        self.worker_types = worker_types
        self._by_col: list[dict[int, Grant]] = [{} for _ in worker_types]

    def of(self, col: int, num_gpus: int) -> Grant:
        """The grant of ``num_gpus`` GPUs of type column ``col``."""
        by_gpus = self._by_col[col]
        grant = by_gpus.get(num_gpus)
        if grant is None:
            grant = by_gpus[num_gpus] = gang_grant(self.worker_types[col], num_gpus)
        return grant


def grant_each(
    jobs: list[JobState],
    granted_pos: list[int],
    granted_cols: list[int],
    round_fraction: float,
    round_cells: list[float],
    grants: GrantTable,
) -> Allocation:
    """The allocation of the granted pairs (``jobs[granted_pos[i]]`` gets its GPUs of type
    column ``granted_cols[i]``), in that order; each adds ``round_fraction`` (1 at a boundary,
    else the part of the round left) to its job's rounds on that type (``round_cells[job index
    * K + type column]``, K worker types). A job that keeps its GPUs gets back the very grant
    it holds (``grants``)."""
    allocation: Allocation = {}
    num_types = len(grants.worker_types)
    for i in range(len(granted_pos)):
        job, col = jobs[granted_pos[i]], granted_cols[i]
        cell = job.index * num_types + col
        round_cells[cell] = round_cells[cell] + round_fraction
        allocation[job.index] = grants.of(col, job.scale_factor)
    return allocation

"""Bookkeeping of Gavel's round mechanism: per-job arrays and the priority order.

Arrays are indexed by job index (the arrival-sorted position the engine assigns) and grow on
demand, so a round reads and updates them with numpy fancy indexing instead of per-job dicts.
The ranked pairs and the greedy pass over them live in :mod:`engine.policies.gavel.pairs`.
"""

from __future__ import annotations

import math
from operator import itemgetter

import numpy as np

from engine.policies.gavel.pairs import RoundPairs
from engine.state import JobState

_MIN_SHARE = 1e-9  # LP shares below this count as zero
_INITIAL_ROWS = 1024  # arrays double when a larger job index shows up


class RoundBook:
    """Static job data, target shares ``X`` and rounds received, one row per job index.

    Attributes:
        throughputs: (rows, K) steps/s at the job's scale factor per worker type.
        scale_factors, priority_weights: (rows,).
        fits: (rows, K) whether the job can run on the type at all.
        speed_order: (rows, K) the worker-type columns from the job's fastest down (ties in
            column order).
        shares: (rows, K) the last LP solution (0 for jobs that arrived after it).
        rounds: (rows, K) rounds held per type (mid-round starts count fractionally).
        in_system: (rows,) round boundaries at which the job was active.
        known: (rows,) whether the row has been filled from a job.
        class_ids: (rows,) label shared by jobs the LP cannot tell apart (same throughput row,
            or same fit row when heterogeneity-agnostic, same scale factor and weight).
        class_rows: the row of the first job of each class, in label order.
    """

    throughputs: np.ndarray
    scale_factors: np.ndarray
    priority_weights: np.ndarray
    fits: np.ndarray
    speed_order: np.ndarray
    shares: np.ndarray
    rounds: np.ndarray
    in_system: np.ndarray
    known: np.ndarray
    class_ids: np.ndarray

    def __init__(
        self, worker_types: list[str], capacity: np.ndarray, heterogeneity_aware: bool
    ) -> None:
        self.worker_types = worker_types
        self.capacity = capacity
        self.heterogeneity_aware = heterogeneity_aware
        self._classes: dict[tuple[float, ...], int] = {}
        self.class_rows: list[int] = []
        self.known = np.zeros(0, dtype=bool)
        self._known_below = 0  # every row below this one is known
        self._allocate(_INITIAL_ROWS)

    def _allocate(self, size: int) -> None:
        num_types = len(self.worker_types)
        old = self.known.size

        def grow(name: str, shape: tuple[int, ...], dtype: type, fill: float) -> None:
            array: np.ndarray = np.full(shape, fill, dtype=dtype)
            if old:
                array[:old] = getattr(self, name)
            setattr(self, name, array)

        grow("throughputs", (size, num_types), float, 0.0)
        grow("scale_factors", (size,), float, 1.0)
        grow("priority_weights", (size,), float, 1.0)
        grow("fits", (size, num_types), bool, False)
        grow("speed_order", (size, num_types), int, 0)
        grow("shares", (size, num_types), float, 0.0)
        grow("rounds", (size, num_types), float, 0.0)
        grow("in_system", (size,), float, 0.0)
        grow("known", (size,), bool, False)
        grow("class_ids", (size,), int, 0)

    def register(self, active: list[JobState]) -> None:
        """Records the jobs of ``active`` (sorted by index) seen for the first time."""
        if active and active[-1].index >= self._known_below:
            self.rows(active)

    def rows(self, active: list[JobState]) -> np.ndarray:
        """(n,) row (= job index) of each active job; records jobs seen for the first time."""
        return self.rows_of([job.index for job in active], active)

    def rows_of(self, indices: list[int], active: list[JobState]) -> np.ndarray:
        """:meth:`rows` when the caller has the jobs' indices already (``indices[i]`` is
        ``active[i].index``)."""
        rows = np.array(indices, dtype=np.int64)
        top = max(indices, default=-1)
        if top < self._known_below:  # the usual case: jobs are first seen in arrival order
            return rows
        if top >= self.known.size:
            self._allocate(max(2 * self.known.size, top + 1024))
        new_pos = np.flatnonzero(~self.known[rows])
        if new_pos.size:
            self._register([active[pos] for pos in new_pos.tolist()])
        while self._known_below < self.known.size and self.known[self._known_below]:
            self._known_below += 1
        return rows

    def _register(self, jobs: list[JobState]) -> None:
        """Fills the static rows of jobs seen for the first time and labels their class
        (one job at a time, in Python: jobs are mostly first seen one or two per round)."""
        capacity = self.capacity.tolist()
        columns = range(len(self.worker_types))
        for job in jobs:
            row = job.index
            throughputs = [float(job.steps_per_s.get(wt, 0.0)) for wt in self.worker_types]
            scale_factor, weight = float(job.scale_factor), float(job.priority_weight)
            fits = [
                tput > 0 and scale_factor <= cap
                for tput, cap in zip(throughputs, capacity, strict=True)
            ]
            self.throughputs[row] = throughputs
            self.scale_factors[row] = scale_factor
            self.priority_weights[row] = weight
            self.fits[row] = fits
            # fastest first, ties in column order (sorted keeps ties in order even reversed)
            self.speed_order[row] = sorted(columns, key=throughputs.__getitem__, reverse=True)
            basis = throughputs if self.heterogeneity_aware else fits
            label = self._classes.setdefault((*basis, scale_factor, weight), len(self._classes))
            if label == len(self.class_rows):
                self.class_rows.append(row)
            self.class_ids[row] = label
            self.known[row] = True

    def set_shares(self, rows: np.ndarray, shares: np.ndarray) -> None:
        """Stores an LP solution for ``rows``."""
        self.shares[rows] = np.where(shares < _MIN_SHARE, 0.0, shares)


def priority_order(
    book: RoundBook, rows: np.ndarray, work_conserving: bool, heterogeneity_aware: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The positions and columns of :func:`priority_pairs` as two (p,) int arrays."""
    pos, cols, _ = priority_pairs(book, rows, work_conserving, heterogeneity_aware)
    return np.array(pos, dtype=np.intp), np.array(cols, dtype=np.intp)


def priority_pairs(
    book: RoundBook, rows: np.ndarray, work_conserving: bool, heterogeneity_aware: bool
) -> tuple[list[int], list[int], list[float]]:
    """(job position, worker-type column) pairs in Gavel's priority order.

    ``priority = X / received``; infinite when ``X > 0`` and nothing received yet. Sorted by
    priority, then ``X``, then arrival (position), then (aware) faster type first. Pairs with
    ``X = 0`` come last and only with ``work_conserving``. Only the pairs with ``X > 0`` need a
    sort: the pairs come out of ``np.nonzero`` by position, then by the job's types from the
    fastest down (aware) or in column order (agnostic), which settles every other tie.

    Up to :data:`_LISTS_UP_TO` jobs the pairs are ranked in Python lists (same keys, same
    float operations; numpy's per-call cost dominates there), above it with numpy.

    Returns:
        Three lists of p items: positions into ``rows``, worker-type columns and the GPUs of
        each pair's job (lists, because the greedy pass and the grants walk them in Python).
    """
    if rows.size <= _LISTS_UP_TO:
        return _priority_order_lists(book, rows, work_conserving, heterogeneity_aware)
    pos, cols, sfs = _priority_order_arrays(book, rows, work_conserving, heterogeneity_aware)
    return pos.tolist(), cols.tolist(), sfs.tolist()


def round_pairs(
    jobs: list[JobState],
    book: RoundBook,
    rows: np.ndarray,
    work_conserving: bool,
    heterogeneity_aware: bool,
) -> RoundPairs:
    """:func:`priority_pairs` of the round's active ``jobs`` (``rows`` theirs), kept with the
    jobs for the round's mid-round passes (and, when ranked with numpy, as arrays too)."""
    if rows.size <= _LISTS_UP_TO:
        ranked = _priority_order_lists(book, rows, work_conserving, heterogeneity_aware)
        return RoundPairs(jobs, rows, *ranked)
    return RoundPairs(
        jobs, rows, *_priority_order_arrays(book, rows, work_conserving, heterogeneity_aware)
    )


def _priority_order_arrays(
    book: RoundBook, rows: np.ndarray, work_conserving: bool, heterogeneity_aware: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`priority_pairs` with numpy, as three (p,) arrays."""
    num_types = book.fits.shape[1]
    by_speed = book.speed_order[rows] if heterogeneity_aware else np.arange(num_types)[None, :]
    flat = rows[:, None] * num_types + by_speed  # (n, K) flat cells, fastest type first if aware
    shares, fits = book.shares.ravel()[flat], book.fits.ravel()[flat]
    positive = shares > 0
    pos, slot = np.nonzero(fits & positive)
    cells = flat[pos, slot]
    share = shares[pos, slot]
    present = book.in_system[rows[pos]]
    received = book.rounds.ravel()[cells]
    received = np.divide(received, present, out=np.zeros_like(share), where=present > 0)
    with np.errstate(divide="ignore"):
        priority = np.where(received > 0, share / received, np.inf)
    order = np.lexsort((-share, -priority))
    pos, cells = pos[order], cells[order]
    if work_conserving:
        zero_pos, zero_slot = np.nonzero(fits & ~positive)
        pos = np.concatenate([pos, zero_pos])
        cells = np.concatenate([cells, flat[zero_pos, zero_slot]])
    return pos, cells % num_types, book.scale_factors[rows[pos]]


# Jobs up to which the priority order is ranked in Python lists. Measured on 4,402 orders of
# the first 12,000 Philly jobs: lists 0.024 ms vs numpy 0.073 ms under 8 jobs, 0.057 vs 0.081
# for 8-31, 0.21 vs 0.11 for 32-127 (issue 11). Compiled (engine.native), on random books:
# lists 13 / 24 / 32 / 41 us vs numpy 38 / 39 / 41 / 39 us at 8 / 16 / 24 / 32 jobs.
_LISTS_UP_TO = 24
_RANK_KEY = itemgetter(0, 1)


def _priority_order_lists(
    book: RoundBook, rows: np.ndarray, work_conserving: bool, heterogeneity_aware: bool
) -> tuple[list[int], list[int], list[float]]:
    """:func:`priority_pairs` for a few jobs: the same pairs, keys and order, in Python."""
    num_types = book.fits.shape[1]
    shares, fits = book.shares.take(rows, axis=0).tolist(), book.fits.take(rows, axis=0).tolist()
    rounds, present = book.rounds.take(rows, axis=0).tolist(), book.in_system.take(rows).tolist()
    if heterogeneity_aware:
        orders = book.speed_order.take(rows, axis=0).tolist()
    else:
        orders = [list(range(num_types))] * len(shares)
    ranked: list[tuple[float, float, int, int]] = []
    zero_pos: list[int] = []
    zero_cols: list[int] = []
    for p, (share_row, fit_row, round_row, here, order) in enumerate(
        zip(shares, fits, rounds, present, orders, strict=True)
    ):
        for col in order:
            share = share_row[col]
            if not fit_row[col]:
                continue
            if share > 0:
                received = round_row[col] / here if here > 0 else 0.0
                priority = share / received if received > 0 else math.inf
                ranked.append((-priority, -share, p, col))
            elif work_conserving:
                zero_pos.append(p)
                zero_cols.append(col)
    ranked.sort(key=_RANK_KEY)  # stable, as the lexsort: ties keep position, then type order
    pos = [rank[2] for rank in ranked] + zero_pos
    cols = [rank[3] for rank in ranked] + zero_cols
    sizes = book.scale_factors.take(rows).tolist()
    return pos, cols, [sizes[p] for p in pos]

"""Bookkeeping of Gavel's round mechanism: per-job rows and the priority order.

Rows are indexed by job index (the arrival-sorted position the engine assigns) and grow on
demand. The static data the LP reads (throughputs, scale factors, weights, fits, classes) are
numpy arrays, read with fancy indexing once per solve; the state a round reads and updates job
by job (target shares, rounds received, rounds in the system) are flat Python lists, walked by
compiled loops (:mod:`engine.native`): at ~145 active jobs a round, numpy's per-call cost
outweighed its arithmetic (issue 11). The greedy pass over the ranked pairs lives in
:mod:`engine.policies.gavel.pairs`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Final

import numpy as np

from engine.state import JobState

_MIN_SHARE: Final = 1e-9  # LP shares below this count as zero
_INITIAL_ROWS = 1024  # rows double when a larger job index shows up


class RoundBook:
    """Static job data, target shares ``X`` and rounds received, one row per job index.

    Attributes:
        throughputs: (rows, K) steps/s at the job's scale factor per worker type.
        scale_factors, priority_weights: (rows,).
        fits: (rows, K) whether the job can run on the type at all.
        speed_order: (rows, K) the worker-type columns from the job's fastest down (ties in
            column order).
        known: (rows,) whether the row has been filled from a job.
        class_ids: (rows,) label shared by jobs the LP cannot tell apart (same throughput row,
            or same fit row when heterogeneity-agnostic, same scale factor and weight).
        class_rows: the row of the first job of each class, in label order.
        share_rows: per row, K floats: the last LP solution (0 for jobs that arrived after
            it, and below 1e-9). Rows are replaced, never changed in place: jobs of one class
            share one list.
        round_cells: rows * K floats, cell ``row * K + col``: rounds held per type (mid-round
            starts count fractionally).
        in_system: per row, round boundaries at which the job was active.
        fast_cols, fit_cols: per row, the columns the job fits, fastest first (ties in column
            order) and in column order (tuples: the garbage collector stops tracking them).
        sizes: per row, the job's GPUs (float); labels: per row, ``class_ids`` as ints.
        share_cols, zero_cols: per row, the columns of ``fast_cols`` (heterogeneity-aware)
            or ``fit_cols`` with a positive stored share, and the rest, in that order; kept
            with ``share_rows`` (:mod:`engine.policies.gavel.boundary` walks them).

    The numpy arrays are written when read (properties): jobs are registered one or two
    at a time, and one fancy-indexed write per array per read beats a write per job.
    """

    _throughputs: np.ndarray
    _scale_factors: np.ndarray
    _priority_weights: np.ndarray
    _fits: np.ndarray
    _speed_order: np.ndarray
    _known: np.ndarray
    class_ids: np.ndarray  # written at once (read at every solve)

    def __init__(
        self, worker_types: list[str], capacity: np.ndarray, heterogeneity_aware: bool
    ) -> None:
        self.worker_types = worker_types
        self.num_types = len(worker_types)
        self.capacity = capacity
        self.heterogeneity_aware = heterogeneity_aware
        self._classes: dict[tuple[float, ...], int] = {}
        self.class_rows: list[int] = []
        self._known = np.zeros(0, dtype=bool)
        self._known_rows: list[bool] = []  # known, as a list (read job by job)
        self._known_below = 0  # every row below this one is known
        # registered rows not yet in the arrays: (row, throughputs, scale factor, weight,
        # fits, speed order)
        self._unwritten: list[tuple[int, list[float], float, float, list[bool], list[int]]] = []
        self._zero_row = [0.0] * self.num_types  # the shares of rows without a solution
        self.share_rows: list[list[float]] = []
        self.round_cells: list[float] = []  # one list: no per-row objects to track
        self.in_system: list[float] = []
        self.labels: list[int] = []
        self.fast_cols: list[tuple[int, ...]] = []
        self.fit_cols: list[tuple[int, ...]] = []
        self.sizes: list[float] = []
        self.share_cols: list[tuple[int, ...]] = []
        self.zero_cols: list[tuple[int, ...]] = []
        # the rows' policy-order columns (fast_cols or fit_cols) by id, and per id and mask
        # of the columns with a share: (share columns, zero columns), made when first needed
        self._column_ids: dict[tuple[int, ...], int] = {}
        self._columns: list[tuple[int, ...]] = []
        self._splits: list[list[tuple[tuple[int, ...], tuple[int, ...]] | None]] = []
        self.column_ids: list[int] = []  # per row
        self._slot_of: list[int] = []  # set_class_shares' slot per class label
        self._allocate(_INITIAL_ROWS)

    def _allocate(self, size: int) -> None:
        num_types = self.num_types
        old = self._known.size

        def grow(name: str, shape: tuple[int, ...], dtype: type, fill: float) -> None:
            array: np.ndarray = np.full(shape, fill, dtype=dtype)
            if old:
                array[:old] = getattr(self, name)
            setattr(self, name, array)

        grow("_throughputs", (size, num_types), float, 0.0)
        grow("_scale_factors", (size,), float, 1.0)
        grow("_priority_weights", (size,), float, 1.0)
        grow("_fits", (size, num_types), bool, False)
        grow("_speed_order", (size, num_types), int, 0)
        grow("_known", (size,), bool, False)
        grow("class_ids", (size,), int, 0)
        more = size - old
        self._known_rows.extend([False] * more)
        self.share_rows.extend([self._zero_row] * more)
        self.round_cells.extend([0.0] * (more * num_types))
        self.in_system.extend([0.0] * more)
        self.labels.extend([0] * more)
        self.fast_cols.extend([()] * more)
        self.fit_cols.extend([()] * more)
        self.sizes.extend([1.0] * more)
        self.share_cols.extend([()] * more)
        self.zero_cols.extend([()] * more)
        self.column_ids.extend([0] * more)

    def register(self, active: list[JobState]) -> None:
        """Records the jobs of ``active`` (sorted by index) seen for the first time."""
        if active and active[-1].index >= self._known_below:
            self.rows(active)

    def rows(self, active: list[JobState]) -> np.ndarray:
        """(n,) row (= job index) of each active job; records jobs seen for the first time."""
        indices = [job.index for job in active]
        self.register_indices(indices, active)
        return np.array(indices, dtype=np.int64)

    def register_indices(self, indices: list[int], active: list[JobState]) -> None:
        """Records the jobs seen for the first time (``indices[i]`` is ``active[i].index``)."""
        top = -1
        for index in indices:
            if index > top:
                top = index
        if top < self._known_below:  # the usual case: jobs are first seen in arrival order
            return
        if top >= self._known.size:
            self._allocate(max(2 * self._known.size, top + 1024))
        known = self._known_rows
        new = [job for job in active if not known[job.index]]
        if new:
            self._register(new)
        while self._known_below < len(known) and known[self._known_below]:
            self._known_below += 1

    def _register(self, jobs: list[JobState]) -> None:
        """Fills the static rows of jobs seen for the first time and labels their class
        (one job at a time, in Python: jobs are mostly first seen one or two per round)."""
        capacity = self.capacity.tolist()
        columns = range(self.num_types)
        for job in jobs:
            row = job.index
            throughputs = [float(job.steps_per_s.get(wt, 0.0)) for wt in self.worker_types]
            scale_factor, weight = float(job.scale_factor), float(job.priority_weight)
            fits = [
                tput > 0 and scale_factor <= cap
                for tput, cap in zip(throughputs, capacity, strict=True)
            ]
            # fastest first, ties in column order (sorted keeps ties in order even reversed)
            order = sorted(columns, key=throughputs.__getitem__, reverse=True)
            self._unwritten.append((row, throughputs, scale_factor, weight, fits, order))
            self.fast_cols[row] = tuple([col for col in order if fits[col]])
            self.fit_cols[row] = tuple([col for col in columns if fits[col]])
            self.sizes[row] = scale_factor
            policy_cols = self.fast_cols[row] if self.heterogeneity_aware else self.fit_cols[row]
            self.share_cols[row] = ()  # no solution yet: the zero row
            self.zero_cols[row] = policy_cols
            self.column_ids[row] = self._column_id(policy_cols)
            basis = throughputs if self.heterogeneity_aware else fits
            label = self._classes.setdefault((*basis, scale_factor, weight), len(self._classes))
            if label == len(self.class_rows):
                self.class_rows.append(row)
            self.class_ids[row] = label
            self.labels[row] = label
            self._known_rows[row] = True

    def _write(self) -> None:
        """Writes the registered rows not yet in the numpy arrays."""
        pending = self._unwritten
        if not pending:
            return
        self._unwritten = []
        rows = np.array([entry[0] for entry in pending], dtype=np.int64)
        self._throughputs[rows] = [entry[1] for entry in pending]
        self._scale_factors[rows] = [entry[2] for entry in pending]
        self._priority_weights[rows] = [entry[3] for entry in pending]
        self._fits[rows] = [entry[4] for entry in pending]
        self._speed_order[rows] = [entry[5] for entry in pending]
        self._known[rows] = True

    @property
    def throughputs(self) -> np.ndarray:
        """(rows, K) steps/s at the job's scale factor per worker type."""
        self._write()
        return self._throughputs

    @property
    def scale_factors(self) -> np.ndarray:
        """(rows,) GPUs per job."""
        self._write()
        return self._scale_factors

    @property
    def priority_weights(self) -> np.ndarray:
        """(rows,) priority weights."""
        self._write()
        return self._priority_weights

    @property
    def fits(self) -> np.ndarray:
        """(rows, K) whether the job can run on the type at all."""
        self._write()
        return self._fits

    @property
    def speed_order(self) -> np.ndarray:
        """(rows, K) the columns from the job's fastest down."""
        self._write()
        return self._speed_order

    @property
    def known(self) -> np.ndarray:
        """(rows,) whether the row has been filled from a job."""
        self._write()
        return self._known

    def set_shares(self, rows: np.ndarray, shares: np.ndarray) -> None:
        """Stores an LP solution (n, K) for ``rows`` (n,); shares below 1e-9 count as 0."""
        values: list[list[float]] = np.where(shares < _MIN_SHARE, 0.0, shares).tolist()
        share_rows = self.share_rows
        row_list: list[int] = rows.tolist()
        for i in range(len(row_list)):
            row = row_list[i]
            share_rows[row] = values[i]
            self.share_cols[row], self.zero_cols[row] = self._split(self.column_ids[row], values[i])

    def set_class_shares(
        self, indices: list[int], classes: list[int], class_shares: np.ndarray
    ) -> None:
        """Stores the LP solution of classes ``classes`` (shares (P, K), in that order) for
        the rows ``indices``, whose class labels are all among them: :meth:`set_shares` of
        each row's class row, the jobs of a class sharing one list."""
        values: list[list[float]] = np.where(class_shares < _MIN_SHARE, 0.0, class_shares).tolist()
        slot = self._slot_of  # per class label: its slot in ``classes`` (set for those only)
        for label in classes:
            while label >= len(slot):
                slot.extend([0] * (len(slot) + 16))
        for i in range(len(classes)):
            slot[classes[i]] = i
        share_rows, labels, share_cols, zero_cols, column_ids = (
            self.share_rows, self.labels, self.share_cols, self.zero_cols, self.column_ids
        )  # fmt: skip
        slot_ids = [-1] * len(classes)  # per slot: the column id of its last split
        slot_splits: list[tuple[tuple[int, ...], tuple[int, ...]]] = [((), ())] * len(classes)
        for row in indices:
            i, column_id = slot[labels[row]], column_ids[row]
            share_rows[row] = values[i]
            if slot_ids[i] != column_id:  # once per class: a class's jobs have one column id
                slot_ids[i], slot_splits[i] = column_id, self._split(column_id, values[i])
            share_cols[row], zero_cols[row] = slot_splits[i]

    def _column_id(self, columns: tuple[int, ...]) -> int:
        """The id of a row's policy-order columns (equal tuples, one id)."""
        column_id = self._column_ids.get(columns)
        if column_id is None:
            column_id = self._column_ids[columns] = len(self._columns)
            self._columns.append(columns)
            self._splits.append([None] * (1 << self.num_types))
        return column_id

    def _split(
        self, column_id: int, shares: list[float]
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The columns ``column_id`` with a positive share in ``shares``, and the rest, each
        in column-id order (made once per column id and set of shared columns)."""
        columns, mask = self._columns[column_id], 0
        for col in columns:
            if shares[col] > 0:
                mask |= 1 << col
        split = self._splits[column_id][mask]
        if split is None:
            split = (
                tuple([col for col in columns if shares[col] > 0]),
                tuple([col for col in columns if not shares[col] > 0]),
            )
            self._splits[column_id][mask] = split
        return split

    def shares_of(self, rows: np.ndarray) -> np.ndarray:
        """(n, K) the stored shares of ``rows``."""
        return np.array([self.share_rows[row] for row in rows.tolist()]).reshape(-1, self.num_types)

    def any_share(self, indices: list[int]) -> bool:
        """Whether any of the rows ``indices`` has a positive share."""
        share_rows = self.share_rows
        for row in indices:
            for share in share_rows[row]:
                if share > 0:
                    return True
        return False


def active_in_order(
    waiting: Iterable[JobState], running: Iterable[JobState]
) -> tuple[list[JobState], list[int]]:
    """The active jobs sorted by index (= arrival order), and their indices."""
    jobs = [*waiting, *running]
    keys = [job.index for job in jobs]
    order = sorted(range(len(keys)), key=keys.__getitem__)  # int keys: CPython's fast compare
    return [jobs[i] for i in order], [keys[i] for i in order]


def priority_order(
    book: RoundBook, rows: np.ndarray, work_conserving: bool, heterogeneity_aware: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The positions and columns of :func:`priority_pairs` as two (p,) int arrays."""
    pos, cols, _ = priority_pairs(book, rows.tolist(), work_conserving, heterogeneity_aware)
    return np.array(pos, dtype=np.intp), np.array(cols, dtype=np.intp)


def priority_pairs(
    book: RoundBook, indices: list[int], work_conserving: bool, heterogeneity_aware: bool
) -> tuple[list[int], list[int], list[float]]:
    """(job position, worker-type column) pairs in Gavel's priority order.

    ``priority = X / received``; infinite when ``X > 0`` and nothing received yet. Sorted by
    priority, then ``X``, then arrival (position), then (aware) faster type first. Pairs with
    ``X = 0`` come last and only with ``work_conserving``. The pairs are listed by position,
    then by the job's types from the fastest down (aware) or in column order (agnostic), so a
    stable sort by (priority, X) settles every other tie (:func:`_lex_order`).

    Args:
        indices: the rows of the active jobs (positions are indices into this list).

    Returns:
        Three lists of p items: positions into ``indices``, worker-type columns and the GPUs
        of each pair's job.
    """
    num_types = book.num_types
    shares, rounds, present = book.share_rows, book.round_cells, book.in_system
    columns = book.fast_cols if heterogeneity_aware else book.fit_cols
    neg_priority: list[float] = []
    neg_share: list[float] = []
    ranked_pos: list[int] = []
    ranked_cols: list[int] = []
    zero_pos: list[int] = []
    zero_cols: list[int] = []
    for p in range(len(indices)):
        row = indices[p]
        here, share_row, base = present[row], shares[row], row * num_types
        for col in columns[row]:
            share = share_row[col]
            if share > 0:
                received = rounds[base + col] / here if here > 0 else 0.0
                neg_priority.append(-(share / received) if received > 0 else -math.inf)
                neg_share.append(-share)
                ranked_pos.append(p)
                ranked_cols.append(col)
            elif work_conserving:
                zero_pos.append(p)
                zero_cols.append(col)
    order = _lex_order(neg_priority, neg_share)
    pos = [ranked_pos[i] for i in order]
    cols = [ranked_cols[i] for i in order]
    pos.extend(zero_pos)
    cols.extend(zero_cols)
    sizes = book.sizes
    return pos, cols, [sizes[indices[p]] for p in pos]


def _lex_order(primary: list[float], secondary: list[float]) -> list[int]:
    """Indices sorted by ``primary``, ties by ``secondary``, then by index (numpy's
    ``lexsort((secondary, primary))``): a stable sort by the primary floats alone (CPython
    compares float keys without the generic comparison), then each run of equal primaries
    sorted again by its secondaries."""
    order = sorted(range(len(primary)), key=primary.__getitem__)
    size, start = len(order), 0
    while start < size:
        key, end = primary[order[start]], start + 1
        while end < size and primary[order[end]] == key:
            end += 1
        if end - start > 1:
            run = order[start:end]
            run.sort(key=secondary.__getitem__)
            order[start:end] = run
        start = end
    return order

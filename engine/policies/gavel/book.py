"""Bookkeeping of Gavel's round mechanism: one row per job, as Python lists.

Rows are indexed by job index (the arrival-sorted position the engine assigns) and grow on
demand. Every row is kept once, in Python lists: the round reads and updates them job by job in
compiled loops (:mod:`engine.native`; at ~145 active jobs a round, numpy's per-call cost
outweighed its arithmetic, issue 11), and an LP solve reads the rows it needs as numpy arrays
made from the lists (:meth:`RoundBook.throughputs` and its siblings). The ranking and the greedy
pass over the rows live in :mod:`engine.policies.gavel.priority`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np

from engine.state import JobState

_MIN_SHARE: Final = 1e-9  # LP shares below this count as zero
_INITIAL_ROWS = 1024  # rows double when a larger job index shows up

Rows = Sequence[int] | np.ndarray  # job indices (= rows)
Split = tuple[tuple[int, ...], tuple[int, ...]]  # columns with a share, the rest


class RoundBook:
    """Static job data, target shares ``X`` and rounds received, one row per job index.

    Attributes:
        throughput_rows: per row, K floats: steps/s at the job's scale factor per worker type.
        sizes: per row, the job's GPUs (its scale factor, float); weights: its priority weight.
        labels: per row, the class label shared by jobs the LP cannot tell apart (same
            throughput row, or same fit row when heterogeneity-agnostic, same scale factor and
            weight).
        class_rows: the row of the first job of each class, in label order.
        share_rows: per row, K floats: the last LP solution (0 for jobs that arrived after
            it, and below 1e-9). Rows are replaced, never changed in place: jobs of one class
            share one list.
        round_cells: rows * K floats, cell ``row * K + col``: rounds held per type (mid-round
            starts count fractionally).
        in_system: per row, round boundaries at which the job was active.
        fit_cols: per row, the columns the job fits (positive throughput, enough GPUs) in
            the policy's order: fastest first (heterogeneity-aware; ties in column order), else
            column order (tuples, equal ones one object: the garbage collector stops tracking
            them, and a class's jobs share one).
        share_cols, zero_cols: per row, the columns of ``fit_cols`` with a positive stored
            share, and the rest, in that order; kept with ``share_rows``
            (:mod:`engine.policies.gavel.priority` walks them).
    """

    def __init__(
        self, worker_types: list[str], capacity: np.ndarray, heterogeneity_aware: bool
    ) -> None:
        self.worker_types = worker_types
        self.num_types = len(worker_types)
        self.capacity = capacity
        self.heterogeneity_aware = heterogeneity_aware
        self._classes: dict[tuple[float, ...], int] = {}
        self.class_rows: list[int] = []
        self._known: list[bool] = []  # whether the row has been filled from a job
        self._known_below = 0  # every row below this one is known
        self._zero_row = [0.0] * self.num_types  # the shares of rows without a solution
        self.throughput_rows: list[list[float]] = []
        self.sizes: list[float] = []
        self.weights: list[float] = []
        self.labels: list[int] = []
        self.share_rows: list[list[float]] = []
        self.round_cells: list[float] = []  # one list: no per-row objects to track
        self.in_system: list[float] = []
        self.fit_cols: list[tuple[int, ...]] = []
        self.share_cols: list[tuple[int, ...]] = []
        self.zero_cols: list[tuple[int, ...]] = []
        self._interned: dict[tuple[int, ...], tuple[int, ...]] = {}  # one fit_cols per value
        self._slot_of: list[int] = []  # set_class_shares' slot per class label
        self._allocate(_INITIAL_ROWS)

    def _allocate(self, size: int) -> None:
        more = size - len(self._known)
        self._known.extend([False] * more)
        self.throughput_rows.extend([self._zero_row] * more)
        self.sizes.extend([1.0] * more)
        self.weights.extend([1.0] * more)
        self.labels.extend([0] * more)
        self.share_rows.extend([self._zero_row] * more)
        self.round_cells.extend([0.0] * (more * self.num_types))
        self.in_system.extend([0.0] * more)
        self.fit_cols.extend([()] * more)
        self.share_cols.extend([()] * more)
        self.zero_cols.extend([()] * more)

    def register(self, indices: list[int], active: list[JobState]) -> None:
        """Records the jobs seen for the first time (``indices[i]`` is ``active[i].index``):
        their static rows and class labels."""
        top = -1
        for index in indices:
            if index > top:
                top = index
        if top < self._known_below:  # the usual case: jobs are first seen in arrival order
            return
        known = self._known
        if top >= len(known):
            self._allocate(max(2 * len(known), top + 1024))
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
            self.throughput_rows[row] = throughputs
            self.sizes[row] = scale_factor
            self.weights[row] = weight
            ordered = order if self.heterogeneity_aware else columns
            fit_cols = tuple([col for col in ordered if fits[col]])
            self.fit_cols[row] = self._interned.setdefault(fit_cols, fit_cols)
            self.share_cols[row] = ()  # no solution yet: the zero row
            self.zero_cols[row] = self.fit_cols[row]
            basis = throughputs if self.heterogeneity_aware else fits
            label = self._classes.setdefault((*basis, scale_factor, weight), len(self._classes))
            if label == len(self.class_rows):
                self.class_rows.append(row)
            self.labels[row] = label
            self._known[row] = True

    def throughputs(self, rows: Rows) -> np.ndarray:
        """(n, K) steps/s of the jobs ``rows`` at their scale factor per worker type."""
        table = self.throughput_rows
        return np.array([table[row] for row in _ints(rows)], dtype=np.float64).reshape(
            -1, self.num_types
        )

    def scale_factors(self, rows: Rows) -> np.ndarray:
        """(n,) GPUs per job of the jobs ``rows``."""
        sizes = self.sizes
        return np.array([sizes[row] for row in _ints(rows)], dtype=np.float64)

    def priority_weights(self, rows: Rows) -> np.ndarray:
        """(n,) priority weights of the jobs ``rows``."""
        weights = self.weights
        return np.array([weights[row] for row in _ints(rows)], dtype=np.float64)

    def class_ids(self, rows: Rows) -> np.ndarray:
        """(n,) class labels of the jobs ``rows`` (int)."""
        labels = self.labels
        return np.array([labels[row] for row in _ints(rows)], dtype=np.int64)

    def set_shares(self, rows: np.ndarray, shares: np.ndarray) -> None:
        """Stores an LP solution (n, K) for ``rows`` (n,); shares below 1e-9 count as 0."""
        values: list[list[float]] = np.where(shares < _MIN_SHARE, 0.0, shares).tolist()
        share_rows = self.share_rows
        row_list: list[int] = rows.tolist()
        for i in range(len(row_list)):
            row = row_list[i]
            share_rows[row] = values[i]
            self.share_cols[row], self.zero_cols[row] = _split(self.fit_cols[row], values[i])

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
        share_rows, labels, share_cols, zero_cols, fit_cols = (
            self.share_rows, self.labels, self.share_cols, self.zero_cols, self.fit_cols
        )  # fmt: skip
        slot_cols: list[tuple[int, ...] | None] = [None] * len(classes)  # of the last split
        slot_splits: list[Split] = [((), ())] * len(classes)
        for row in indices:
            i, cols = slot[labels[row]], fit_cols[row]
            share_rows[row] = values[i]
            if slot_cols[i] is not cols:  # once per class: its jobs share one (interned) tuple
                slot_cols[i], slot_splits[i] = cols, _split(cols, values[i])
            share_cols[row], zero_cols[row] = slot_splits[i]

    def any_share(self, indices: list[int]) -> bool:
        """Whether any of the rows ``indices`` has a positive share."""
        share_rows = self.share_rows
        for row in indices:
            for share in share_rows[row]:
                if share > 0:
                    return True
        return False


def _split(columns: tuple[int, ...], shares: list[float]) -> Split:
    """The ``columns`` with a positive share in ``shares``, and the rest, each in that order."""
    return (
        tuple([col for col in columns if shares[col] > 0]),
        tuple([col for col in columns if not shares[col] > 0]),
    )


def _ints(rows: Rows) -> list[int]:
    """``rows`` as a list of ints."""
    return rows.tolist() if isinstance(rows, np.ndarray) else list(rows)

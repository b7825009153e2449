"""Bookkeeping of Gavel's round mechanism: per-job arrays and the priority order.

Arrays are indexed by job index (the arrival-sorted position the engine assigns) and grow on
demand, so a round reads and updates them with numpy fancy indexing instead of per-job dicts.
"""

from __future__ import annotations

import numpy as np

from engine.policies.gavel.lp import fit_mask
from engine.state import JobState

_MIN_SHARE = 1e-9  # LP shares below this count as zero
_INITIAL_ROWS = 1024  # arrays double when a larger job index shows up


class RoundBook:
    """Static job data, target shares ``X`` and rounds received, one row per job index.

    Attributes:
        throughputs: (rows, K) steps/s at the job's scale factor per worker type.
        scale_factors, priority_weights: (rows,).
        fits: (rows, K) whether the job can run on the type at all.
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
        grow("shares", (size, num_types), float, 0.0)
        grow("rounds", (size, num_types), float, 0.0)
        grow("in_system", (size,), float, 0.0)
        grow("known", (size,), bool, False)
        grow("class_ids", (size,), int, 0)

    def rows(self, active: list[JobState]) -> np.ndarray:
        """(n,) row (= job index) of each active job; records jobs seen for the first time."""
        rows = np.fromiter((job.index for job in active), dtype=np.int64, count=len(active))
        if rows.size and rows.max() >= self.known.size:
            self._allocate(max(2 * self.known.size, int(rows.max()) + 1024))
        new_pos = np.flatnonzero(~self.known[rows])
        if new_pos.size:
            self._register([active[pos] for pos in new_pos.tolist()], rows[new_pos])
        return rows

    def _register(self, jobs: list[JobState], rows: np.ndarray) -> None:
        """Fills the static rows of jobs seen for the first time and labels their class."""
        for job in jobs:
            self.throughputs[job.index] = [job.steps_per_s.get(wt, 0.0) for wt in self.worker_types]
            self.scale_factors[job.index] = job.scale_factor
            self.priority_weights[job.index] = job.priority_weight
        self.fits[rows] = fit_mask(self.throughputs[rows], self.scale_factors[rows], self.capacity)
        basis = self.throughputs if self.heterogeneity_aware else self.fits
        for row in rows.tolist():
            key = (*basis[row].tolist(), self.scale_factors[row], self.priority_weights[row])
            label = self._classes.setdefault(key, len(self._classes))
            if label == len(self.class_rows):
                self.class_rows.append(row)
            self.class_ids[row] = label
        self.known[rows] = True

    def set_shares(self, rows: np.ndarray, shares: np.ndarray) -> None:
        """Stores an LP solution for ``rows``."""
        self.shares[rows] = np.where(shares < _MIN_SHARE, 0.0, shares)


def priority_order(
    book: RoundBook, rows: np.ndarray, work_conserving: bool, heterogeneity_aware: bool
) -> tuple[np.ndarray, np.ndarray]:
    """(job position, worker-type column) pairs in Gavel's priority order.

    ``priority = X / received``; infinite when ``X > 0`` and nothing received yet. Sorted by
    priority, then ``X``, then arrival (position), then (aware) faster type first. Pairs with
    ``X = 0`` come last and only with ``work_conserving``.

    Returns:
        Two (p,) int arrays: positions into ``rows`` and worker-type columns.
    """
    shares = book.shares[rows]
    present = book.in_system[rows][:, None]
    received = np.divide(book.rounds[rows], present, out=np.zeros_like(shares), where=present > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        priority = np.where(received > 0, shares / received, np.where(shares > 0, np.inf, 0.0))
    mask = book.fits[rows]
    if not work_conserving:
        mask = mask & (shares > 0)
    pos, cols = np.nonzero(mask)
    tie = -book.throughputs[rows[pos], cols] if heterogeneity_aware else cols
    order = np.lexsort((tie, pos, -shares[pos, cols], -priority[pos, cols]))
    return pos[order], cols[order]

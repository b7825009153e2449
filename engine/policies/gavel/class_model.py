"""The max-min class LP's arrays, built once per set of classes and filled per class counts.

Jobs with the same coefficient row and scale factor are interchangeable. The objective of the
max-min LP (:mod:`engine.policies.gavel.lp`) is concave and its constraints are symmetric under
swapping such jobs, so averaging an optimum over those swaps gives an optimum where they all get
the same shares. The LP is therefore solved with one share row per class (its capacity use
weighted by the class size): the same optimum, with a few dozen rows instead of hundreds on a
Philly-like workload. It has one share column per (class, worker type) where the class's
coefficient is positive, plus ``t``; its rows are a fairness and a time row per class and a
capacity row per type. Which columns exist, and every matrix entry but the capacity rows'
``count * scale_factor``, depend only on the classes: the class counts change the capacity
entries and the efficiency term's weights alone. A :class:`ClassModel` holds the class-only
arrays (in the forms HiGHS takes) and fills the count-dependent ones per solve, so a solve whose
class set was seen lately skips the rest of the build (11,307 of the 16,714 solves of the full
Philly trace under max-min, with 64 sets kept). The arrays are the ones a fresh build gives,
value for value, so HiGHS solves the very same model (``test_policies_gavel_class_model.py``;
all 16,714 models of that run compared, November 2026).

:class:`WarmBasis` carries the last optimal basis over to the next LP (``warm_start``, off by
default: see :mod:`engine.policies.gavel.class_lp`). Columns and rows are matched by what they
stand for: share column (class, worker type), the fairness level ``t``, the fairness and time
rows of a class, the capacity row of a type. Entries that are new start nonbasic at 0 (columns)
or basic (rows); HiGHS repairs the count of basic variables (an "alien" basis).
"""

from __future__ import annotations

import numpy as np

from engine.errors import EngineError
from engine.policies.gavel.highs import Basis, HighsSolver
from engine.policies.gavel.lp import share_program

_LOWER, _BASIC = 0, 1  # HiGHS's kLower (nonbasic at the lower bound) and kBasic


def _carry(old_keys: np.ndarray, old: np.ndarray, keys: np.ndarray, default: int) -> np.ndarray:
    """Status of each key in ``keys`` (sorted) from the sorted ``old_keys``, else ``default``."""
    if old_keys.size == 0:
        return np.full(keys.size, default)
    at = np.minimum(np.searchsorted(old_keys, keys), old_keys.size - 1)
    return np.where(old_keys[at] == keys, old[at], default)


class WarmBasis:
    """The last optimal basis of a class LP, keyed by class labels and worker-type columns."""

    def __init__(self, num_types: int) -> None:
        self.num_types = num_types
        self._cols = np.zeros(0, dtype=np.int64)  # keys label * K + col, ascending
        self._col_status = np.zeros(0, dtype=np.int64)
        self._labels = np.zeros(0, dtype=np.int64)  # classes with fairness and time rows
        self._row_status = np.zeros((0, 2), dtype=np.int64)  # (fairness, time) per class
        self._t_status = _BASIC
        self._capacity_status = np.full(num_types, _BASIC)
        self.empty = True

    def start(self, labels: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> Basis:
        """(column statuses, row statuses) for the LP over classes ``labels`` (ascending) with
        share columns ``(labels[rows], cols)`` and ``t`` last; rows as in the LP module."""
        keys = labels[rows] * self.num_types + cols
        col_status = np.append(_carry(self._cols, self._col_status, keys, _LOWER), self._t_status)
        fairness = _carry(self._labels, self._row_status[:, 0], labels, _BASIC)
        time = _carry(self._labels, self._row_status[:, 1], labels, _BASIC)
        return col_status, np.concatenate([fairness, time, self._capacity_status])

    def keep(self, labels: np.ndarray, rows: np.ndarray, cols: np.ndarray, basis: Basis) -> None:
        """Remembers the optimal basis HiGHS returned for that LP."""
        col_status, row_status = basis
        nc = labels.size
        self._cols = labels[rows] * self.num_types + cols
        self._col_status, self._t_status = col_status[:-1], int(col_status[-1])
        self._labels = labels
        self._row_status = np.column_stack([row_status[:nc], row_status[nc : 2 * nc]])
        self._capacity_status = row_status[2 * nc :]
        self.empty = False


class ClassModel:
    """The class LP for fixed classes; :meth:`solve` takes their counts.

    Args:
        coefficients: (C, K) each class's coefficient row (0 where it does not fit).
        scale_factors: (C,) GPUs per job of each class.
        capacity: (K,) GPUs per worker type.
        epsilon: weight of the efficiency term.

    Attributes:
        live: (C,) bool, classes with a positive coefficient (the others get no share and no
            rows); rows, cols: (m,) class (among the live ones) and type of each share column.

    A solve writes the count-dependent entries and costs into the kept model HiGHS is passed
    (it copies the model, so the next solve may overwrite them).
    """

    def __init__(
        self,
        coefficients: np.ndarray,
        scale_factors: np.ndarray,
        capacity: np.ndarray,
        epsilon: float,
    ) -> None:
        self.num_classes, self.num_types = coefficients.shape
        self.epsilon = epsilon
        # ufunc reductions called directly: ndarray.max/all go through numpy's Python wrappers
        self.live = live = np.maximum.reduce(coefficients, axis=1) > 0
        self._all_live = all_live = bool(np.logical_and.reduce(live))
        live_coefficients = coefficients if all_live else coefficients[live]
        nc = self.nc = live_coefficients.shape[0]
        positive = live_coefficients > 0
        pairs: tuple[np.ndarray, ...] = positive.nonzero()
        self.rows, self.cols = rows, cols = pairs[0], pairs[1]
        m = self.m = rows.size
        self.values = live_coefficients[positive]  # row-major: = [rows, cols]
        classes = rows if all_live else live.nonzero()[0][rows]  # each column's, among all C
        self._col_classes = classes
        self._cells = classes * self.num_types + cols  # each column's cell of the (C, K) shares
        self._scale_factors = scale_factors[classes]
        # the kept model: a solve rewrites the capacity rows' count * GPUs and the costs
        self.model = share_program(
            self.values, rows, cols, self._scale_factors, nc, capacity, 0.0, level=True
        )
        self._count_entries = self.model.matrix.data[2 : 3 * m : 3]
        self._cost_entries = self.model.objective[:m]

    def solve(
        self,
        counts: np.ndarray,
        solver: HighsSolver,
        warm: tuple[WarmBasis, np.ndarray] | None = None,
    ) -> np.ndarray:
        """(C, K) shares in [0, 1] for ``counts`` (C,) jobs per class (positive); 0 for a
        class with no positive coefficient.

        Args:
            solver: the HiGHS instance to use.
            warm: the last basis and the (C,) class labels, to start from that basis and keep
                the new one.

        Raises:
            EngineError: if HiGHS finds the LP infeasible (it never is: all-zero shares fit).
        """
        if self.nc == 0:
            return np.zeros((self.num_classes, self.num_types))
        self._fill(counts)
        if warm is None:
            x = solver.solve(self.model)
        else:
            basis, labels = warm[0], warm[1][self.live]
            start = None if basis.empty else basis.start(labels, self.rows, self.cols)
            x = solver.solve(self.model, start, keep_basis=True)
            if solver.basis is not None:
                basis.keep(labels, self.rows, self.cols, solver.basis)
        if x is None:
            raise EngineError("Gavel LP is infeasible")
        shares = np.zeros(self.num_classes * self.num_types)
        shares[self._cells] = np.clip(x[: self.m], 0.0, 1.0)
        return shares.reshape(self.num_classes, self.num_types)

    def _fill(self, counts: np.ndarray) -> None:
        """Writes the capacity entries and costs of ``counts`` (C,) into the kept model."""
        col_counts = counts[self._col_classes]  # = live_counts[self.rows]
        np.multiply(col_counts, self._scale_factors, out=self._count_entries)
        # ufuncs called directly (ndarray.sum goes through numpy's Python wrapper), products
        # written in place: (-weight * count) * value
        total = np.add.reduce(counts if self._all_live else counts[self.live])
        weight = self.epsilon / float(total)  # (a numpy integer's division: ~10x slower)
        costs = self._cost_entries
        np.multiply(col_counts, -weight, out=costs)
        np.multiply(costs, self.values, out=costs)

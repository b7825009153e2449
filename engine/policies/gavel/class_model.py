"""The max-min class LP's arrays, built once per set of classes and filled per class counts.

The LP of :mod:`engine.policies.gavel.lp` over classes of identical jobs has one share column
per (class, worker type) where the class's coefficient is positive, plus ``t``; its rows are a
fairness and a time row per class and a capacity row per type. Which columns exist, and every
matrix entry but the capacity rows' ``count * scale_factor``, depend only on the classes: the
class counts change the capacity entries and the efficiency term's weights alone. A
:class:`ClassModel` holds the class-only arrays (in the forms HiGHS takes) and fills the count-
dependent ones per solve, so a solve whose class set was seen lately skips the rest of the build
(11,307 of the 16,714 solves of the full Philly trace under max-min, with 64 sets kept). The
arrays are the ones a fresh build gives, value for value, so HiGHS solves the very same model
(``test_policies_gavel_class_model.py``; all 16,714 models of that run compared, November 2026).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from engine.errors import EngineError
from engine.policies.gavel.highs import DATA, OBJECTIVE, Basis, CscMatrix, HighsSolver, model_arrays


class WarmBasis(Protocol):
    """What a warm start needs of the last basis (:class:`engine.policies.gavel.class_lp.WarmBasis`
    implements it; a protocol here keeps the two modules out of an import circle)."""

    empty: bool

    def start(self, labels: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> Basis: ...

    def keep(
        self, labels: np.ndarray, rows: np.ndarray, cols: np.ndarray, basis: Basis
    ) -> None: ...


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
        self.live = coefficients.max(axis=1) > 0
        self._all_live = bool(self.live.all())
        live_coefficients = coefficients[self.live]
        nc = self.nc = live_coefficients.shape[0]
        self.rows, self.cols = np.nonzero(live_coefficients > 0)
        m = self.m = self.rows.size
        self.values = live_coefficients[self.rows, self.cols]
        self._cells = np.flatnonzero(self.live)[self.rows] * self.num_types + self.cols
        self._scale_factors = scale_factors[self.live][self.rows]  # of each column's class
        # CSC by hand: share column (i, k) has -c in fairness row i, 1 in time row nc + i and
        # the class's GPUs in capacity row 2 nc + k; the last column (t) has 1 in every
        # fairness row.
        indptr = np.append(np.arange(0, 3 * m + 1, 3), 3 * m + nc)
        entries = np.column_stack([self.rows, nc + self.rows, 2 * nc + self.cols]).ravel()
        indices = np.concatenate([entries, np.arange(nc)])
        self.indptr, self.indices = indptr.astype(np.int32), indices.astype(np.int32)  # HiGHS's
        self._data = np.concatenate(
            [np.column_stack([-self.values, np.ones(m), np.zeros(m)]).ravel(), np.ones(nc)]
        )
        self.num_rows = 2 * nc + self.num_types
        self.b_ub = np.concatenate([np.zeros(nc), np.ones(nc), capacity.astype(float)])
        self.upper = np.append(np.ones(m), np.inf)
        self._arrays: list[Any] | None = None  # HiGHS's form, costs and entries to replace
        if m:
            matrix = CscMatrix(self.indptr, self.indices, self._data, self.num_rows)
            self._arrays = model_arrays(np.zeros(m + 1), matrix, self.b_ub, self.upper)

    def data(self, live_counts: np.ndarray) -> np.ndarray:
        """(3 m + nc,) the matrix entries, CSC order, for ``live_counts`` (nc,) jobs per class."""
        data = self._data.copy()
        data[2 : 3 * self.m : 3] = live_counts[self.rows] * self._scale_factors
        return data

    def objective(self, live_counts: np.ndarray) -> np.ndarray:
        """(m + 1,) the costs (minimized): ``-t`` and the efficiency term's share weights."""
        weight = self.epsilon / live_counts.sum()
        objective = np.empty(self.m + 1)
        np.multiply(-weight * live_counts[self.rows], self.values, out=objective[: self.m])
        objective[self.m] = -1.0
        return objective

    def solve(
        self,
        counts: np.ndarray,
        solver: HighsSolver,
        warm: tuple[WarmBasis, np.ndarray] | None = None,
    ) -> np.ndarray:
        """(C, K) shares in [0, 1] for ``counts`` (C,) jobs per class (positive); 0 for a
        class with no positive coefficient. ``warm``: the last basis and the (C,) class labels
        (see :func:`engine.policies.gavel.lp.solve_classes`).

        Raises:
            EngineError: if HiGHS finds the LP infeasible (it never is: all-zero shares fit).
        """
        shares = np.zeros(self.num_classes * self.num_types)
        if self.nc == 0:
            return shares.reshape(self.num_classes, self.num_types)
        live_counts = counts if self._all_live else counts[self.live]
        data, objective = self.data(live_counts), self.objective(live_counts)
        matrix = CscMatrix(self.indptr, self.indices, data, self.num_rows)
        arrays = None
        if self._arrays is not None:  # only the costs and the entries change
            arrays = self._arrays.copy()
            arrays[OBJECTIVE], arrays[DATA] = objective, data
        if warm is None:
            x = solver.solve(objective, matrix, self.b_ub, self.upper, arrays=arrays)
        else:
            basis, labels = warm[0], warm[1][self.live]
            start = None if basis.empty else basis.start(labels, self.rows, self.cols)
            x = solver.solve(objective, matrix, self.b_ub, self.upper, start, True, arrays)
            if solver.basis is not None:
                basis.keep(labels, self.rows, self.cols, solver.basis)
        if x is None:
            raise EngineError("Gavel LP is infeasible")
        shares[self._cells] = np.clip(x[: self.m], 0.0, 1.0)
        return shares.reshape(self.num_classes, self.num_types)

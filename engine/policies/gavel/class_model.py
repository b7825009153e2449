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

import math
import struct
from collections.abc import Callable
from typing import Protocol, cast

import numpy as np

from engine.errors import EngineError
from engine.policies.gavel.highs import Basis, CscMatrix, HighsSolver, LinearProgram


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

    A solve writes the count-dependent entries and costs into the kept arrays HiGHS is passed
    (it copies the model, so the next solve may overwrite them) and reads HiGHS's ``x`` as the
    list it comes as; at these sizes (a few hundred columns) each numpy call or list-to-array
    conversion saved counts (issue 11).
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
        self._cell_list: list[int] = self._cells.tolist()
        self._scale_factors = scale_factors[classes]
        self._pack_shares = _packer(self.num_classes * self.num_types)
        # CSC by hand: share column (i, k) has -c in fairness row i, 1 in time row nc + i and
        # the class's GPUs (times the count, per solve) in capacity row 2 nc + k; the last
        # column (t) has 1 in every fairness row.
        size = 3 * m + nc
        self.indptr = np.arange(0, 3 * m + 4, 3, dtype=np.int32)  # HiGHS's int32
        self.indptr[m + 1] = size
        self.indices = np.empty(size, dtype=np.int32)
        self.indices[3 * m :] = np.arange(nc)
        column_rows = self.indices[: 3 * m].reshape(m, 3)
        column_rows[:, 0] = rows
        column_rows[:, 1] = rows + nc
        column_rows[:, 2] = cols + 2 * nc
        self._data = np.ones(size)
        np.negative(self.values, out=self._data[0 : 3 * m : 3])
        self.num_rows = 2 * nc + self.num_types
        self.b_ub = np.ones(self.num_rows)
        self.b_ub[:nc] = 0.0
        self.b_ub[2 * nc :] = capacity
        self.upper = np.ones(m + 1)
        self.upper[m] = math.inf
        self._costs = np.empty(m + 1)
        self._costs[m] = -1.0  # -t
        self.model = LinearProgram(  # the kept buffers: a solve rewrites costs and entries
            self._costs, CscMatrix(self.indptr, self.indices, self._data, self.num_rows),
            self.b_ub, self.upper,
        )  # fmt: skip
        self._count_entries = self._data[2 : 3 * m : 3]  # capacity rows: count * GPUs
        self._cost_entries = self._costs[:m]

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
        if self.nc == 0:
            return np.zeros((self.num_classes, self.num_types))
        if warm is not None:
            return self._solve_arrays(counts, solver, warm)
        self._fill(counts)
        x = solver.solve(self.model)
        if x is None:
            raise EngineError("Gavel LP is infeasible")
        return self._shares(x.tolist())

    def _fill(self, counts: np.ndarray) -> None:
        """Writes the entries and costs of ``counts`` (C,) into the kept model: what
        :meth:`data` and :meth:`objective` give, computed the same way."""
        col_counts = counts[self._col_classes]  # = live_counts[self.rows]
        np.multiply(col_counts, self._scale_factors, out=self._count_entries)
        # ufuncs called directly (ndarray.sum goes through numpy's Python wrapper), products
        # written in place: (-weight * count) * value, in objective's order
        total = np.add.reduce(counts if self._all_live else counts[self.live])
        weight = self.epsilon / float(total)  # (a numpy integer's division: ~10x slower)
        costs = self._cost_entries
        np.multiply(col_counts, -weight, out=costs)
        np.multiply(costs, self.values, out=costs)

    def _shares(self, values: list[float]) -> np.ndarray:
        """(C, K) the share columns of HiGHS's ``values`` (m + 1,) clipped to [0, 1] as
        ``np.clip`` does (-0.0 and NaN pass through), 0 in every other cell; packed into the
        array with :mod:`struct` (converting a list of floats with numpy costs ~3x more). The
        values are moved as objects, boxed anew only when one is out of bounds (rare: a basic
        variable within HiGHS's feasibility tolerance)."""
        m = self.m
        for j in range(m):
            value = values[j]
            if value < 0.0 or value > 1.0:
                values = [_clip(values[i]) for i in range(m)]
                break
        objects = cast(list[object], values)  # (no unboxing: the float objects as they are)
        shares: list[object] = [0.0] * (self.num_classes * self.num_types)
        cells = self._cell_list
        for j in range(m):
            shares[cells[j]] = objects[j]
        array = np.empty((self.num_classes, self.num_types))
        self._pack_shares(array, 0, *shares)
        return array

    def _solve_arrays(
        self,
        counts: np.ndarray,
        solver: HighsSolver,
        warm: tuple[WarmBasis, np.ndarray] | None,
    ) -> np.ndarray:
        """:meth:`solve` on the LP built anew (:meth:`data`, :meth:`objective`), shares clipped
        with numpy: with a warm start (``warm``), else the plain form of :meth:`solve`."""
        shares = np.zeros(self.num_classes * self.num_types)
        live_counts = counts if self._all_live else counts[self.live]
        data, objective = self.data(live_counts), self.objective(live_counts)
        matrix = CscMatrix(self.indptr, self.indices, data, self.num_rows)
        model = LinearProgram(objective, matrix, self.b_ub, self.upper)
        if warm is None:
            x = solver.solve(model)
        else:
            basis, labels = warm[0], warm[1][self.live]
            start = None if basis.empty else basis.start(labels, self.rows, self.cols)
            x = solver.solve(model, start, keep_basis=True)
            if solver.basis is not None:
                basis.keep(labels, self.rows, self.cols, solver.basis)
        if x is None:
            raise EngineError("Gavel LP is infeasible")
        shares[self._cells] = np.clip(x[: self.m], 0.0, 1.0)
        return shares.reshape(self.num_classes, self.num_types)


def _clip(value: float) -> float:
    """``value`` clipped to [0, 1] as ``np.clip`` does: -0.0 and NaN pass through."""
    if value < 0.0:
        return 0.0
    if value > 1.0:
        return 1.0
    return value


_PACKERS: dict[int, Callable[..., None]] = {}


def _packer(size: int) -> Callable[..., None]:
    """``struct.Struct(f"{size}d").pack_into``, one per size (a format is parsed once)."""
    pack = _PACKERS.get(size)
    if pack is None:
        pack = _PACKERS[size] = struct.Struct(f"{size}d").pack_into
    return pack

"""HiGHS, the LP solver behind every Gavel policy here, called directly through scipy's bindings.

HiGHS is the solver of ``scipy.optimize.linprog(method="highs")`` (Huangfu and Hall, "Parallelizing
the dual revised simplex method", Math. Prog. Comp. 2018). :class:`HighsSolver` passes a whole
model per call to one kept instance, skipping linprog's per-call checks and packing; it falls back
to ``linprog`` when scipy's private bindings are missing or changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from engine.errors import EngineError

Basis = tuple[np.ndarray, np.ndarray]  # HiGHS status numbers of the columns and of the rows

# What _solve_direct returns when HiGHS reports the LP infeasible. Before, such a probe was solved
# a second time through linprog (with presolve), which always agreed: 4,533 infeasible probes of
# the min-total-duration policies on the 2,000-job sample, none feasible for linprog (issue 11).
_INFEASIBLE = np.zeros(0)

try:  # the HiGHS bindings scipy bundles (private API, hence the guard and the fallback)
    from scipy.optimize._highspy import _core as _highs
except ImportError:  # pragma: no cover - older or newer scipy layouts
    _highs = None
else:
    _COLWISE = int(_highs.MatrixFormat.kColwise)
    _MINIMIZE = int(_highs.ObjSense.kMinimize)
    _OPTIMAL = _highs.HighsModelStatus.kOptimal
    _INFEASIBLE_STATUS = _highs.HighsModelStatus.kInfeasible

_INFEASIBLE_VALUES: list[float] = []  # what _run returns when HiGHS reports the LP infeasible

HIGHS_FORMAT: tuple[int, int, float] | None = (
    None if _highs is None else (_COLWISE, _MINIMIZE, float(_highs.kHighsInf))
)
"""passModel's column-wise format and minimize sense codes, and HiGHS's infinity, as
:func:`model_arrays` uses them (None without the bindings)."""


@dataclass(frozen=True)
class CscMatrix:
    """A sparse matrix as its compressed-column arrays (what HiGHS takes), with its row count."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    num_rows: int

    @classmethod
    def of(cls, matrix: sp.csc_matrix) -> CscMatrix:
        return cls(matrix.indptr, matrix.indices, matrix.data, matrix.shape[0])

    def to_scipy(self) -> sp.csc_matrix:
        return sp.csc_matrix(
            (self.data, self.indices, self.indptr), shape=(self.num_rows, self.indptr.size - 1)
        )


class HighsSolver:
    """``min objective @ x`` s.t. ``A @ x <= b_ub``, ``0 <= x <= upper``, with HiGHS.

    Same solver as ``linprog(method="highs")``, called through scipy's bundled HiGHS bindings
    when they are importable, with one HiGHS instance kept across calls: that skips linprog's
    input checking and result packing and HiGHS's set-up (together about 3 ms per call), which
    adds up over the ~18,000 solves of a 109-day trace. Each call passes a whole new model, so
    nothing of the previous solve (basis, factorization) carries over and the result is the
    one a fresh instance gives. An LP HiGHS reports infeasible gives None at once; falls back
    to ``linprog`` if the bindings are missing, changed, or report neither an optimum nor
    infeasibility. Not thread-safe: one solver per policy instance.
    """

    def __init__(self) -> None:
        self._instance: Any = None  # a scipy _highspy._core._Highs, made at the first call
        self.basis: Basis | None = None

    def solve(
        self,
        objective: np.ndarray,
        matrix: CscMatrix,
        b_ub: np.ndarray,
        upper: np.ndarray,
        start: Basis | None = None,
        keep_basis: bool = False,
        arrays: list[Any] | None = None,
    ) -> np.ndarray | None:
        """The optimal ``x``, or None when the LP is infeasible.

        Args:
            start: (column statuses, row statuses) as HiGHS numbers them (0 nonbasic at the
                lower bound, 1 basic, ...) to start the simplex from, else the slack basis.
            keep_basis: store the optimal basis in :attr:`basis` (None if not available).
            arrays: :func:`model_arrays` of the same LP, made by the caller (e.g. with the
                parts that stay the same across solves kept).

        Raises:
            EngineError: if HiGHS fails for another reason than infeasibility.
        """
        self.basis = None
        if _highs is not None:
            try:
                x = self._solve_direct(objective, matrix, b_ub, upper, start, keep_basis, arrays)
            except (AttributeError, TypeError, ValueError):
                x = None
            if x is _INFEASIBLE:  # HiGHS proved it: linprog would only say so again
                return None
            if x is not None:
                return x
        return _linprog(objective, matrix, b_ub, upper)

    def solve_values(self, arrays: list[Any]) -> list[float] | None:
        """The optimal ``x`` as HiGHS hands it out (a list: no array built), or None when the
        LP is infeasible; the LP as :func:`model_arrays` gives it. Falls back to ``linprog``
        like :meth:`solve`.

        Raises:
            EngineError: if HiGHS fails for another reason than infeasibility.
        """
        self.basis = None
        if _highs is not None:
            try:
                values = self._run(arrays)
            except (AttributeError, TypeError, ValueError):
                values = None
            if values is _INFEASIBLE_VALUES:
                return None
            if values is not None:
                return values
        matrix = CscMatrix(arrays[11], arrays[12], arrays[DATA], arrays[1])
        x = _linprog(arrays[OBJECTIVE], matrix, arrays[10], arrays[8])  # (HiGHS was just tried)
        return None if x is None else list(x.tolist())

    def _run(self, arrays: list[Any], start: Basis | None = None) -> list[float] | None:
        """Passes the LP (:func:`model_arrays`) to the kept instance and solves it: HiGHS's
        ``x`` on an optimum, :data:`_INFEASIBLE_VALUES` if infeasible, else None."""
        assert _highs is not None
        solver = self._instance
        if solver is None:
            solver = _highs._Highs()
            solver.setOptionValue("output_flag", False)
            solver.setOptionValue("presolve", "off")  # tiny LPs: presolve costs more than it saves
            self._instance = solver
        solver.passModel(*arrays)
        if start is not None:
            solver.setBasis(_highs_basis(start))
        solver.run()
        status = solver.getModelStatus()
        if status == _OPTIMAL:  # (each comparison of HiGHS's enums is a call)
            values: list[float] = solver.getSolution().col_value
            return values
        if status == _INFEASIBLE_STATUS:
            return _INFEASIBLE_VALUES
        return None

    def _solve_direct(
        self,
        objective: np.ndarray,
        matrix: CscMatrix,
        b_ub: np.ndarray,
        upper: np.ndarray,
        start: Basis | None,
        keep_basis: bool,
        arrays: list[Any] | None = None,
    ) -> np.ndarray | None:
        """The LP through ``scipy.optimize._highspy._core``: ``x`` if HiGHS reports an optimum,
        :data:`_INFEASIBLE` if it reports the LP infeasible, else None (then ``linprog`` tries).
        ``arrays``: :func:`model_arrays` of this LP, if the caller has them."""
        model = arrays or model_arrays(objective, matrix, b_ub, upper)
        assert model is not None
        values = self._run(model, start)
        if values is None:
            return None
        if values is _INFEASIBLE_VALUES:
            return _INFEASIBLE
        if keep_basis:
            assert self._instance is not None
            basis = self._instance.getBasis()
            self.basis = (
                np.array([int(status) for status in basis.col_status]),
                np.array([int(status) for status in basis.row_status]),
            )
        return np.array(values, dtype=np.float64)


def _linprog(
    objective: np.ndarray, matrix: CscMatrix, b_ub: np.ndarray, upper: np.ndarray
) -> np.ndarray | None:
    """The LP of :meth:`HighsSolver.solve` through ``scipy.optimize.linprog`` (the fallback
    when scipy's HiGHS bindings are missing or fail): ``x``, or None when infeasible.

    Raises:
        EngineError: if linprog reports neither an optimum nor infeasibility.
    """
    bounds = np.column_stack([np.zeros_like(upper), upper])
    result = linprog(objective, A_ub=matrix.to_scipy(), b_ub=b_ub, bounds=bounds, method="highs")
    if result.status == 2:  # infeasible
        return None
    if result.status != 0:
        raise EngineError(f"Gavel LP failed: {result.message}")
    return np.asarray(result.x)


def model_arrays(
    objective: np.ndarray, matrix: CscMatrix, b_ub: np.ndarray, upper: np.ndarray
) -> list[Any] | None:
    """passModel's array form of the LP (numpy buffers, no per-element conversion); the
    objective is item :data:`OBJECTIVE`, the matrix entries item :data:`DATA`. None without
    the bindings (then :class:`HighsSolver` goes through ``linprog``)."""
    if _highs is None:
        return None
    num_rows, num_cols, infinity = matrix.num_rows, objective.size, _highs.kHighsInf
    return [
        num_cols,
        num_rows,
        matrix.data.size,
        _COLWISE,
        _MINIMIZE,
        0.0,  # objective offset
        np.ascontiguousarray(objective, dtype=np.float64),
        np.zeros(num_cols),
        np.where(np.isinf(upper), infinity, upper).astype(np.float64),
        np.full(num_rows, -infinity),
        np.ascontiguousarray(b_ub, dtype=np.float64),
        np.ascontiguousarray(matrix.indptr, dtype=np.int32),
        np.ascontiguousarray(matrix.indices, dtype=np.int32),
        np.ascontiguousarray(matrix.data, dtype=np.float64),
        np.zeros(num_cols, dtype=np.int32),  # integrality: every column continuous
    ]


OBJECTIVE, DATA = 6, 13  # where model_arrays puts the costs and the matrix entries


def _highs_basis(start: Basis) -> Any:
    """A HiGHS basis from status numbers, marked "alien" so HiGHS fixes the basic count."""
    assert _highs is not None
    statuses = [_highs.HighsBasisStatus(value) for value in range(5)]
    basis = _highs.HighsBasis()
    basis.col_status = [statuses[value] for value in start[0].tolist()]
    basis.row_status = [statuses[value] for value in start[1].tolist()]
    basis.alien = True
    basis.valid = True
    return basis


def solve_lp(
    objective: np.ndarray, a_ub: sp.csc_matrix, b_ub: np.ndarray, upper: np.ndarray
) -> np.ndarray:
    """``min objective @ x`` s.t. ``a_ub @ x <= b_ub``, ``0 <= x <= upper``, with HiGHS
    (:class:`HighsSolver`, a fresh instance).

    Raises:
        EngineError: if the LP is infeasible or HiGHS fails.
    """
    x = solve_lp_if_feasible(objective, a_ub, b_ub, upper)
    if x is None:
        raise EngineError("Gavel LP is infeasible")
    return x


def solve_lp_if_feasible(
    objective: np.ndarray,
    a_ub: sp.csc_matrix,
    b_ub: np.ndarray,
    upper: np.ndarray,
    solver: HighsSolver | None = None,
) -> np.ndarray | None:
    """Like :func:`solve_lp`, but None when the LP is infeasible (for feasibility searches);
    ``solver`` reuses a HiGHS instance across calls.

    Raises:
        EngineError: if HiGHS fails for another reason than infeasibility.
    """
    return (solver or HighsSolver()).solve(objective, CscMatrix.of(a_ub), b_ub, upper)

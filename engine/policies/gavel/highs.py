"""HiGHS, the LP solver behind every Gavel policy here: one entry, ``HighsSolver.solve(model)``.

HiGHS is the solver of ``scipy.optimize.linprog(method="highs")`` (Huangfu and Hall, "Parallelizing
the dual revised simplex method", Math. Prog. Comp. 2018). A :class:`LinearProgram` names its
parts; :meth:`HighsSolver.solve` passes it to one kept HiGHS instance through the HiGHS bindings
scipy bundles (``Highs.passModel``, ``run``, ``getSolution``: the calls of highspy's public
``Highs`` class), skipping linprog's per-call checks and packing (about 3 ms a call, which adds
up over the ~18,000 solves of a 109-day trace). Those bindings sit in a private scipy module, so
:meth:`HighsSolver.solve` falls back to the public ``scipy.optimize.linprog`` when they are
missing or changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from engine.errors import EngineError

Basis = tuple[np.ndarray, np.ndarray]  # HiGHS status numbers of the columns and of the rows

try:  # the HiGHS bindings scipy bundles (a private module, hence the guard and the fallback)
    from scipy.optimize._highspy import _core as _highs
except ImportError:  # pragma: no cover - older or newer scipy layouts
    _highs = None

# What _run returns when HiGHS reports the LP infeasible. Before, such a probe was solved a second
# time through linprog (with presolve), which always agreed: 4,533 infeasible probes of the
# min-total-duration policies on the 2,000-job sample, none feasible for linprog (issue 11).
_INFEASIBLE: list[float] = []


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


@dataclass(frozen=True)
class LinearProgram:
    """``min objective @ x`` s.t. ``matrix @ x <= b_ub``, ``0 <= x <= upper``.

    Attributes:
        objective: (n,) costs; upper: (n,) upper bounds (``inf`` allowed).
        matrix: (rows, n) constraint matrix; b_ub: (rows,) right-hand sides.

    The arrays may be buffers the caller rewrites between solves (the class LP keeps one model
    and rewrites its costs and entries): each solve reads them as they are then.
    """

    objective: np.ndarray
    matrix: CscMatrix
    b_ub: np.ndarray
    upper: np.ndarray


class HighsSolver:
    """Solves :class:`LinearProgram` s with one kept HiGHS instance (module docstring).

    Each call passes a whole model, so nothing of the previous solve (basis, factorization)
    carries over unless a ``start`` basis is given: the result is the one a fresh instance
    gives. Not thread-safe: one solver per policy instance.
    """

    def __init__(self) -> None:
        self._instance: Any = None  # a HiGHS instance, made at the first call
        self.basis: Basis | None = None

    def solve(
        self, model: LinearProgram, start: Basis | None = None, keep_basis: bool = False
    ) -> np.ndarray | None:
        """The optimal ``x`` (n,), or None when HiGHS reports the LP infeasible.

        Args:
            start: (column statuses, row statuses) as HiGHS numbers them (0 nonbasic at the
                lower bound, 1 basic, ...) to start the simplex from, else the slack basis.
            keep_basis: store the optimal basis in :attr:`basis` (None if not available).

        Raises:
            EngineError: if the LP has neither an optimum nor is infeasible, or HiGHS fails.
        """
        self.basis = None
        if _highs is not None:
            try:
                values = self._run(model, start)
            except (AttributeError, TypeError, ValueError):
                values = None  # the bindings changed: linprog below
            if values is _INFEASIBLE:  # HiGHS proved it: linprog would only say so again
                return None
            if values is not None:
                if keep_basis:
                    basis = self._instance.getBasis()
                    self.basis = (
                        np.array([int(status) for status in basis.col_status]),
                        np.array([int(status) for status in basis.row_status]),
                    )
                return np.array(values, dtype=np.float64)
        return _linprog(model)

    def _run(self, model: LinearProgram, start: Basis | None) -> list[float] | None:
        """Passes ``model`` to the kept instance and solves it: HiGHS's ``x`` on an optimum,
        :data:`_INFEASIBLE` if infeasible, else None."""
        assert _highs is not None
        solver = self._instance
        if solver is None:
            solver = _highs._Highs()
            solver.setOptionValue("output_flag", False)
            solver.setOptionValue("presolve", "off")  # tiny LPs: presolve costs more than it saves
            self._instance = solver
        matrix, infinity = model.matrix, _highs.kHighsInf
        num_cols = model.objective.size
        solver.passModel(
            num_cols,
            matrix.num_rows,
            matrix.data.size,
            int(_highs.MatrixFormat.kColwise),
            int(_highs.ObjSense.kMinimize),
            0.0,  # objective offset
            np.ascontiguousarray(model.objective, dtype=np.float64),
            np.zeros(num_cols),
            np.where(np.isinf(model.upper), infinity, model.upper).astype(np.float64),
            np.full(matrix.num_rows, -infinity),
            np.ascontiguousarray(model.b_ub, dtype=np.float64),
            np.ascontiguousarray(matrix.indptr, dtype=np.int32),
            np.ascontiguousarray(matrix.indices, dtype=np.int32),
            np.ascontiguousarray(matrix.data, dtype=np.float64),
            np.zeros(num_cols, dtype=np.int32),  # integrality: every column continuous
        )
        if start is not None:
            solver.setBasis(_highs_basis(start))
        solver.run()
        status = solver.getModelStatus()
        if status == _highs.HighsModelStatus.kOptimal:
            values: list[float] = solver.getSolution().col_value
            return values
        if status == _highs.HighsModelStatus.kInfeasible:
            return _INFEASIBLE
        return None


def _linprog(model: LinearProgram) -> np.ndarray | None:
    """``model`` through ``scipy.optimize.linprog`` (the fallback when scipy's HiGHS bindings
    are missing or fail): ``x``, or None when infeasible.

    Raises:
        EngineError: if linprog reports neither an optimum nor infeasibility.
    """
    bounds = np.column_stack([np.zeros_like(model.upper), model.upper])
    result = linprog(
        model.objective, A_ub=model.matrix.to_scipy(), b_ub=model.b_ub, bounds=bounds,
        method="highs",
    )  # fmt: skip
    if result.status == 2:  # infeasible
        return None
    if result.status != 0:
        raise EngineError(f"Gavel LP failed: {result.message}")
    return np.asarray(result.x)


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

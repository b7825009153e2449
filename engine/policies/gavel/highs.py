"""HiGHS, the LP solver behind every Gavel policy here: one entry, ``HighsSolver.solve(model)``.

HiGHS solves the LPs by the dual revised simplex method (Huangfu and Hall, "Parallelizing the
dual revised simplex method", Math. Prog. Comp. 10, 2018); it is also the solver of
``scipy.optimize.linprog(method="highs")``. A :class:`LinearProgram` names its parts;
:meth:`HighsSolver.solve` passes it to a kept instance of ``highspy.Highs``, the Python API
HiGHS's authors maintain (https://ergo-code.github.io/HiGHS/stable/interfaces/python/):
``passModel``, ``run``, ``getModelStatus``, ``getSolution``, and ``setBasis`` / ``getBasis`` for a
warm start. Passing the arrays directly skips linprog's per-call checks and packing (about 3 ms
a call, which adds up over the ~18,000 solves of a 109-day trace). highspy is pinned to the HiGHS
release scipy bundles (pyproject.toml). Options: output off; presolve off, and on for the rare
LP that ends without a verdict (:meth:`HighsSolver.solve`); every other one (tolerances,
threads, simplex strategy) at HiGHS's default, as linprog leaves them. So a solve gives the
``x`` linprog gives (``tests/engine/test_gavel_highs.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import highspy
import numpy as np

from engine.errors import EngineError

Basis = tuple[np.ndarray, np.ndarray]  # HiGHS status numbers of the columns and of the rows

_STATUSES: list[Any] = [highspy.HighsBasisStatus(value) for value in range(5)]
"""HiGHS's basis statuses by number: 0 nonbasic at the lower bound, 1 basic, 2 at the upper
bound, 3 zero (free), 4 nonbasic."""


@dataclass(frozen=True)
class CscMatrix:
    """A sparse matrix as its compressed-column arrays (what HiGHS takes), with its row count.

    Attributes:
        indptr: (n + 1,) where each column's entries start; indices: (nnz,) their rows;
        data: (nnz,) their values; num_rows: the row count.
    """

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    num_rows: int


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
    """Solves :class:`LinearProgram` s with kept HiGHS instances (module docstring).

    Each call passes a whole model, so nothing of the previous solve (basis, factorization)
    carries over unless a ``start`` basis is given: the result is the one a fresh instance
    gives. Not thread-safe: one solver per policy instance.
    """

    def __init__(self) -> None:
        self._instances: list[Any] = [None, None]  # highspy.Highs without, with presolve
        self.basis: Basis | None = None

    def solve(
        self, model: LinearProgram, start: Basis | None = None, keep_basis: bool = False
    ) -> np.ndarray | None:
        """The optimal ``x`` (n,), or None when HiGHS proves the LP infeasible.

        HiGHS solves ``model`` without presolve (tiny LPs: presolve costs more than it saves).
        When that stops short of a verdict (status "unknown": the scaled LP is optimal but
        the unscaled solution keeps dual infeasibilities; 4 of the 3,060 LPs the Gavel LP
        policies solve on the first 1,500 jobs of the default trace, November 2026), it
        solves ``model`` again from scratch with presolve, which is how
        ``scipy.optimize.linprog(method="highs")`` solves it: the same ``x``, bit for bit, on
        all 3,060 [R].

        Args:
            start: (column statuses, row statuses) as HiGHS numbers them (0 nonbasic at the
                lower bound, 1 basic, ...) to start the simplex from, else the slack basis.
            keep_basis: store the optimal basis in :attr:`basis`; None when the solve without
                presolve found no optimum (the presolved solve keeps none).

        Raises:
            EngineError: if HiGHS rejects the model or, with presolve too, reports neither
                an optimum nor infeasibility (an LP without columns, an unbounded one).
        """
        self.basis = None
        solver = self._highs(presolve=False)
        status = _run(solver, model, start)
        if status == highspy.HighsModelStatus.kOptimal and keep_basis:
            basis = solver.getBasis()
            self.basis = (
                np.array([int(value) for value in basis.col_status]),
                np.array([int(value) for value in basis.row_status]),
            )
        elif status not in (
            highspy.HighsModelStatus.kOptimal,
            highspy.HighsModelStatus.kInfeasible,
        ):
            solver = self._highs(presolve=True)
            status = _run(solver, model, None)
        if status == highspy.HighsModelStatus.kInfeasible:
            return None
        if status != highspy.HighsModelStatus.kOptimal:
            raise EngineError(
                f"Gavel LP failed: HiGHS reports {solver.modelStatusToString(status)}"
            )
        return np.array(solver.getSolution().col_value, dtype=np.float64)

    def _highs(self, presolve: bool) -> Any:
        """The kept ``highspy.Highs`` with presolve on or off, made at its first use: output
        off, every other option at HiGHS's default."""
        solver = self._instances[presolve]
        if solver is None:
            solver = highspy.Highs()
            solver.setOptionValue("output_flag", False)
            solver.setOptionValue("presolve", "on" if presolve else "off")
            self._instances[presolve] = solver
        return solver


def _run(solver: Any, model: LinearProgram, start: Basis | None) -> Any:
    """Passes ``model`` to ``solver`` (replacing its model, basis and solution), sets the
    ``start`` basis if any, solves, and gives HiGHS's model status.

    Raises:
        EngineError: if HiGHS rejects the model.
    """
    matrix, infinity = model.matrix, highspy.kHighsInf
    num_cols = model.objective.size
    passed = solver.passModel(
        num_cols,
        matrix.num_rows,
        matrix.data.size,
        int(highspy.MatrixFormat.kColwise),
        int(highspy.ObjSense.kMinimize),
        0.0,  # objective offset
        np.ascontiguousarray(model.objective, dtype=np.float64),
        np.zeros(num_cols),
        np.ascontiguousarray(model.upper, dtype=np.float64),  # inf is HiGHS's infinity
        np.full(matrix.num_rows, -infinity),
        np.ascontiguousarray(model.b_ub, dtype=np.float64),
        np.ascontiguousarray(matrix.indptr, dtype=np.int32),
        np.ascontiguousarray(matrix.indices, dtype=np.int32),
        np.ascontiguousarray(matrix.data, dtype=np.float64),
        np.zeros(num_cols, dtype=np.int32),  # integrality: every column continuous
    )
    if passed == highspy.HighsStatus.kError:
        raise EngineError(f"Gavel LP rejected by HiGHS ({num_cols} columns)")
    if start is not None:
        solver.setBasis(_highs_basis(start))
    solver.run()
    return solver.getModelStatus()


def _highs_basis(start: Basis) -> Any:
    """A HiGHS basis from status numbers, marked "alien" so HiGHS fixes the basic count."""
    basis = highspy.HighsBasis()
    basis.col_status = [_STATUSES[value] for value in start[0].tolist()]
    basis.row_status = [_STATUSES[value] for value in start[1].tolist()]
    basis.alien = True
    basis.valid = True
    return basis

"""HiGHS through highspy (engine/policies/gavel/highs.py): linprog's optimum, infeasibility as
None, the presolved second solve, failures as EngineError, and the warm-start basis round trip."""

from __future__ import annotations

import highspy
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

from engine.errors import EngineError
from engine.policies.gavel.highs import CscMatrix, HighsSolver, LinearProgram, _run
from engine.policies.gavel.lp import max_min_coefficients


def _program(
    objective: np.ndarray, a_ub: np.ndarray, b_ub: np.ndarray, upper: np.ndarray
) -> LinearProgram:
    matrix = sp.csc_matrix(a_ub)
    csc = CscMatrix(matrix.indptr, matrix.indices, matrix.data, a_ub.shape[0])
    return LinearProgram(objective, csc, b_ub, upper)


def _max_min_lp(aware: bool, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Gavel's max-min LP with one share row per job (Narayanan et al., OSDI 2020, eq. 1):
    maximize t s.t. t <= coefficients[j] @ x[j], sum_k x[j, k] <= 1, sum_j sf_j x[j, k] <= c_k."""
    rng = np.random.default_rng(seed)
    n, capacity = 25, np.array([6.0, 6.0, 4.0])
    tput = rng.uniform(0.5, 4.0, (n, 3))
    tput[rng.random((n, 3)) < 0.1] = 0.0
    sfs = rng.choice([1.0, 2.0], n)
    coefficients = max_min_coefficients(tput, sfs, np.ones(n), capacity, aware)
    k = capacity.size
    fair = np.zeros((n, n * k + 1))
    for j in range(n):
        fair[j, j * k : (j + 1) * k] = -coefficients[j]
        fair[j, -1] = 1.0
    time_rows = np.hstack([np.kron(np.eye(n), np.ones((1, k))), np.zeros((n, 1))])
    cap_rows = np.hstack([np.kron(sfs.reshape(1, n), np.eye(k)), np.zeros((k, 1))])
    a_ub = np.vstack([fair, time_rows, cap_rows])
    b_ub = np.concatenate([np.zeros(n), np.ones(n), capacity])
    upper = np.append(np.where(coefficients.ravel() > 0, 1.0, 0.0), np.inf)
    objective = np.zeros(n * k + 1)
    objective[-1] = -1.0
    return objective, a_ub, b_ub, upper


@pytest.mark.parametrize("aware", [True, False])
@pytest.mark.parametrize("seed", [11, 12])
def test_solve_reaches_linprogs_optimum(aware: bool, seed: int) -> None:
    """The same LP through highspy and through ``scipy.optimize.linprog``: the same optimum
    value, and a feasible x."""
    objective, a_ub, b_ub, upper = _max_min_lp(aware, seed)
    x = HighsSolver().solve(_program(objective, a_ub, b_ub, upper))
    assert x is not None and x.shape == objective.shape
    bounds = np.column_stack([np.zeros_like(upper), upper])
    reference = linprog(objective, A_ub=a_ub, b_ub=b_ub, bounds=bounds, method="highs")
    assert reference.status == 0
    assert objective @ x == pytest.approx(reference.fun, rel=1e-9)
    assert np.all(a_ub @ x <= b_ub + 1e-7)
    assert np.all((x >= -1e-9) & (x <= upper + 1e-9))


def test_hand_derived_optimum() -> None:
    """max x0 + 2 x1 s.t. x0 + x1 <= 1.5, x1 <= 1 (upper bound), x0 <= 1: x = (0.5, 1)."""
    program = _program(
        np.array([-1.0, -2.0]), np.array([[1.0, 1.0]]), np.array([1.5]), np.array([1.0, 1.0])
    )
    x = HighsSolver().solve(program)
    assert x is not None and x.tolist() == pytest.approx([0.5, 1.0], abs=1e-12)


def test_infeasible_lp_is_none_and_the_solver_recovers() -> None:
    """-x0 <= -2 with x0 <= 1 has no solution: None, no basis; the kept instance then solves
    the next LP as a fresh one would."""
    solver = HighsSolver()
    infeasible = _program(np.array([1.0]), np.array([[-1.0]]), np.array([-2.0]), np.array([1.0]))
    assert solver.solve(infeasible, keep_basis=True) is None
    assert solver.basis is None
    feasible = _program(np.array([1.0]), np.array([[-1.0]]), np.array([-0.5]), np.array([1.0]))
    x = solver.solve(feasible)
    assert x is not None and x.tolist() == pytest.approx([0.5], abs=1e-12)


def test_unbounded_lp_raises() -> None:
    """min -x0 with x0 unbounded above: neither an optimum nor infeasible."""
    program = _program(np.array([-1.0]), np.zeros((1, 1)), np.array([1.0]), np.array([np.inf]))
    with pytest.raises(EngineError, match="HiGHS reports"):
        HighsSolver().solve(program)


def test_lp_without_columns_raises() -> None:
    program = _program(np.zeros(0), np.zeros((1, 0)), np.array([1.0]), np.zeros(0))
    with pytest.raises(EngineError, match="Empty"):
        HighsSolver().solve(program)


def test_kept_basis_restarts_at_the_optimum() -> None:
    """``keep_basis`` stores an optimal basis (one status per column and row, as many basic
    as rows); started from it, the same LP ends at the same basis and x (up to the rounding
    of a fresh factorization); without ``keep_basis`` the stored basis is cleared."""
    objective, a_ub, b_ub, upper = _max_min_lp(True, 11)
    program = _program(objective, a_ub, b_ub, upper)
    solver = HighsSolver()
    cold = solver.solve(program, keep_basis=True)
    assert solver.basis is not None
    columns, rows = solver.basis
    assert columns.shape == objective.shape and rows.shape == b_ub.shape
    assert int((columns == 1).sum() + (rows == 1).sum()) == b_ub.size
    warm = solver.solve(program, (columns, rows), keep_basis=True)
    assert cold is not None and warm is not None
    assert np.allclose(warm, cold, rtol=0.0, atol=1e-12)
    assert np.array_equal(solver.basis[0], columns) and np.array_equal(solver.basis[1], rows)
    solver.solve(program)
    assert solver.basis is None


def _ftf_probe() -> LinearProgram:
    """A finish-time-fairness probe LP the engine met (``gavel_ftf_agnostic``, the default
    trace): 5 jobs x 3 worker types, shares x[j, k] in [0, 1]; rows: coefficient c_j times job
    j's total share >= 1, each job's total share <= 1, sf-weighted use of each type <= its
    GPUs (192, 192, 128); cost -0.0002 per unit of share (the efficiency term). c_j lies a few
    ulps above 1, so every job's total share is 1 (up to rounding): optimum -0.001."""
    coefficients = [1.0000000000000058, 1.0000000000000018, 1.0000000000000007]
    coefficients += [1.0000000000000013, 1.0000000000000002]
    a_ub = np.zeros((13, 15))
    for j, c in enumerate(coefficients):
        a_ub[j, 3 * j : 3 * j + 3] = -c
        a_ub[5 + j, 3 * j : 3 * j + 3] = 1.0
        a_ub[10:13, 3 * j : 3 * j + 3] = np.eye(3)
    b_ub = np.array([-1.0] * 5 + [1.0] * 5 + [192.0, 192.0, 128.0])
    return _program(np.full(15, -0.0002), a_ub, b_ub, np.ones(15))


def test_lp_without_a_verdict_is_solved_again_with_presolve() -> None:
    """Without presolve, HiGHS ends :func:`_ftf_probe` with status "unknown" (the unscaled
    solution keeps dual infeasibilities); the solve with presolve reaches the optimum, at the
    vertex linprog (scipy 1.17.1, the same HiGHS 1.12.0) gives: every job on the third type.
    No basis is kept from the presolved solve."""
    program = _ftf_probe()
    without_presolve = highspy.Highs()
    without_presolve.setOptionValue("output_flag", False)
    without_presolve.setOptionValue("presolve", "off")
    assert _run(without_presolve, program, None) == highspy.HighsModelStatus.kUnknown
    solver = HighsSolver()
    x = solver.solve(program, keep_basis=True)
    assert x is not None
    assert program.objective @ x == pytest.approx(-0.001, rel=1e-12)
    assert x.tolist() == [0.0, 0.0, 1.0] * 5
    assert solver.basis is None

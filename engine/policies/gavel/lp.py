"""Gavel's max-min fairness allocation as one sparse linear program, solved by HiGHS.

Variables are the time shares ``X[j, k]`` (fraction of the coming rounds job ``j`` runs on worker
type ``k``), one per pair where the job fits, plus the fairness level ``t``::

    maximize    t + (epsilon / n) * sum_jk c[j, k] X[j, k]
    subject to  t <= sum_k c[j, k] X[j, k]              for every job j     (fairness rows)
                sum_k X[j, k] <= 1                      for every job j     (time rows)
                sum_j scale_factor[j] X[j, k] <= cap[k] for every type k    (capacity rows)
                0 <= X <= 1, X[j, k] = 0 where job j does not fit type k

``c`` is the job's normalized, weighted effective throughput per unit share (see
:func:`max_min_coefficients`). Source: Narayanan et al., "Heterogeneity-Aware Cluster Scheduling
Policies for Deep Learning Workloads", OSDI 2020, §4.1, and ``scheduler/policies/
max_min_fairness.py`` of stanford-futuredata/gavel (MIT). The epsilon term is ours [R]: it picks,
among the max-min optima, one that also uses the leftover capacity (Gavel reaches a Pareto-efficient
optimum with its water-filling variant, which takes one LP per bottleneck level). HiGHS is the
solver of ``scipy.optimize.linprog(method="highs")``; :class:`HighsSolver` calls it directly when
it can, to save linprog's per-call overhead (:mod:`engine.policies.gavel.class_lp` keeps one
instance, and the solutions of recent class counts, for a whole run).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from engine.errors import EngineError

Basis = tuple[np.ndarray, np.ndarray]  # HiGHS status numbers of the columns and of the rows


class WarmBasis(Protocol):
    """What a warm start needs of the last basis (:class:`engine.policies.gavel.class_lp.WarmBasis`
    implements it; a protocol here keeps the two modules out of an import circle)."""

    empty: bool

    def start(self, labels: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> Basis: ...

    def keep(
        self, labels: np.ndarray, rows: np.ndarray, cols: np.ndarray, basis: Basis
    ) -> None: ...


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


def fit_mask(
    throughputs: np.ndarray, scale_factors: np.ndarray, capacity: np.ndarray
) -> np.ndarray:
    """Where a job can run: positive throughput and enough GPUs of that type.

    Args:
        throughputs: (n, K) steps/s of each job at its scale factor on each worker type.
        scale_factors: (n,) GPUs per job.
        capacity: (K,) GPUs per worker type.

    Returns:
        (n, K) bool.
    """
    return (throughputs > 0) & (scale_factors[:, None] <= capacity[None, :])


def equal_share_throughput(
    throughputs: np.ndarray, fits: np.ndarray, capacity: np.ndarray
) -> np.ndarray:
    """Throughput under ``X^equal``: time split over the fitting types in proportion to capacity.

    [R] The paper normalizes by the throughput of an equal 1/N share of the cluster; the 1/N
    factor is the same for every job and does not change the optimum, so it is left out.

    Returns:
        (n,) steps/s; 0 for a job that fits nowhere.
    """
    weights = fits * capacity[None, :]
    total = weights.sum(axis=1)
    return (weights * throughputs).sum(axis=1) / np.where(total > 0, total, 1.0)


def max_min_coefficients(
    throughputs: np.ndarray,
    scale_factors: np.ndarray,
    priority_weights: np.ndarray,
    capacity: np.ndarray,
    heterogeneity_aware: bool,
) -> np.ndarray:
    """Objective coefficients ``c[j, k]`` of the max-min LP (0 where the job does not fit).

    Heterogeneity-aware: ``c = scale_factor * tput[j, k] / (priority_weight * tput_equal[j])``
    (Gavel's ``MaxMinFairnessPolicyWithPerf``). Agnostic: every fitting throughput counts as 1,
    so ``c = scale_factor / priority_weight`` and the LP equalizes weighted GPU-time (Gavel's
    ``MaxMinFairnessPolicy``). Multiplying by the scale factor gives a job on one GPU
    ``scale_factor`` times the time share of an otherwise equal job on ``scale_factor`` GPUs.

    Returns:
        (n, K) float.
    """
    fits = fit_mask(throughputs, scale_factors, capacity)
    weight = scale_factors / priority_weights
    if not heterogeneity_aware:
        return fits * weight[:, None]
    equal = equal_share_throughput(throughputs, fits, capacity)
    scale = np.divide(weight, equal, out=np.zeros_like(weight), where=equal > 0)
    return np.where(fits, throughputs, 0.0) * scale[:, None]


def solve_max_min(
    coefficients: np.ndarray,
    scale_factors: np.ndarray,
    capacity: np.ndarray,
    epsilon: float = 1e-3,
    class_ids: np.ndarray | None = None,
) -> np.ndarray:
    """Solves the max-min LP of the module docstring, over classes of identical jobs.

    Jobs with the same coefficient row and scale factor are interchangeable. The objective is
    concave and the constraints are symmetric under swapping such jobs, so averaging an optimum
    over those swaps gives an optimum where they all get the same shares. The LP is therefore
    solved with one share row per class (its capacity use weighted by the class size): the same
    optimum, with a few dozen rows instead of hundreds on a Philly-like workload.

    Args:
        coefficients: (n, K) from :func:`max_min_coefficients`; 0 marks a pair that must stay 0.
            A job with no positive coefficient gets no share and no fairness row.
        scale_factors: (n,) GPUs per job.
        capacity: (K,) GPUs per worker type.
        epsilon: weight of the efficiency tie-break term (0 disables it).
        class_ids: (n,) optional precomputed class labels (equal label => equal coefficient
            row and scale factor); found with ``np.unique`` over the rows when None.

    Returns:
        (n, K) time shares ``X``, clipped to [0, 1].

    Raises:
        EngineError: if HiGHS fails (the LP is always feasible and bounded, so only on
            numerical trouble).
    """
    n = coefficients.shape[0]
    if class_ids is None:
        class_ids = np.unique(
            np.column_stack([coefficients, scale_factors]), axis=0, return_inverse=True
        )[1].reshape(n)
    _, first, inverse, counts = np.unique(
        class_ids, return_index=True, return_inverse=True, return_counts=True
    )
    class_shares = solve_classes(
        coefficients[first], scale_factors[first], counts, capacity, epsilon
    )
    return class_shares[inverse]


def solve_classes(
    coefficients: np.ndarray,
    scale_factors: np.ndarray,
    counts: np.ndarray,
    capacity: np.ndarray,
    epsilon: float,
    solver: HighsSolver | None = None,
    warm: tuple[WarmBasis, np.ndarray] | None = None,
) -> np.ndarray:
    """The max-min LP with one share row per class of ``counts`` identical jobs.

    Args:
        coefficients: (C, K) each class's coefficient row; scale_factors: (C,) its GPUs.
        counts: (C,) jobs per class (positive); capacity: (K,) GPUs per type.
        epsilon: weight of the efficiency term.
        solver: a HiGHS instance to reuse (else a fresh one).
        warm: the last basis and the (C,) class labels, to start from that basis and keep the
            new one (:mod:`engine.policies.gavel.class_lp`).

    Returns:
        (C, K) shares in [0, 1]; 0 for a class with no positive coefficient.

    Raises:
        EngineError: if HiGHS finds the LP infeasible (it never is: all-zero shares fit).
    """
    num_classes, num_types = coefficients.shape
    shares = np.zeros((num_classes, num_types))
    live = coefficients.max(axis=1) > 0
    if not live.any():
        return shares
    coefficients, scale_factors, counts = coefficients[live], scale_factors[live], counts[live]
    nc = coefficients.shape[0]
    rows, cols = np.nonzero(coefficients > 0)
    m = rows.size
    values = coefficients[rows, cols]
    # CSC by hand: share column (i, k) has -c in fairness row i, 1 in time row nc + i and the
    # class's GPUs in capacity row 2 nc + k; the last column (t) has 1 in every fairness row.
    matrix = CscMatrix(
        indptr=np.append(np.arange(0, 3 * m + 1, 3), 3 * m + nc),
        indices=np.concatenate(
            [np.column_stack([rows, nc + rows, 2 * nc + cols]).ravel(), np.arange(nc)]
        ),
        data=np.concatenate(
            [
                np.column_stack([-values, np.ones(m), (counts * scale_factors)[rows]]).ravel(),
                np.ones(nc),
            ]
        ),
        num_rows=2 * nc + num_types,
    )
    b_ub = np.concatenate([np.zeros(nc), np.ones(nc), capacity.astype(float)])
    weight = epsilon / counts.sum()
    objective = np.concatenate([-weight * counts[rows] * values, [-1.0]])
    upper = np.append(np.ones(m), np.inf)
    solver = solver or HighsSolver()
    if warm is None:
        x = solver.solve(objective, matrix, b_ub, upper)
    else:
        basis, labels = warm[0], warm[1][live]
        start = None if basis.empty else basis.start(labels, rows, cols)
        x = solver.solve(objective, matrix, b_ub, upper, start, keep_basis=True)
        if solver.basis is not None:
            basis.keep(labels, rows, cols, solver.basis)
    if x is None:
        raise EngineError("Gavel LP is infeasible")
    live_shares = np.zeros((nc, num_types))
    live_shares[rows, cols] = np.clip(x[:m], 0.0, 1.0)
    shares[live] = live_shares
    return shares


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
    ) -> np.ndarray | None:
        """The optimal ``x``, or None when the LP is infeasible.

        Args:
            start: (column statuses, row statuses) as HiGHS numbers them (0 nonbasic at the
                lower bound, 1 basic, ...) to start the simplex from, else the slack basis.
            keep_basis: store the optimal basis in :attr:`basis` (None if not available).

        Raises:
            EngineError: if HiGHS fails for another reason than infeasibility.
        """
        self.basis = None
        if _highs is not None:
            try:
                x = self._solve_direct(objective, matrix, b_ub, upper, start, keep_basis)
            except (AttributeError, TypeError, ValueError):
                x = None
            if x is _INFEASIBLE:  # HiGHS proved it: linprog would only say so again
                return None
            if x is not None:
                return x
        bounds = np.column_stack([np.zeros_like(upper), upper])
        result = linprog(
            objective, A_ub=matrix.to_scipy(), b_ub=b_ub, bounds=bounds, method="highs"
        )
        if result.status == 2:  # infeasible
            return None
        if result.status != 0:
            raise EngineError(f"Gavel LP failed: {result.message}")
        return np.asarray(result.x)

    def _solve_direct(
        self,
        objective: np.ndarray,
        matrix: CscMatrix,
        b_ub: np.ndarray,
        upper: np.ndarray,
        start: Basis | None,
        keep_basis: bool,
    ) -> np.ndarray | None:
        """The LP through ``scipy.optimize._highspy._core``: ``x`` if HiGHS reports an optimum,
        :data:`_INFEASIBLE` if it reports the LP infeasible, else None (then ``linprog`` tries)."""
        assert _highs is not None
        num_rows, num_cols = matrix.num_rows, objective.size
        infinity = _highs.kHighsInf
        model = (  # passModel's array form: numpy buffers, no per-element conversion
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
            matrix.indptr.astype(np.int32),
            matrix.indices.astype(np.int32),
            np.ascontiguousarray(matrix.data, dtype=np.float64),
            np.zeros(num_cols, dtype=np.int32),  # integrality: every column continuous
        )
        solver = self._instance
        if solver is None:
            solver = _highs._Highs()
            solver.setOptionValue("output_flag", False)
            solver.setOptionValue("presolve", "off")  # tiny LPs: presolve costs more than it saves
            self._instance = solver
        solver.passModel(*model)
        if start is not None:
            solver.setBasis(_highs_basis(start))
        solver.run()
        status = solver.getModelStatus()
        if status == _highs.HighsModelStatus.kInfeasible:
            return _INFEASIBLE
        if status != _highs.HighsModelStatus.kOptimal:
            return None
        if keep_basis:
            basis = solver.getBasis()
            self.basis = (
                np.array([int(status) for status in basis.col_status]),
                np.array([int(status) for status in basis.row_status]),
            )
        return np.array(solver.getSolution().col_value)


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

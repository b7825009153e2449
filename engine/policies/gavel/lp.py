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
solver of ``scipy.optimize.linprog(method="highs")``; :func:`solve_lp` calls it directly when it
can, to save linprog's per-call overhead.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from engine.errors import EngineError

try:  # the HiGHS bindings scipy bundles (private API, hence the guard and the fallback)
    from scipy.optimize._highspy import _core as _highs
except ImportError:  # pragma: no cover - older or newer scipy layouts
    _highs = None


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
    class_shares = _solve_classes(
        coefficients[first], scale_factors[first], counts, capacity, epsilon
    )
    return class_shares[inverse]


def _solve_classes(
    coefficients: np.ndarray,
    scale_factors: np.ndarray,
    counts: np.ndarray,
    capacity: np.ndarray,
    epsilon: float,
) -> np.ndarray:
    """The LP with one share row per class of ``counts`` identical jobs; (C, K) shares."""
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
    indices = np.concatenate(
        [np.column_stack([rows, nc + rows, 2 * nc + cols]).ravel(), np.arange(nc)]
    )
    data = np.concatenate(
        [
            np.column_stack([-values, np.ones(m), (counts * scale_factors)[rows]]).ravel(),
            np.ones(nc),
        ]
    )
    indptr = np.append(np.arange(0, 3 * m + 1, 3), 3 * m + nc)
    a_ub = sp.csc_matrix((data, indices, indptr), shape=(2 * nc + num_types, m + 1))
    b_ub = np.concatenate([np.zeros(nc), np.ones(nc), capacity.astype(float)])
    weight = epsilon / counts.sum()
    objective = np.concatenate([-weight * counts[rows] * values, [-1.0]])
    upper = np.append(np.ones(m), np.inf)
    x = solve_lp(objective, a_ub, b_ub, upper)
    live_shares = np.zeros((nc, num_types))
    live_shares[rows, cols] = np.clip(x[:m], 0.0, 1.0)
    shares[live] = live_shares
    return shares


def solve_lp(
    objective: np.ndarray, a_ub: sp.csc_matrix, b_ub: np.ndarray, upper: np.ndarray
) -> np.ndarray:
    """``min objective @ x`` s.t. ``a_ub @ x <= b_ub``, ``0 <= x <= upper``, with HiGHS.

    Same solver as ``linprog(method="highs")``, called through scipy's bundled HiGHS bindings
    when they are importable: that skips about 3 ms of input checking and result packing per
    call, which adds up over the ~18,000 solves of a 109-day trace. Falls back to ``linprog``
    if the bindings are missing, changed, or do not report an optimum.

    Raises:
        EngineError: if the LP is infeasible or ``linprog`` fails too.
    """
    x = solve_lp_if_feasible(objective, a_ub, b_ub, upper)
    if x is None:
        raise EngineError("Gavel LP is infeasible")
    return x


def _solve_direct(
    objective: np.ndarray, a_ub: sp.csc_matrix, b_ub: np.ndarray, upper: np.ndarray
) -> np.ndarray | None:
    """The LP through ``scipy.optimize._highspy._core``; None unless HiGHS reports optimal."""
    assert _highs is not None
    num_rows, num_cols = a_ub.shape
    lp = _highs.HighsLp()
    lp.num_col_ = num_cols
    lp.num_row_ = num_rows
    lp.col_cost_ = objective
    lp.col_lower_ = np.zeros(num_cols)
    lp.col_upper_ = np.where(np.isinf(upper), _highs.kHighsInf, upper)
    lp.row_lower_ = np.full(num_rows, -_highs.kHighsInf)
    lp.row_upper_ = b_ub
    matrix = lp.a_matrix_
    matrix.format_ = _highs.MatrixFormat.kColwise
    matrix.num_col_ = num_cols
    matrix.num_row_ = num_rows
    matrix.start_ = a_ub.indptr
    matrix.index_ = a_ub.indices
    matrix.value_ = a_ub.data
    solver = _highs._Highs()
    solver.setOptionValue("output_flag", False)
    solver.setOptionValue("presolve", "off")  # tiny LPs: presolve costs more than it saves
    solver.passModel(lp)
    solver.run()
    if solver.getModelStatus() != _highs.HighsModelStatus.kOptimal:
        return None
    return np.array(solver.getSolution().col_value)


def solve_lp_if_feasible(
    objective: np.ndarray, a_ub: sp.csc_matrix, b_ub: np.ndarray, upper: np.ndarray
) -> np.ndarray | None:
    """Like :func:`solve_lp`, but None when the LP is infeasible (for feasibility searches).

    Raises:
        EngineError: if HiGHS fails for another reason than infeasibility.
    """
    if _highs is not None:
        try:
            x = _solve_direct(objective, a_ub, b_ub, upper)
        except (AttributeError, TypeError, ValueError):
            x = None
        if x is not None:
            return x
    bounds = np.column_stack([np.zeros_like(upper), upper])
    result = linprog(objective, A_ub=a_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if result.status == 2:  # infeasible
        return None
    if result.status != 0:
        raise EngineError(f"Gavel LP failed: {result.message}")
    return np.asarray(result.x)

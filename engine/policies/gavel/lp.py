"""Gavel's LPs over time shares: the max-min LP and the feasibility LP, one constraint structure.

Variables are the time shares ``X[j, k]`` (fraction of the coming rounds job ``j`` runs on worker
type ``k``), one per pair where the job fits. The max-min LP adds the fairness level ``t``::

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
optimum with its water-filling variant, which takes one LP per bottleneck level). The feasibility
LP of finish-time fairness and minimum total duration (:class:`FeasibilityLP`) has the same time
and capacity rows, and a fairness row ``sum_k a_j tput[j, k] X[j, k] >= 1`` per job instead of
``t``; :func:`share_program` writes that structure once for all of them. HiGHS solves them
(:class:`engine.policies.gavel.highs.HighsSolver`, one entry: ``solve(model) -> x | None``);
:mod:`engine.policies.gavel.class_model` solves the max-min LP over classes of identical jobs and
:mod:`engine.policies.gavel.class_lp` keeps its models and solutions for a whole run.
"""

from __future__ import annotations

import math

import numpy as np

from engine.policies.gavel.highs import CscMatrix, HighsSolver, LinearProgram


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


def share_program(
    values: np.ndarray,
    rows: np.ndarray,
    cols: np.ndarray,
    gpus: np.ndarray,
    num_jobs: int,
    capacity: np.ndarray,
    fairness_rhs: float,
    level: bool,
) -> LinearProgram:
    """The share LP of the module docstring with a zero objective, for the caller to fill.

    Share column ``i`` (job ``rows[i]``, type ``cols[i]``) holds ``-values[i]`` in fairness row
    ``rows[i]``, 1 in time row ``num_jobs + rows[i]`` and ``gpus[i]`` in capacity row ``2
    num_jobs + cols[i]``, bounded by 1; with ``level`` a last column ``t`` (unbounded, cost -1)
    holds 1 in every fairness row. Right-hand sides: ``fairness_rhs``, 1 and the capacities.
    The arrays are the model's buffers: callers rewrite entries and costs in place.

    Args:
        values, rows, cols, gpus: (m,) per share column; capacity: (K,) GPUs per type.
    """
    m, n, t = rows.size, num_jobs, int(level)
    size = 3 * m + t * n  # (filled in place: numpy's stacking functions cost more here)
    indptr = np.arange(0, 3 * (m + t) + 1, 3, dtype=np.int32)
    indptr[m + t] = size
    indices = np.empty(size, dtype=np.int32)
    indices[3 * m :] = np.arange(t * n)
    column_rows = indices[: 3 * m].reshape(m, 3)
    column_rows[:, 0] = rows
    column_rows[:, 1] = rows + n
    column_rows[:, 2] = cols + 2 * n
    data = np.ones(size)
    np.negative(values, out=data[0 : 3 * m : 3])
    data[2 : 3 * m : 3] = gpus
    b_ub = np.ones(2 * n + capacity.size)
    b_ub[:n] = fairness_rhs
    b_ub[2 * n :] = capacity
    objective, upper = np.zeros(m + t), np.ones(m + t)
    if level:
        objective[m], upper[m] = -1.0, math.inf
    return LinearProgram(objective, CscMatrix(indptr, indices, data, b_ub.size), b_ub, upper)


class FeasibilityLP:
    """Whether shares meet a rate per job: ``a_j sum_k tput[j, k] X[j, k] >= 1`` for every job,
    plus the time and capacity rows (:func:`share_program`); one model, its fairness entries
    rewritten per probe.

    Args:
        tput: (n, K) steps/s where the job fits, else 0; scale_factors: (n,) GPUs per job;
        capacity: (K,) GPUs per type; equal: (n,) the equal-share throughputs (the efficiency
        term's normalization); solver: a HiGHS instance to reuse (else a fresh one).
    """

    def __init__(
        self,
        tput: np.ndarray,
        scale_factors: np.ndarray,
        capacity: np.ndarray,
        equal: np.ndarray,
        solver: HighsSolver | None = None,
    ) -> None:
        n = tput.shape[0]
        self.tput, self.scale_factors, self.capacity = tput, scale_factors, capacity
        self.solver = solver or HighsSolver()  # one instance for every probe
        self.rows, self.cols = np.nonzero(tput > 0)
        self.values = tput[self.rows, self.cols]
        self.model = share_program(
            self.values, self.rows, self.cols, scale_factors[self.rows], n, capacity, -1.0, False
        )
        self.efficiency = self.values / equal[self.rows] / n
        self.shape = tput.shape

    def solve(self, coefficient: np.ndarray | None, epsilon: float) -> np.ndarray | None:
        """(n, K) shares meeting every job's rate for ``coefficient`` (n,), maximizing
        ``epsilon`` times the normalized throughput; None if no shares do (or ``coefficient``
        is None)."""
        if coefficient is None:
            return None
        model = self.model
        model.matrix.data[0::3] = -coefficient[self.rows] * self.values
        np.multiply(self.efficiency, -epsilon, out=model.objective)
        x = self.solver.solve(model)
        if x is None:
            return None
        shares = np.zeros(self.shape)
        shares[self.rows, self.cols] = x
        return shares

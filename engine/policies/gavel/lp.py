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
solver of ``scipy.optimize.linprog(method="highs")``; :class:`HighsSolver`
(:mod:`engine.policies.gavel.highs`, one entry: ``solve(model) -> x | None``) calls it directly
when it can, to save linprog's per-call overhead.
:class:`engine.policies.gavel.class_model.ClassModel` builds the class LP's arrays;
:mod:`engine.policies.gavel.class_lp` keeps one HiGHS instance, the models of recent class sets
and the solutions of recent class counts, for a whole run.
"""

from __future__ import annotations

import numpy as np

from engine.policies.gavel.class_model import ClassModel, WarmBasis
from engine.policies.gavel.highs import CscMatrix, HighsSolver, LinearProgram

__all__ = [  # the HiGHS plumbing lived here first; policies import it from this module
    "CscMatrix",
    "HighsSolver",
    "LinearProgram",
    "WarmBasis",
]


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

    Jobs with the same coefficient row and scale factor are interchangeable. The objective is
    concave and the constraints are symmetric under swapping such jobs, so averaging an optimum
    over those swaps gives an optimum where they all get the same shares. The LP is therefore
    solved with one share row per class (its capacity use weighted by the class size): the same
    optimum, with a few dozen rows instead of hundreds on a Philly-like workload.

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
    model = ClassModel(coefficients, scale_factors, capacity, epsilon)
    return model.solve(counts, solver or HighsSolver(), warm)

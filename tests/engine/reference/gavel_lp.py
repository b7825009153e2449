"""Plain references for Gavel's LP shortcuts, kept to check the engine's fast paths against.

- :func:`min_total_duration_every_probe` solves every probe of the makespan bisection: what
  :func:`engine.policies.gavel.min_total_duration.solve_min_total_duration` answers from the
  smallest makespan ``T*`` (:mod:`engine.policies.gavel.makespan`).
- :func:`class_lp_arrays` writes the class LP of given counts out from its definition (the
  module docstring of :mod:`engine.policies.gavel.lp`): what
  :class:`engine.policies.gavel.class_model.ClassModel` fills into its kept model.
"""

from __future__ import annotations

import numpy as np

from engine.policies.gavel.lp import FeasibilityLP, equal_share_throughput, fit_mask
from engine.policies.gavel.makespan import Bisection, bisect_makespan


def min_total_duration_every_probe(
    throughputs: np.ndarray,
    scale_factors: np.ndarray,
    capacity: np.ndarray,
    remaining_steps: np.ndarray,
    params: Bisection,
    epsilon: float,
) -> tuple[np.ndarray, float]:
    """(n, K) shares and makespan (s) of the HiGHS bisection with every probe's LP solved,
    then the efficiency LP (weight ``epsilon``) at the makespan found."""
    shares = np.zeros(throughputs.shape)
    fits = fit_mask(throughputs, scale_factors, capacity)
    live = fits.any(axis=1) & (remaining_steps > 0)
    if not live.any():
        return shares, float("nan")
    remaining = remaining_steps[live]
    equal = equal_share_throughput(throughputs, fits, capacity)[live]
    tput = np.where(fits, throughputs, 0.0)[live]
    problem = FeasibilityLP(tput, scale_factors[live], capacity, equal)
    best, best_s = bisect_makespan(lambda t: problem.solve(t / remaining, 0.0), params)
    if epsilon > 0:
        x = problem.solve(best_s / remaining, epsilon)
        best = best if x is None else x
    shares[live] = np.clip(best, 0.0, 1.0)
    return shares, best_s


def class_lp_arrays(
    coefficients: np.ndarray, scale_factors: np.ndarray, counts: np.ndarray, epsilon: float
) -> tuple[np.ndarray, np.ndarray]:
    """The dense constraint matrix (2 C' + K rows) and the costs (m + 1,) of the class LP of
    ``counts`` (C,) jobs per class, over the C' classes with a positive coefficient: share
    columns (class, type) in row-major order where the coefficient is positive, then ``t``."""
    live = coefficients.max(axis=1) > 0
    coefficients, scale_factors, counts = coefficients[live], scale_factors[live], counts[live]
    nc, num_types = coefficients.shape
    rows, cols = np.nonzero(coefficients > 0)
    m = rows.size
    matrix = np.zeros((2 * nc + num_types, m + 1))
    matrix[rows, np.arange(m)] = -coefficients[rows, cols]
    matrix[nc + rows, np.arange(m)] = 1.0
    matrix[2 * nc + cols, np.arange(m)] = counts[rows] * scale_factors[rows]
    matrix[:nc, m] = 1.0
    weight = epsilon / counts.sum()
    costs = np.append(-weight * counts[rows] * coefficients[rows, cols], -1.0)
    return matrix, costs

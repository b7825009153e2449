"""Gavel's allocation programs solved the way Gavel solves them: ECOS on Gavel's variables.

Gavel (stanford-futuredata/gavel, commit c4fa400, MIT; ``scheduler/policies/``) states each
policy in cvxpy over one share ``x[j, k]`` per job and worker type (no pair left out, even where the
job does not run) and solves it with ECOS, an interior-point solver (Domahidi, Chu, Boyd, "ECOS:
An SOCP solver for embedded systems", ECC 2013). Where the optimum is not unique (many jobs of a
class, spare capacity, a feasibility problem with a constant objective) the point ECOS stops at
decides which jobs the rounds serve, so the Gavel-compatible preset (``RoundConfig.gavel_rules``)
calls ECOS on the same constraints instead of taking a simplex vertex from HiGHS. Our own
statement of the programs, not Gavel's code:

- base rows (Gavel's ``get_base_constraints``): ``x >= 0``, ``sum_j sf_j x[j, k] <= cap_k``,
  ``sum_k x[j, k] <= 1``;
- max-min: maximize ``t`` with ``t <= sum_k c[j, k] x[j, k]`` for every job;
- feasibility (minimum total duration): ``sum_k tput[j, k] x[j, k] >= remaining_j / T``;
- finish-time fairness: minimize ``r`` with ``(elapsed_j + remaining_j w_j) / isolated_j <= r``
  and ``w_j >= 1 / (tput_j . x_j)``, the latter as the cone ``||(2, a_j - w_j)|| <= a_j + w_j``
  (``a_j w_j >= 1``), which is how cvxpy hands ``inv_pos`` to ECOS.
"""

from __future__ import annotations

import ecos
import numpy as np
import scipy.sparse as sp

from engine.policies.gavel.ecos_rows import base_entries, cone_entries, csc, per_job_entries

_OPTIMAL = 0  # ECOS exit flag; cvxpy maps it to "optimal"
_INACCURATE = 10  # "optimal_inaccurate": cvxpy still returns the point


def base_rhs(num_jobs: int, capacity: np.ndarray) -> np.ndarray:
    """Right-hand sides of Gavel's base rows (:func:`engine.policies.gavel.ecos_rows.
    base_entries`): 0 for ``-x``, the capacities, 1 per job."""
    return np.concatenate(
        [np.zeros(num_jobs * capacity.size), capacity.astype(float), np.ones(num_jobs)]
    )


def solve(
    objective: np.ndarray,
    rows: sp.spmatrix,
    rhs: np.ndarray,
    cones: list[int] | None = None,
    accept_inaccurate: bool = False,
) -> np.ndarray | None:
    """``min objective @ z`` s.t. ``rhs - rows @ z`` in the cone, with ECOS.

    The first rows minus ``sum(cones)`` are linear (``<= rhs``); the last ones form second-order
    cones of the sizes in ``cones``. Returns None unless ECOS says optimal (or, with
    ``accept_inaccurate``, optimal to reduced accuracy, whose point cvxpy also returns).
    """
    cones = cones or []
    result = ecos.solve(
        objective.astype(float),
        rows if isinstance(rows, sp.csc_matrix) else sp.csc_matrix(rows),
        rhs.astype(float),
        {"l": rows.shape[0] - sum(cones), "q": cones, "e": 0},
        verbose=False,
    )
    flag = result["info"]["exitFlag"]
    if flag != _OPTIMAL and not (accept_inaccurate and flag == _INACCURATE):
        return None
    return np.asarray(result["x"])


def max_min_shares(
    coefficients: np.ndarray, scale_factors: np.ndarray, capacity: np.ndarray
) -> np.ndarray:
    """(n, K) shares maximizing ``min_j sum_k c[j, k] x[j, k]``, clipped to [0, 1].

    Raises:
        EngineError: if ECOS does not reach an optimum.
    """
    n, num_types = coefficients.shape
    m = n * num_types
    jobs = np.arange(n)
    fairness = [per_job_entries(-coefficients, 0), (jobs, np.full(n, m), np.ones(n))]
    rows = csc(
        [*fairness, *base_entries(scale_factors, capacity, n)], (2 * n + m + num_types, m + 1)
    )
    objective = np.zeros(m + 1)
    objective[-1] = -1.0
    rhs = np.concatenate([np.zeros(n), base_rhs(n, capacity)])
    z = solve(objective, rows, rhs, accept_inaccurate=True)
    if z is None:
        from engine.errors import EngineError

        raise EngineError("Gavel max-min program: ECOS found no optimum")
    return np.clip(z[:m].reshape(n, num_types), 0.0, 1.0)


def feasible_shares(
    throughputs: np.ndarray,
    scale_factors: np.ndarray,
    capacity: np.ndarray,
    remaining_steps: np.ndarray,
    makespan_s: float,
) -> np.ndarray | None:
    """(n, K) shares finishing every job by ``makespan_s`` (ECOS's point), or None if ECOS
    does not report the program optimal (Gavel then treats the makespan as infeasible)."""
    n, num_types = throughputs.shape
    m = n * num_types
    demand = per_job_entries(-throughputs, m + num_types + n)
    rows = csc([*base_entries(scale_factors, capacity, 0), demand], (2 * n + m + num_types, m))
    rhs = np.concatenate([base_rhs(n, capacity), -remaining_steps / makespan_s])
    z = solve(np.zeros(m), rows, rhs)
    return None if z is None else np.clip(z.reshape(n, num_types), 0.0, 1.0)


def max_min_coefficients_all_pairs(
    throughputs: np.ndarray,
    scale_factors: np.ndarray,
    priority_weights: np.ndarray,
    capacity: np.ndarray,
    heterogeneity_aware: bool,
) -> np.ndarray:
    """(n, K) ``c[j, k]`` of Gavel's max-min program, over every pair.

    Aware: ``tput[j, k] sf_j / (w_j tput_prop_j)`` with ``tput_prop_j = sum_k tput[j, k]
    cap_k / sum(cap)`` (Gavel's proportional share). Agnostic: every throughput counts as 1,
    even where the job does not run (the rounds never grant such a pair).
    """
    tput = throughputs if heterogeneity_aware else np.ones_like(throughputs)
    proportional = tput @ (capacity / capacity.sum())
    weight = np.divide(
        scale_factors,
        priority_weights * proportional,
        out=np.zeros_like(proportional),
        where=proportional > 0,
    )
    return np.asarray(tput * weight[:, None])


def finish_time_fairness_shares(
    throughputs: np.ndarray,
    scale_factors: np.ndarray,
    capacity: np.ndarray,
    elapsed_s: np.ndarray,
    remaining_steps: np.ndarray,
    isolated_s: np.ndarray,
) -> np.ndarray | None:
    """(n, K) shares minimizing the worst finish-time fairness ratio (module docstring).

    Args:
        elapsed_s: (n,) time since arrival; remaining_steps: (n,); isolated_s: (n,) the ratio's
            denominators.

    Returns:
        Shares clipped to [0, 1], or None when ECOS returns no point (Gavel then falls back to
        its isolated allocation).
    """
    n, num_types = throughputs.shape
    m = n * num_types
    jobs = np.arange(n)
    linear = m + num_types + 2 * n  # base rows, then one ratio row per job
    ratio = remaining_steps / isolated_s
    stored = ratio != 0  # a diagonal block stores no zeros
    entries = [
        *base_entries(scale_factors, capacity, 0),
        (linear - n + jobs[stored], m + jobs[stored], ratio[stored]),  # w_j's weight
        (linear - n + jobs, np.full(n, m + n), np.full(n, -1.0)),  # -r
        *cone_entries(throughputs, linear, m),
    ]
    rows = csc(entries, (linear + 3 * n, m + n + 1))
    linear_rhs = np.concatenate([base_rhs(n, capacity), -elapsed_s / isolated_s])
    cone_rhs = np.tile([0.0, 2.0, 0.0], n)
    objective = np.zeros(m + n + 1)
    objective[-1] = 1.0
    z = solve(
        objective,
        rows,
        np.concatenate([linear_rhs, cone_rhs]),
        cones=[3] * n,
        accept_inaccurate=True,
    )
    return None if z is None else np.clip(z[:m].reshape(n, num_types), 0.0, 1.0)

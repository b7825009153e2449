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

_OPTIMAL = 0  # ECOS exit flag; cvxpy maps it to "optimal"
_INACCURATE = 10  # "optimal_inaccurate": cvxpy still returns the point


def base_rows(scale_factors: np.ndarray, capacity: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray]:
    """``G x <= h`` for Gavel's base constraints over n x K shares (row-major).

    Returns:
        ((n K + K + n, n K) matrix, right-hand sides).
    """
    n, num_types = scale_factors.size, capacity.size
    m = n * num_types
    pairs = np.arange(m)
    job_of, type_of = pairs // num_types, pairs % num_types
    nonnegative = -sp.identity(m, format="csr")
    room = sp.csr_matrix((scale_factors[job_of], (type_of, pairs)), shape=(num_types, m))
    time = sp.csr_matrix((np.ones(m), (job_of, pairs)), shape=(n, m))
    rows = sp.vstack([nonnegative, room, time], format="csr")
    return rows, np.concatenate([np.zeros(m), capacity.astype(float), np.ones(n)])


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
        sp.csc_matrix(rows),
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
    base, base_rhs = base_rows(scale_factors, capacity)
    pairs = np.arange(m)
    fairness = sp.hstack(
        [
            sp.csr_matrix((-coefficients.ravel(), (pairs // num_types, pairs)), shape=(n, m)),
            sp.csr_matrix(np.ones((n, 1))),
        ]
    )
    rows = sp.vstack([fairness, sp.hstack([base, sp.csr_matrix((base.shape[0], 1))])])
    objective = np.zeros(m + 1)
    objective[-1] = -1.0
    z = solve(objective, rows, np.concatenate([np.zeros(n), base_rhs]), accept_inaccurate=True)
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
    base, base_rhs = base_rows(scale_factors, capacity)
    pairs = np.arange(m)
    demand = sp.csr_matrix((-throughputs.ravel(), (pairs // num_types, pairs)), shape=(n, m))
    rows = sp.vstack([base, demand])
    z = solve(np.zeros(m), rows, np.concatenate([base_rhs, -remaining_steps / makespan_s]))
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
    base, base_rhs = base_rows(scale_factors, capacity)
    pairs = np.arange(m)
    jobs = np.arange(n)
    rate = sp.csr_matrix((throughputs.ravel(), (pairs // num_types, pairs)), shape=(n, m))
    w = sp.identity(n, format="csr")
    zero_n, zero_1 = sp.csr_matrix((n, n)), sp.csr_matrix((n, 1))
    ratio = sp.hstack(
        [sp.csr_matrix((n, m)), sp.diags(remaining_steps / isolated_s), -np.ones((n, 1))]
    )
    linear = sp.vstack([sp.hstack([base, sp.csr_matrix((base.shape[0], n + 1))]), ratio])
    linear_rhs = np.concatenate([base_rhs, -elapsed_s / isolated_s])
    cone_rows = []
    for sign_w, block in ((1.0, rate), (0.0, None), (-1.0, rate)):
        part = sp.csr_matrix((n, m)) if block is None else -block
        cone_rows.append(sp.hstack([part, -sign_w * w if sign_w else zero_n, zero_1]))
    order = np.ravel(np.column_stack([jobs, n + jobs, 2 * n + jobs]))  # one 3-row cone per job
    cones = sp.vstack(cone_rows, format="csr")[order]
    cone_rhs = np.concatenate([np.zeros(n), np.full(n, 2.0), np.zeros(n)])[order]
    objective = np.zeros(m + n + 1)
    objective[-1] = 1.0
    z = solve(
        objective,
        sp.vstack([linear, cones]),
        np.concatenate([linear_rhs, cone_rhs]),
        cones=[3] * n,
        accept_inaccurate=True,
    )
    return None if z is None else np.clip(z[:m].reshape(n, num_types), 0.0, 1.0)

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

Shares are row-major: column ``j K + k`` is job ``j`` on worker type ``k``. Each program's
matrix is listed as (row, column, value) entries and sorted into CSC once (:func:`csc`). That
gives the very arrays that stacking the blocks with ``scipy.sparse`` gave, explicit zeros
included (a pair where the job does not run keeps its stored 0; ECOS orders its KKT system by
the stored pattern), for a fraction of the cost: the stacking took about 14 ms of a 19 ms
finish-time fairness solve on Gavel's 160-job trace, and scipy's own COO-to-CSC conversion costs
about twice the sort (issue 11). ``tests/engine/test_policies_gavel_ecos_rows.py`` compares the
arrays with the stacked blocks'.
"""

from __future__ import annotations

import ecos
import numpy as np
import scipy.sparse as sp

from engine.errors import EngineError

Entries = tuple[np.ndarray, np.ndarray, np.ndarray]  # rows, columns, values

_OPTIMAL = 0  # ECOS exit flag; cvxpy maps it to "optimal"
_INACCURATE = 10  # "optimal_inaccurate": cvxpy still returns the point


def csc(entries: list[Entries], shape: tuple[int, int]) -> sp.csc_matrix:
    """The matrix of ``entries`` (no two at the same place), row indices ascending per column."""
    rows = np.concatenate([e[0] for e in entries])
    cols = np.concatenate([e[1] for e in entries])
    values = np.concatenate([e[2] for e in entries]).astype(float)
    order = np.lexsort((rows, cols))
    indptr = np.zeros(shape[1] + 1, dtype=np.int32)
    np.cumsum(np.bincount(cols, minlength=shape[1]), out=indptr[1:])
    return sp.csc_matrix(
        (values[order], rows[order].astype(np.int32), indptr), shape=shape, copy=False
    )


def base_entries(scale_factors: np.ndarray, capacity: np.ndarray, first_row: int) -> list[Entries]:
    """Gavel's base rows from ``first_row`` on: ``-x <= 0`` (n K rows), ``sum_j sf_j x[j, k]
    <= cap_k`` (K rows), ``sum_k x[j, k] <= 1`` (n rows)."""
    n, num_types = scale_factors.size, capacity.size
    m = n * num_types
    pairs = np.arange(m)
    job_of, type_of = pairs // num_types, pairs % num_types
    return [
        (first_row + pairs, pairs, np.full(m, -1.0)),
        (first_row + m + type_of, pairs, scale_factors[job_of]),
        (first_row + m + num_types + job_of, pairs, np.ones(m)),
    ]


def per_job_entries(values: np.ndarray, first_row: int) -> Entries:
    """Row ``first_row + j`` holds ``values[j, k]`` at share column ``j K + k`` (every pair)."""
    n, num_types = values.shape
    pairs = np.arange(n * num_types)
    return first_row + pairs // num_types, pairs, values.ravel()


def cone_entries(throughputs: np.ndarray, first_row: int, first_w_col: int) -> list[Entries]:
    """The finish-time fairness cones, three rows per job from ``first_row``: ``(-tput_j . x -
    w_j, 0, -tput_j . x + w_j)`` (``w_j`` at column ``first_w_col + j``; the middle row is the
    constant 2 of the right-hand side)."""
    n = throughputs.shape[0]
    jobs = np.arange(n)
    job_of, pairs, rate = per_job_entries(-throughputs, 0)
    return [
        (first_row + 3 * job_of, pairs, rate),
        (first_row + 3 * jobs, first_w_col + jobs, np.full(n, -1.0)),
        (first_row + 3 * job_of + 2, pairs, rate),
        (first_row + 3 * jobs + 2, first_w_col + jobs, np.ones(n)),
    ]


def base_rhs(num_jobs: int, capacity: np.ndarray) -> np.ndarray:
    """Right-hand sides of Gavel's base rows (:func:`base_entries`): 0 for ``-x``, the
    capacities, 1 per job."""
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

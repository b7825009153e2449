"""The makespan bisection of Gavel's min-total-duration policy, with its answers read off one LP.

The bisection (:func:`engine.policies.gavel.min_total_duration.bisect_makespan`) asks, for each
probed makespan ``T``, whether shares exist with ``sum_k X_jk tput_jk >= remaining_j / T`` for
every job (plus the time and capacity rows). With ``y = T0 / T`` that is one LP::

    maximize y  subject to  y <= sum_k (T0 tput_jk / remaining_j) X_jk  for every job j,
                            the time and capacity rows of the feasibility LP, X >= 0

whose optimum gives the smallest feasible makespan ``T* = T0 / y*`` (the max-min LP of
:mod:`engine.policies.gavel.lp` with coefficients ``T0 tput / remaining``). ``T0`` is the
largest ``remaining_j / max_k tput_jk`` (no job finishes sooner alone on its fastest type), so
``y*`` is at most 1 and the coefficients are near 1. A probe ``T`` is then feasible when
``T > T*`` and infeasible when ``T < T*``; probes within ``margin`` (relative) of ``T*``, where
HiGHS's tolerances could answer either way, are still solved. So a decision takes this LP and
the efficiency LP instead of one LP per probe (about 12), and every answer is the one the probe
LP gives: HiGHS's feasibility tolerance is 1e-7 on rows of size 1, the margin 1e-4.
[R] our reformulation, for speed (issue 11); checked probe by probe against the LPs in
``tests/engine/test_policies_gavel_makespan.py`` and on the 2,000-job sample (every probe of
both min-total-duration policies: 0 disagreements).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from engine.policies.gavel.lp import CscMatrix, HighsSolver, LinearProgram

FEASIBLE = np.zeros((0, 0))  # stands for "feasible, shares not computed" in a probe's answer
MARGIN = 1e-4  # probes this close to T* (relative) are solved, not answered
# [R] The same for ECOS's probes (Gavel-compatible preset), wider: an interior-point method can
# stop short of "optimal" where the feasible set is thin. On the 6 min-total-duration pairs of
# the Gavel fidelity traces (every seed, 11,726 ECOS probes) T* decided every probe as ECOS did.
ECOS_MARGIN = 1e-2


def shortest_makespan_s(
    tput: np.ndarray,
    scale_factors: np.ndarray,
    capacity: np.ndarray,
    remaining_steps: np.ndarray,
    solver: HighsSolver,
) -> float | None:
    """``T*``, the smallest makespan any shares reach (module docstring), or None if HiGHS
    reports no optimum.

    Args:
        tput: (n, K) steps/s where the job fits, else 0; every row has a positive entry.
        scale_factors: (n,) GPUs per job; capacity: (K,) GPUs per type.
        remaining_steps: (n,) positive steps left.
    """
    n, num_types = tput.shape
    rows, cols = np.nonzero(tput > 0)
    m = rows.size
    scale_s = float((remaining_steps / tput.max(axis=1)).max())
    values = scale_s * tput[rows, cols] / remaining_steps[rows]
    matrix = CscMatrix(  # share column (j, k): -c in row j, 1 in time row n + j, GPUs in n2 + k
        indptr=np.append(np.arange(0, 3 * m + 1, 3), 3 * m + n),
        indices=np.concatenate(
            [np.column_stack([rows, n + rows, 2 * n + cols]).ravel(), np.arange(n)]
        ),
        data=np.concatenate(
            [np.column_stack([-values, np.ones(m), scale_factors[rows]]).ravel(), np.ones(n)]
        ),
        num_rows=2 * n + num_types,
    )
    b_ub = np.concatenate([np.zeros(n), np.ones(n), capacity.astype(float)])
    objective = np.append(np.zeros(m), -1.0)
    x = solver.solve(LinearProgram(objective, matrix, b_ub, np.append(np.ones(m), np.inf)))
    if x is None or not x[-1] > 0:
        return None
    return scale_s / float(x[-1])


def answered_probe(
    probe: Callable[[float], np.ndarray | None], shortest_s: float, margin: float = MARGIN
) -> Callable[[float], np.ndarray | None]:
    """``probe`` answered from ``T*``: :data:`FEASIBLE` above it, None below, ``probe(T)``
    within ``margin`` (relative) of it."""

    def answer(makespan_s: float) -> np.ndarray | None:
        if abs(makespan_s - shortest_s) <= margin * shortest_s:
            return probe(makespan_s)
        return FEASIBLE if makespan_s > shortest_s else None

    return answer

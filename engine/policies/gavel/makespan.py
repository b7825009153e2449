"""The makespan bisection of Gavel's min-total-duration policy, with its answers read off one LP.

The bisection (:func:`bisect_makespan`: Gavel's, between ``min_makespan_s`` and
``max_makespan_s`` until ``hi <= bisection_ratio x lo``, the next decade if no probe was
feasible) asks, for each probed makespan ``T``, whether shares exist with ``sum_k X_jk tput_jk
>= remaining_j / T`` for every job (plus the time and capacity rows). With ``y = T0 / T`` that
is one LP::

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
``tests/engine/test_policies_gavel_makespan.py`` (its reference solves every probe) and on the
2,000-job sample (every probe of both min-total-duration policies: 0 disagreements). Without
``T*``, or where a probe disagrees with it (never seen), every probe is solved.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from engine.policies.gavel.highs import HighsSolver
from engine.policies.gavel.lp import share_program

Probe = Callable[[float], np.ndarray | None]
"""Shares meeting a makespan (s), or None if none do (or none are to be returned)."""


class Bisection(Protocol):
    """The bisection's parameters (``GavelMinTotalDuration.Params``, a frozen dataclass)."""

    @property
    def min_makespan_s(self) -> float: ...
    @property
    def max_makespan_s(self) -> float: ...
    @property
    def bisection_ratio(self) -> float: ...


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
    n = tput.shape[0]
    rows, cols = np.nonzero(tput > 0)
    scale_s = float((remaining_steps / tput.max(axis=1)).max())
    values = scale_s * tput[rows, cols] / remaining_steps[rows]
    model = share_program(values, rows, cols, scale_factors[rows], n, capacity, 0.0, True)
    x = solver.solve(model)
    if x is None or not x[-1] > 0:
        return None
    return scale_s / float(x[-1])


def answered_probe(probe: Probe, shortest_s: float, margin: float = MARGIN) -> Probe:
    """``probe`` answered from ``T*``: :data:`FEASIBLE` above it, None below, ``probe(T)``
    within ``margin`` (relative) of it."""

    def answer(makespan_s: float) -> np.ndarray | None:
        if abs(makespan_s - shortest_s) <= margin * shortest_s:
            return probe(makespan_s)
        return FEASIBLE if makespan_s > shortest_s else None

    return answer


def bisect_makespan(probe: Probe, params: Bisection) -> tuple[np.ndarray, float]:
    """Smallest feasible makespan probed (s), and its shares (module docstring).

    ``probe(T)`` returns shares meeting makespan ``T`` or None. Bisects ``[low, high]`` until
    ``high <= ratio x low``; if no probe was feasible, searches the next decade.
    """
    best, best_s = None, float("nan")
    low, high = params.min_makespan_s, params.max_makespan_s
    while best is None:
        while params.bisection_ratio * low < high:
            probe_s = 0.5 * (low + high)
            x = probe(probe_s)
            if x is None:
                low = probe_s
            else:
                best, best_s, high = x, probe_s, probe_s
        if best is None:
            low, high = high, high * 10.0
    return best, best_s


def bisect_from_shortest(
    probe: Probe, shortest_s: float | None, params: Bisection, margin: float, final: Probe
) -> tuple[np.ndarray, float]:
    """:func:`bisect_makespan` with the probes answered from ``T*`` (``shortest_s``), then the
    shares at the makespan found: ``final(T)`` if it gives some (the efficiency LP), else the
    probe's (solved then if it was answered). Without ``T*``, or if that probe disagrees with
    it, every probe is solved."""
    if shortest_s is not None:
        best, best_s = bisect_makespan(answered_probe(probe, shortest_s, margin), params)
        x = final(best_s)
        if x is None and best is FEASIBLE:
            x = probe(best_s)  # the LP the bisection would have ended on
        if x is not None or best is not FEASIBLE:
            return (best if x is None else x), best_s
    best, best_s = bisect_makespan(probe, params)
    x = final(best_s)
    return (best if x is None else x), best_s

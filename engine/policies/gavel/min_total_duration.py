"""Gavel's minimum total duration: the allocation that finishes every active job soonest.

Narayanan et al., OSDI 2020, §4.2 ("minimize makespan"; policies ``min_total_duration`` and
``min_total_duration_perf`` of stanford-futuredata/gavel, commit c4fa400, MIT), modelled in our
own code. For a makespan ``T`` the allocation is feasible when every job can finish its remaining
steps by ``T``::

    sum_k X_jk tput_jk >= remaining_j / T   for every job j
    sum_k X_jk <= 1,  sum_j sf_j X_jk <= cap_k,  X >= 0,  X_jk = 0 where job j does not fit

Feasibility is monotone in ``T``, so ``T`` is found by bisection between ``min_makespan_s`` and
``max_makespan_s`` until ``hi <= bisection_ratio x lo`` (Gavel: 100 s, 10^6 s and 1.05; if no
probed ``T`` is feasible, the next decade is searched); the allocation is the one of the smallest
feasible ``T`` probed. The probes are answered from the smallest makespan, one LP
(:mod:`engine.policies.gavel.makespan`). Gavel's round mechanism then grants GPUs as for max-min.

- Heterogeneity-agnostic form: every worker type runs the job at its V100 throughput (Gavel's
  ``MinTotalDurationPolicy``; the fastest type's when the cluster has no V100).
- [R] Outside the Gavel-compatible preset, a last LP at the ``T`` found maximizes
  ``efficiency_epsilon`` times the normalized throughput, so leftover capacity is used.
- Under the preset (``RoundConfig.gavel_rules``) ECOS over every (job, type) pair decides each
  probe and gives the shares, as in Gavel (:mod:`engine.policies.gavel.ecos`): on this
  constant-objective program the interior point it stops at spreads the shares, where a simplex
  vertex would put whole shares on a few jobs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from engine.policies.base import POLICIES
from engine.policies.gavel.ecos import feasible_shares
from engine.policies.gavel.highs import HighsSolver
from engine.policies.gavel.lp import FeasibilityLP, equal_share_throughput, fit_mask
from engine.policies.gavel.makespan import (
    ECOS_MARGIN,
    MARGIN,
    bisect_from_shortest,
    shortest_makespan_s,
)
from engine.policies.gavel.max_min import GavelMaxMin, GavelParams
from engine.state import JobState


class GavelMinTotalDuration(GavelMaxMin):
    """Gavel's makespan-minimizing allocation (module docstring), with Gavel's round mechanism."""

    needs_sync = True  # reads remaining_steps
    solves_by_class = False  # its own LP (_solve), job by job

    @dataclass(frozen=True)
    class Params(GavelParams):
        min_makespan_s: float = field(
            default=100.0, metadata={"help": "Lower end of the makespan bisection (s)"}
        )
        max_makespan_s: float = field(
            default=1e6, metadata={"help": "Upper end of the first makespan bisection (s)"}
        )
        bisection_ratio: float = field(
            default=1.05, metadata={"help": "Bisection stops when high / low is below this"}
        )

    def _solve(self, now_s: float, active: list[JobState], rows: np.ndarray) -> np.ndarray:
        """Time shares X of the smallest feasible makespan found (module docstring)."""
        return self._shortest(active, rows, gavel_solver=False)

    def _solve_gavel(self, now_s: float, active: list[JobState], rows: np.ndarray) -> np.ndarray:
        """:meth:`_solve` with Gavel's solver, ECOS, over every (job, type) pair."""
        return self._shortest(active, rows, gavel_solver=True)

    def _shortest(self, active: list[JobState], rows: np.ndarray, gavel_solver: bool) -> np.ndarray:
        throughputs = self.book.throughputs(rows)
        if not self.heterogeneity_aware:
            throughputs = self._reference_throughputs(throughputs, every_type=gavel_solver)
        remaining = np.array([job.remaining_steps for job in active])
        shares, _ = solve_min_total_duration(
            throughputs,
            self.book.scale_factors(rows),
            self.capacity,
            remaining,
            self.params,
            gavel_solver=gavel_solver,
            solver=self.probe_solver,
        )
        return shares


def solve_min_total_duration(
    throughputs: np.ndarray,
    scale_factors: np.ndarray,
    capacity: np.ndarray,
    remaining_steps: np.ndarray,
    params: GavelMinTotalDuration.Params,
    gavel_solver: bool = False,
    solver: HighsSolver | None = None,
) -> tuple[np.ndarray, float]:
    """Bisection on the makespan (module docstring).

    Args:
        throughputs: (n, K) steps/s at each job's scale factor; 0 = does not fit.
        scale_factors: (n,) GPUs per job.
        capacity: (K,) GPUs per worker type.
        remaining_steps: (n,) steps left.
        params: bisection bounds and the efficiency weight.
        gavel_solver: Gavel's solver: ECOS over every (job, type) pair decides feasibility and
            gives the shares (:mod:`engine.policies.gavel.ecos`); else HiGHS over the pairs
            where the job fits, then the efficiency LP.
        solver: a HiGHS instance to reuse (else a fresh one for this solve).

    Returns:
        (n, K) time shares and the makespan they reach (s; NaN if no job takes part).
    """
    n, num_types = throughputs.shape
    shares = np.zeros((n, num_types))
    fits = fit_mask(throughputs, scale_factors, capacity)
    live = fits.any(axis=1) & (remaining_steps > 0)
    if not live.any():
        return shares, float("nan")
    remaining, sf = remaining_steps[live], scale_factors[live]
    if gavel_solver:
        tput = throughputs[live]
        lp_tput, margin, solver = (
            np.where(tput > 0, tput, 0.0),
            ECOS_MARGIN,
            solver or HighsSolver(),
        )

        def probe(makespan_s: float) -> np.ndarray | None:
            return feasible_shares(tput, sf, capacity, remaining, makespan_s)

        def final(makespan_s: float) -> np.ndarray | None:
            return None  # the shares are ECOS's point at the makespan found
    else:
        equal = equal_share_throughput(throughputs, fits, capacity)[live]
        problem = FeasibilityLP(np.where(fits, throughputs, 0.0)[live], sf, capacity, equal, solver)
        lp_tput, margin, solver = problem.tput, MARGIN, problem.solver

        def probe(makespan_s: float) -> np.ndarray | None:
            return problem.solve(makespan_s / remaining, 0.0)

        def final(makespan_s: float) -> np.ndarray | None:  # the efficiency LP [R]
            epsilon = params.efficiency_epsilon
            return problem.solve(makespan_s / remaining, epsilon) if epsilon > 0 else None

    shortest_s = shortest_makespan_s(lp_tput, sf, capacity, remaining, solver)
    best, best_s = bisect_from_shortest(probe, shortest_s, params, margin, final)
    shares[live] = np.clip(best, 0.0, 1.0)
    return shares, best_s


class GavelMinTotalDurationAware(GavelMinTotalDuration):
    """Gavel's minimum makespan, heterogeneity-aware: each type at the job's measured throughput.

    Narayanan et al., OSDI 2020 (``min_total_duration_perf``).
    """

    cost_s_per_job: ClassVar[float] = 0.000625  # run order: bench_select_all.py

    display_name = "Gavel min total duration"
    group = "Gavel"

    heterogeneity_aware = True


POLICIES.register("gavel_min_total_duration", GavelMinTotalDurationAware)


class GavelMinTotalDurationAgnostic(GavelMinTotalDuration):
    """Gavel's minimum makespan, heterogeneity-agnostic: every type at the job's V100 throughput.

    Narayanan et al., OSDI 2020 (``min_total_duration``).
    """

    cost_s_per_job: ClassVar[float] = 0.001155  # run order: bench_select_all.py

    display_name = "Gavel min total duration (agnostic)"
    group = "Gavel"

    heterogeneity_aware = False


POLICIES.register("gavel_min_total_duration_agnostic", GavelMinTotalDurationAgnostic)

"""Gavel: finish-time fairness over time shares, applied round by round.

Narayanan et al., OSDI 2020 (policies ``finish_time_fairness`` and ``finish_time_fairness_perf``
of stanford-futuredata/gavel, MIT), after Themis (Mahajan et al., NSDI 2020). The allocation
``X[job][worker_type]`` minimizes the worst finish-time fairness ratio over active jobs::

    rho_j(X) = (elapsed_j + remaining_j / T_j(X)) / (elapsed_j + remaining_j / T_iso_j)

with ``T_j(X) = sum_k X_jk tput_jk`` (steps/s) and ``T_iso_j`` the job's throughput on an equal
1/N share of the cluster, subject to the max-min LP's constraints (``sum_k X_jk <= 1``,
``sum_j sf_j X_jk <= cap_k``, ``X_jk = 0`` where the job does not fit). Gavel's round mechanism
then grants GPUs exactly as for max-min (:class:`engine.policies.gavel.max_min.GavelMaxMin`).

Reconstructions [R]:

- Solved by bisection on ``rho`` instead of Gavel's cvxpy program with ``inv_pos``: for a fixed
  ``rho`` the condition ``rho_j(X) <= rho`` is ``T_j(X) >= remaining_j / (rho I_j - elapsed_j)``
  (``I_j`` = the isolated finish-time term, the denominator), linear in ``X``; a job with
  ``rho I_j <= elapsed_j`` makes that ``rho`` infeasible. Feasibility is monotone in ``rho``, so
  bisection reaches the same optimum as the quasi-convex program, to ``rho_tolerance``
  (relative) or ``bisection_steps`` HiGHS feasibility checks, whichever comes first. A last
  LP at the feasible ``rho`` found maximizes ``efficiency_epsilon`` times the normalized
  throughput, so leftover capacity is used.
- ``elapsed_j = now - arrival_s``; ``T_iso_j = min(1, C / (N sf_j)) tput_equal_j``, with C the
  cluster's GPUs, N the active jobs and ``tput_equal`` the capacity-weighted mean throughput over
  the fitting types: the isolated run of this project's ``ftf_rho`` metric (:mod:`engine.metrics`).
- Heterogeneity-agnostic form: every fitting type runs the job at ``tput_equal_j`` (all types
  equally fast, as in ``gavel_maxmin_agnostic``), so only total time share counts.
- A job with no remaining steps or fitting nowhere gets no share and no fairness row.

Under ``RoundConfig.gavel_rules`` (the Gavel-compatible preset) the isolated finish time follows
Gavel's ``FinishTimeFairnessPolicyWithPerf``: ``cumulative isolated time + remaining / T_iso``,
where the cumulative isolated time adds, at every solve, the steps done since the previous solve
divided by the isolated throughput of that solve; the agnostic form gives every type the job's
V100 throughput on every type (Gavel's ``FinishTimeFairnessPolicy``; the fastest type's when the
cluster has no V100); and Gavel's program over every (job, type) pair is solved with Gavel's
solver, ECOS (:mod:`engine.policies.gavel.ecos`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from engine.policies.base import POLICIES, PolicyContext
from engine.policies.gavel.ecos import finish_time_fairness_shares
from engine.policies.gavel.highs import HighsSolver
from engine.policies.gavel.lp import FeasibilityLP, equal_share_throughput, fit_mask
from engine.policies.gavel.max_min import GavelMaxMin, GavelParams
from engine.state import JobState


class GavelFinishTimeFairness(GavelMaxMin):
    """Gavel's finish-time fairness (minimize the worst rho), with Gavel's round mechanism."""

    needs_sync = True  # reads remaining_steps
    solves_by_class = False  # its own LP (_solve), job by job

    @dataclass(frozen=True)
    class Params(GavelParams):
        bisection_steps: int = field(
            default=30, metadata={"help": "Most LP feasibility checks per solve (bisection on rho)"}
        )
        rho_tolerance: float = field(
            default=1e-3, metadata={"help": "Relative width at which the rho bisection stops"}
        )

    def __init__(self, params: GavelParams, context: PolicyContext) -> None:
        super().__init__(params, context)
        self._isolated_time = IsolatedTime()

    def _solve(self, now_s: float, active: list[JobState], rows: np.ndarray) -> np.ndarray:
        """Time shares X minimizing the worst rho (module docstring)."""
        elapsed_s, remaining = progress(now_s, active)
        shares, _ = solve_finish_time_fairness(
            self.book.throughputs(rows),
            self.book.scale_factors(rows),
            self.capacity,
            np.maximum(elapsed_s, 0.0),
            remaining,
            self.heterogeneity_aware,
            self.params,
            self.probe_solver,
        )
        return shares

    def _solve_gavel(self, now_s: float, active: list[JobState], rows: np.ndarray) -> np.ndarray:
        """Gavel's program with Gavel's solver (module docstring; :mod:`.ecos`)."""
        elapsed_s, remaining = progress(now_s, active)
        throughputs = self.book.throughputs(rows)
        if not self.heterogeneity_aware:
            throughputs = self._reference_throughputs(throughputs, every_type=True)
        scale_factors = self.book.scale_factors(rows)
        isolated_s = self._gavel_isolated_s(active, throughputs, scale_factors, remaining)
        shares = finish_time_fairness_shares(
            throughputs, scale_factors, self.capacity, elapsed_s, remaining, isolated_s
        )
        if shares is not None:
            return shares
        split = self.capacity[None, :] / (len(active) * scale_factors[:, None])  # Gavel's
        return np.asarray(split / np.maximum(split.sum(axis=1, keepdims=True), 1.0))  # fallback

    def _gavel_isolated_s(
        self,
        active: list[JobState],
        throughputs: np.ndarray,
        scale_factors: np.ndarray,
        remaining: np.ndarray,
    ) -> np.ndarray:
        """(n,) Gavel's isolated finish-time term: cumulative isolated time + remaining / T_iso."""
        iso = isolated_throughput(throughputs, scale_factors, self.capacity, len(active))
        return self._isolated_time.update(active, remaining, iso)


class IsolatedTime:
    """The isolated finish-time term of a finish-time fairness ratio, kept across solves.

    Gavel's ``FinishTimeFairnessPolicyWithPerf`` (stanford-futuredata/gavel c4fa400,
    ``scheduler/policies/finish_time_fairness.py``): a job's term is its cumulative isolated time
    plus its remaining steps over its isolated rate, and the cumulative isolated time adds, at
    every solve, the steps done since the job's previous solve over the rate of that solve.
    Muri's Themis (``themis_sim_jobs``) keeps the same books with its own rate
    (:mod:`engine.policies.themis.policy`).
    """

    def __init__(self) -> None:
        self._cumulative_s: dict[int, float] = {}
        self._previous: dict[int, tuple[float, float]] = {}  # remaining steps, rate at a solve

    def update(self, active: list[JobState], remaining: np.ndarray, rate: np.ndarray) -> np.ndarray:
        """(n,) the term of each of the ``active`` jobs at this solve (inf where ``rate`` is 0).

        Args:
            active: the jobs of this solve; remaining: (n,) their steps left; rate: (n,) their
                isolated rates (steps/s for Gavel; a share for Muri's Themis).
        """
        cumulative = np.zeros(len(active))
        for i, job in enumerate(active):
            total = self._cumulative_s.get(job.index, 0.0)
            if job.index in self._previous:
                previous_remaining, previous_rate = self._previous[job.index]
                total += (previous_remaining - remaining[i]) / previous_rate
            self._cumulative_s[job.index] = cumulative[i] = total
        self._previous = {
            job.index: (float(remaining[i]), float(rate[i]))
            for i, job in enumerate(active)
            if rate[i] > 0
        }
        with np.errstate(divide="ignore"):
            return np.asarray(cumulative + remaining / rate)


def progress(now_s: float, active: list[JobState]) -> tuple[np.ndarray, np.ndarray]:
    """(n,) time since arrival (s) and (n,) steps left of the ``active`` jobs."""
    elapsed_s = np.array([now_s - job.arrival_s for job in active])
    return elapsed_s, np.array([job.remaining_steps for job in active])


def isolated_throughput(
    throughputs: np.ndarray, scale_factors: np.ndarray, capacity: np.ndarray, num_jobs: int
) -> np.ndarray:
    """(n,) steps/s of each job alone on a 1/``num_jobs`` share of the cluster (see module)."""
    fits = fit_mask(throughputs, scale_factors, capacity)
    share = np.minimum(1.0, capacity.sum() / (num_jobs * scale_factors))
    return share * equal_share_throughput(throughputs, fits, capacity)


def solve_finish_time_fairness(
    throughputs: np.ndarray,
    scale_factors: np.ndarray,
    capacity: np.ndarray,
    elapsed_s: np.ndarray,
    remaining_steps: np.ndarray,
    heterogeneity_aware: bool,
    params: GavelFinishTimeFairness.Params,
    solver: HighsSolver | None = None,
) -> tuple[np.ndarray, float]:
    """Minimizes the worst rho by bisection (module docstring).

    Args:
        throughputs: (n, K) steps/s at each job's scale factor; 0 = does not fit.
        scale_factors: (n,) GPUs per job.
        capacity: (K,) GPUs per worker type.
        elapsed_s: (n,) time since arrival (s).
        remaining_steps: (n,) steps left.
        heterogeneity_aware: False treats every fitting type as equally fast.
        params: bisection and efficiency settings.
        solver: a HiGHS instance to reuse (else a fresh one for this solve).

    Returns:
        (n, K) time shares ``X`` and the worst rho they reach (NaN if no job takes part).
    """
    n, num_types = throughputs.shape
    shares = np.zeros((n, num_types))
    fits = fit_mask(throughputs, scale_factors, capacity)
    equal = equal_share_throughput(throughputs, fits, capacity)
    iso = isolated_throughput(throughputs, scale_factors, capacity, n)
    live = fits.any(axis=1) & (remaining_steps > 0) & (iso > 0)
    if not live.any():
        return shares, float("nan")
    tput = throughputs if heterogeneity_aware else fits * equal[:, None]
    problem = FeasibilityLP(
        np.where(fits, tput, 0.0)[live], scale_factors[live], capacity, equal[live], solver
    )
    elapsed, remaining = elapsed_s[live], remaining_steps[live]
    isolated_s = elapsed + remaining / iso[live]
    start = _equal_split(fits[live], scale_factors[live], capacity)

    def worst_rho(x: np.ndarray) -> float:
        rate = (x * problem.tput).sum(axis=1)
        return float(((elapsed + remaining / rate) / isolated_s).max())

    best_x, hi = start, worst_rho(start)
    lo = float(((elapsed + remaining / problem.tput.max(axis=1)) / isolated_s).max())
    steps = 0
    probe = lo
    while steps < params.bisection_steps and hi - lo > params.rho_tolerance * hi:
        steps += 1
        x = problem.solve(_coefficient(probe, isolated_s, elapsed, remaining), 0.0)
        if x is None:
            lo = probe
        else:
            best_x, hi = x, probe
        probe = 0.5 * (lo + hi)
    if params.efficiency_epsilon > 0:
        x = problem.solve(
            _coefficient(hi, isolated_s, elapsed, remaining), params.efficiency_epsilon
        )
        best_x = best_x if x is None else x
    shares[live] = np.clip(best_x, 0.0, 1.0)
    return shares, worst_rho(shares[live])


def _coefficient(
    rho: float, isolated_s: np.ndarray, elapsed: np.ndarray, remaining: np.ndarray
) -> np.ndarray | None:
    """``a_j`` with ``rho_j <= rho`` iff ``a_j T_j(X) >= 1``; None if some job cannot reach rho."""
    slack_s = rho * isolated_s - elapsed
    if (slack_s <= 0).any():
        return None
    return np.asarray(slack_s / remaining)


def _equal_split(fits: np.ndarray, scale_factors: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """A feasible start: each type split over the jobs fitting it by GPUs, rows capped at 1."""
    demand = (fits * scale_factors[:, None]).sum(axis=0)
    x = fits * np.divide(capacity, demand, out=np.zeros_like(capacity), where=demand > 0)
    total = x.sum(axis=1, keepdims=True)
    return np.asarray(x / np.maximum(total, 1.0))


class GavelFinishTimeFairnessAware(GavelFinishTimeFairness):
    """Gavel finish-time fairness, heterogeneity-aware: minimizes the worst JCT / isolated JCT.

    Narayanan et al., OSDI 2020 (``finish_time_fairness_perf``), after Themis (Mahajan et al.,
    NSDI 2020); each job's rate counts its measured throughput on every worker type.
    """

    cost_s_per_job: ClassVar[float] = 0.00065  # run order: bench_select_all.py

    display_name = "Gavel finish-time fairness"
    group = "Gavel"

    heterogeneity_aware = True


POLICIES.register("gavel_ftf", GavelFinishTimeFairnessAware)


class GavelFinishTimeFairnessAgnostic(GavelFinishTimeFairness):
    """Gavel finish-time fairness, heterogeneity-agnostic: every worker type counts as equally fast.

    Narayanan et al., OSDI 2020 (``finish_time_fairness``), after Themis (Mahajan et al.,
    NSDI 2020): the allocation sees only each job's total time share.
    """

    cost_s_per_job: ClassVar[float] = 0.00093  # run order: bench_select_all.py

    display_name = "Gavel finish-time fairness (agnostic)"
    group = "Gavel"

    heterogeneity_aware = False


POLICIES.register("gavel_ftf_agnostic", GavelFinishTimeFairnessAgnostic)

"""Themis: finish-time fairness, as Muri's testbed code runs it.

Mahajan, Balasubramanian, Sivaraman, Lee, Grace, Kumar, Mancuso, Chawla, "Themis: Fair and
Efficient GPU Cluster Scheduling", NSDI 2020: a job's finish-time fairness is
``rho = T_shared / T_ideal`` (its finish time in the shared cluster over its finish time alone on
a 1/N share); Themis auctions leases, round by round, among the 1 - f fraction of jobs farthest
from fair. Muri's testbed (Zhao et al., SIGCOMM 2022) ran Themis as its code,
github.com/Rivendile/Muri ``cluster_exp/run.py`` ``themis_sim_jobs`` (Apache-2.0, read, not
copied), models it; this policy follows that code, not the paper's auction:

- At every decision, time shares ``x`` (one per job, in [0, 1], GPUs x shares within the
  cluster) minimize the worst ``rho_j = (elapsed_j + remaining_j / (tput_j x_j)) / I_j``
  (Gavel's program, solved with ECOS as Muri does: :func:`engine.policies.gavel.ecos.
  finish_time_fairness_shares`).
- ``I_j`` as Muri's code computes it: the job's cumulative isolated time plus its remaining
  iterations over its 1/N share ``min(1, ceil(C / N) / gpus_j)`` (``get_isolated_throughputs``
  returns that share, not share x throughput, so ``I_j`` counts iterations); the cumulative
  isolated time adds, at every decision, the iterations done since the previous one over the
  share of that decision: Gavel's books (:class:`engine.policies.gavel.ftf.IsolatedTime`), with
  this share as the rate.
- Jobs are ranked by ``x`` (``x / rounds received`` once a job has run), then deficit (lease
  time it should have received, ``sum x x lease``, less time held), then ``x``, largest first;
  in that order each job that still fits (GPUs per worker type: its current type if it has room,
  else the fitting type with most free GPUs, :func:`engine.policies.agnostic.most_free_type`)
  runs. Grants are issued in decreasing GPU count (Muri's placement order).
- The lease is the scenario's round (Muri's run script: ``schedule_intervals=("360")``, set by
  the ``muri_testbed`` preset). The policy re-plans (solves, ranks, counts a round received and
  adds ``x x lease`` to the time a job should have received) only when a job arrived, completed
  or was stopped since its previous call; otherwise every running job keeps its GPUs and
  nothing else starts (``themis_sim_jobs``: the plan runs under ``if (done_flag or new_flag)``,
  and a round without either leaves every job as it runs). Under the preset the engine calls
  at round boundaries only, and relaunches every job at a boundary with an event.
- The fairness knob ``f`` (``fairness_knob``; the paper's section on it, with the count and
  the ties of its authors' simulator: :mod:`engine.policies.themis.knob`): at a re-plan, each
  job's ``rho`` now, ``(elapsed_j + remaining_j / tput_j) / I_j`` with ``tput_j`` its rate on
  the GPUs it holds (a stopped job: on its fastest type [R]; the simulator keeps the estimate
  of its last iteration), and ``inf`` for a job that never ran (the simulator ranks those by
  wait x 10^4, above the rest: ties here go to the earlier arrival), ranks the jobs; only the
  ``max(floor((1 - f) N), 1)`` with the largest take part: the program, the ranking and the
  books above count them alone (``I_j`` keeps the 1/N share of all N
  jobs). Every lease ends at a re-plan (Muri's relaunch), so the others hold nothing new: they
  get only the GPUs the bidders leave, largest ``rho`` first, each if it fits (the paper's
  leftover allocation, work-conserving; the simulator offers the leftover to the next-worst).
  ``f`` = 0, the default, lets every job take part: Muri's code has no knob, so its run is
  ``f`` = 0 and every result is as without the knob.

Departures [R]: no auction (Muri's code has none); a job's throughput is its steps/s on each
worker type (Muri's testbed has one type: 1 / iteration time).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from engine.allocation.grants import gang_grant
from engine.policies.agnostic import most_free_type
from engine.policies.base import POLICIES, Allocation, Policy, PolicyContext, SchedulerState
from engine.policies.gavel.ecos import finish_time_fairness_shares
from engine.policies.gavel.ftf import IsolatedTime, progress
from engine.policies.themis.knob import check_fairness_knob, take_part
from engine.state import JobState


@dataclass(frozen=True)
class ThemisParams:
    """Themis's knob (:mod:`engine.policies.themis.knob`).

    Raises:
        ConfigError: ``fairness_knob`` outside [0, 1) (naming it).
    """

    fairness_knob: float = field(
        default=0.0,
        metadata={
            "help": "Themis's f: each round only the 1 - f fraction of jobs farthest from fair "
            "take part (0 = every job, as Muri's testbed ran it; near 1 = the most unfair only)"
        },
    )

    def __post_init__(self) -> None:
        check_fairness_knob(self.fairness_knob)


class Themis(Policy):
    """Themis: minimize the worst finish-time fairness ratio, then run jobs by their share.

    Mahajan et al., NSDI 2020, as Muri's testbed code models it (rules and sources in
    :mod:`engine.policies.themis.policy`).
    """

    display_name: ClassVar[str] = "Themis"
    group: ClassVar[str] = "Baselines"  # exclusive GPUs: Muri's baseline
    preemptive: ClassVar[bool] = True

    Params: ClassVar[type[ThemisParams]] = ThemisParams

    def __init__(self, params: ThemisParams, context: PolicyContext) -> None:
        super().__init__(params, context)
        self.knob = params.fairness_knob
        self.capacity = context.cluster.capacity()
        self.lease_s = context.rounds.round_duration_s
        self._isolated_time = IsolatedTime()
        self._should_s: dict[int, float] = {}  # lease time it should have received
        self._rounds: dict[int, int] = {}  # decisions that granted it GPUs

    def allocate(self, state: SchedulerState) -> Allocation:
        if not (state.arrived or state.completed or state.stopped):
            return {job.index: job.grant for job in state.running if job.grant is not None}
        active = [job for job in state.active() if job.remaining_steps > 0]
        if not active:
            return {}
        elapsed_s, remaining = progress(state.now_s, active)
        scale = np.array([float(job.scale_factor) for job in active])
        fair = np.minimum(1.0, math.ceil(sum(self.capacity.values()) / len(active)) / scale)
        isolated = self._isolated_time.update(active, remaining, fair)
        rho = self._rho_now(active, elapsed_s, remaining, isolated)
        bids = take_part(rho, self.knob)
        bidders = [job for job, bid in zip(active, bids, strict=True) if bid]
        shares: list[float] = self._shares(
            bidders, elapsed_s[bids], remaining[bids], isolated[bids], fair[bids]
        ).tolist()
        order = sorted(
            range(len(bidders)), key=lambda i: self._rank(bidders[i], shares[i]), reverse=True
        )
        for i, job in enumerate(bidders):
            self._should_s[job.index] = (
                self._should_s.get(job.index, 0.0) + shares[i] * self.lease_s
            )
        ranked = [bidders[i] for i in order] + self._leftover(active, bids, rho)
        return self._grants(ranked, dict(state.capacity))

    def _rho_now(
        self,
        active: list[JobState],
        elapsed_s: np.ndarray,
        remaining: np.ndarray,
        isolated: np.ndarray,
    ) -> np.ndarray:
        """(n,) each job's finish-time fairness now, the knob's ranking (module docstring):
        the program's ``rho`` at the job's own rate, ``inf`` for a job that never ran."""
        rate = np.array([self._rate_now(job) for job in active])
        with np.errstate(divide="ignore"):
            return np.asarray((elapsed_s + remaining / rate) / isolated)

    def _rate_now(self, job: JobState) -> float:
        """Steps/s on the GPUs the job holds, else on its fastest type; 0 if it never ran."""
        if job.grant is not None:
            return job.steps_per_s.get(job.grant.worker_type, 0.0)
        if job.index not in self._rounds:
            return 0.0
        return max(job.steps_per_s.values(), default=0.0)

    @staticmethod
    def _leftover(active: list[JobState], bids: np.ndarray, rho: np.ndarray) -> list[JobState]:
        """The jobs that do not take part, largest ``rho`` first (ties: arrival order): they
        get the GPUs the bidders leave, work-conserving (none with ``f`` = 0)."""
        if bids.all():
            return []
        return [active[i] for i in np.argsort(-rho, kind="stable") if not bids[i]]

    def _rank(self, job: JobState, share: float) -> tuple[float, float, float]:
        """Muri's sort key: share (over rounds received), deficit, share."""
        rounds = self._rounds.get(job.index, 0)
        deficit_s = self._should_s.get(job.index, 0.0) - job.held_s
        return (share * 1e9 if rounds == 0 else share / rounds, deficit_s, share)

    def _grants(self, order: list[JobState], free: dict[str, int]) -> Allocation:
        """Each job in ``order`` that still fits, granted in decreasing GPU count."""
        chosen: list[tuple[JobState, str]] = []
        for job in order:
            grant = job.grant
            worker_type = grant.worker_type if grant is not None else None
            if worker_type is None or free.get(worker_type, 0) < job.scale_factor:
                worker_type = most_free_type(job, free)
            if worker_type is not None:
                free[worker_type] -= job.scale_factor
                chosen.append((job, worker_type))
                self._rounds[job.index] = self._rounds.get(job.index, 0) + 1
        chosen.sort(key=lambda c: -c[0].scale_factor)  # stable: rank order within a size
        return {job.index: gang_grant(wt, job.scale_factor) for job, wt in chosen}

    def _shares(
        self,
        bidders: list[JobState],
        elapsed_s: np.ndarray,
        remaining: np.ndarray,
        isolated: np.ndarray,
        fair: np.ndarray,
    ) -> np.ndarray:
        """(n,) time shares of the ``bidders`` minimizing their worst rho (module docstring);
        Muri's code has no fallback, so a failed solve gives every job its 1/N share ``fair``."""
        types = list(self.capacity)
        throughputs = np.array([[job.steps_per_s.get(t, 0.0) for t in types] for job in bidders])
        scale = np.array([float(job.scale_factor) for job in bidders])
        capacity = np.array([float(self.capacity[t]) for t in types])
        x = finish_time_fairness_shares(
            throughputs, scale, capacity, elapsed_s, remaining, isolated
        )
        return fair if x is None else np.asarray(x.sum(axis=1))


POLICIES.register("themis", Themis)

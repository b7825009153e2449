"""Consolidation levels for Dally-style delay scheduling: the levels a job reaches, their cost.

The levels and the search for free nodes at a level are the placement layer's
(:mod:`engine.placement.levels`; the scenario's placement strategy picks the nodes within a
level). Here: :class:`DallyLayout` adds the job's view (the worker types it fits, the best level
it could reach), :class:`LevelModel` reads each level's iteration-time slowdown over node-local
from the engine's step-time model (:mod:`engine.step_time.estimator`), so the policy never assumes
bandwidths, and :func:`allowed_level` / :func:`next_timer_s` are the delay timers.
"""

from __future__ import annotations

import math
from bisect import bisect_right

from engine.placement.levels import NETWORK, NODE, RACK, Board, Nodes, Option, TypeLayout
from engine.policies.base import Grant, Part
from engine.state import JobState
from engine.step_time.estimator import StepTimeModel
from engine.step_time.network import LEVELS, change_times

__all__ = ["NETWORK", "NODE", "RACK", "Board", "LevelModel", "DallyLayout", "Option", "grant_of"]

TIMER_SLACK_S = 1e-6
"""A timer counts as expired this close to its expiry, so a wake-up at the expiry time
(floating-point sums) releases the job."""


def grant_of(option: Option) -> Grant:
    """The node-pinned gang grant of a placement found on the board."""
    return Grant.of_parts(Part(option.worker_type, count, node) for node, count in option.parts)


class DallyLayout(TypeLayout):
    """The cluster's nodes by worker type and rack, with the queries Dally makes about a job."""

    def __init__(self, nodes: Nodes) -> None:
        super().__init__(nodes)
        self._fitting: dict[tuple[str, int], list[str]] = {}

    def fitting_types(self, job: JobState) -> list[str]:
        """Worker types the job's gang runs on (measured speed > 0) and fits in (capacity).

        Cached per (job type, scale factor), which fix the job's measured speeds.
        """
        key = (job.job_type, job.scale_factor)
        types = self._fitting.get(key)
        if types is None:
            types = self._fitting[key] = [
                wt
                for wt, size in self.size.items()
                if size >= job.scale_factor and job.steps_per_s.get(wt, 0.0) > 0
            ]
        return types

    def job_best_level(self, job: JobState) -> int:
        """The best level the job's gang reaches on any worker type it fits (empty cluster)."""
        return min(
            (self.best_level(wt, job.scale_factor) for wt in self.fitting_types(job)),
            default=NETWORK,
        )


class LevelModel:
    """Iteration-time slowdown of a gang at each level over node-local, from the engine.

    ``slowdowns(job, wt, now_s)`` is ``(1, t_rack / t_node, t_network / t_node)`` under the
    congestion in force at ``now_s``, from the step-time model's gang at each level
    (:meth:`engine.step_time.estimator.StepTimeModel.at_level`) with every rack of the cluster
    touched
    (the worst case of a rack-specific episode). Cached per job type, size, worker type and
    congestion epoch (the interval between two congestion changes).
    """

    def __init__(self, step_time: StepTimeModel, racks: tuple[str, ...]) -> None:
        self.step_time = step_time
        self.racks = racks
        self.changes = change_times(step_time.network)
        self._cache: dict[tuple[str, int, str, int], tuple[float, float, float]] = {}

    def slowdowns(self, job: JobState, worker_type: str, now_s: float) -> tuple[float, ...]:
        epoch = bisect_right(self.changes, now_s)
        key = (job.job_type, job.scale_factor, worker_type, epoch)
        if key not in self._cache:
            measured, n = job.steps_per_s[worker_type], job.scale_factor
            rates = [
                self.step_time.at_level(
                    job, worker_type, n, level, now_s, self.racks, measured
                ).steps_per_s
                for level in LEVELS
            ]
            self._cache[key] = (1.0, rates[0] / rates[1], rates[0] / rates[2])
        return self._cache[key]

    def runtime_s(self, job: JobState, worker_type: str, level: int, now_s: float) -> float:
        """Seconds the job's remaining steps take on ``worker_type`` at ``level``."""
        node_s = job.remaining_steps / job.steps_per_s[worker_type]
        return node_s * self.slowdowns(job, worker_type, now_s)[level]

    def timers_s(self, job: JobState, now_s: float, gamma: float) -> tuple[float, float]:
        """Delay timers ``(T_node, T_rack)`` (s): ``gamma`` times what consolidation saves.

        ``T_node = gamma (s_rack - 1) runtime`` and ``T_rack = gamma (s_net - s_rack) runtime``
        (Dally, Sharma et al. 2024, reconstructed), with the slowdowns and the node-local
        remaining runtime on the job's fastest worker type. Zero for a job that fits nowhere.
        """
        fitting = [wt for wt, rate in job.steps_per_s.items() if rate > 0]
        if not fitting or gamma <= 0:
            return 0.0, 0.0
        fastest = max(fitting, key=lambda wt: job.steps_per_s[wt])
        _, s_rack, s_net = self.slowdowns(job, fastest, now_s)
        runtime = self.runtime_s(job, fastest, NODE, now_s)
        return gamma * (s_rack - 1.0) * runtime, gamma * max(0.0, s_net - s_rack) * runtime


def allowed_level(
    topology: DallyLayout, model: LevelModel, job: JobState, now_s: float, gamma: float
) -> int:
    """Worst level the job accepts at ``now_s`` under delay scheduling (Dally [R]).

    Its best reachable level until the node timer has run since arrival, then rack until the
    rack timer has run too, then any level. A job that cannot fit on one node starts at rack.
    """
    best = topology.job_best_level(job)
    if best == NETWORK:
        return NETWORK
    t_node, t_rack = model.timers_s(job, now_s, gamma)
    waited = now_s - job.arrival_s + TIMER_SLACK_S
    rack_after = t_node if best == NODE else 0.0
    if waited >= rack_after + t_rack:
        return NETWORK
    return RACK if waited >= rack_after else NODE


def next_timer_s(
    topology: DallyLayout, model: LevelModel, job: JobState, now_s: float, gamma: float
) -> float:
    """When the job's next delay timer expires, as timed at ``now_s`` (infinity when it already
    accepts any level); Dally asks the engine to decide again then."""
    best = topology.job_best_level(job)
    if best == NETWORK:
        return math.inf
    t_node, t_rack = model.timers_s(job, now_s, gamma)
    rack_after = t_node if best == NODE else 0.0
    waited = now_s - job.arrival_s + TIMER_SLACK_S
    if waited < rack_after:
        return job.arrival_s + rack_after
    if waited < rack_after + t_rack:
        return job.arrival_s + rack_after + t_rack
    return math.inf

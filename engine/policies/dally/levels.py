"""Consolidation levels for Dally-style delay scheduling: where a one-type gang fits right now.

A gang of ``n`` GPUs of one worker type sits at one of three levels (:data:`engine.network.LEVELS`,
best first): one node, the nodes of one rack, or nodes in several racks. :class:`NodeLayout` knows
the best level each gang could ever reach on the cluster; :class:`Board` tracks free GPUs per node
during one decision and finds the best placement at or above a level (the placement strategy of
:mod:`engine.placement.consolidated`). :class:`LevelModel` reads each level's iteration-time
slowdown over node-local from the engine's step model, so the policy never assumes bandwidths.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from typing import NamedTuple

from engine.config import NetworkConfig
from engine.network import LEVELS, change_times, step_model
from engine.placement.consolidated import consolidated
from engine.placement.first_fit import first_fit
from engine.policies.base import Grant, NodeInfo, Part
from engine.state import JobState

NODE, RACK, NETWORK = 0, 1, 2
"""Level indices into :data:`engine.network.LEVELS`."""
TIMER_SLACK_S = 1e-6
"""A timer counts as expired this close to its expiry, so a wake-up at the expiry time
(floating-point sums) releases the job."""


class Option(NamedTuple):
    """A placement found on the board: worker type, level index and (node, GPUs) pairs."""

    worker_type: str
    level: int
    parts: tuple[tuple[int, int], ...]

    def grant(self) -> Grant:
        """The node-pinned gang grant of this placement."""
        return Grant.of_parts(Part(self.worker_type, count, node) for node, count in self.parts)


class NodeLayout:
    """The cluster's nodes grouped by worker type and rack (static for a run)."""

    def __init__(self, nodes: Sequence[NodeInfo]) -> None:
        self.rack_of = [node.rack for node in nodes]
        self.type_nodes: dict[str, list[int]] = {}
        self.size: dict[str, int] = {}
        self.max_node: dict[str, int] = {}
        rack_size: dict[tuple[str, str], int] = {}
        for node in nodes:
            self.type_nodes.setdefault(node.worker_type, []).append(node.node)
            self.size[node.worker_type] = self.size.get(node.worker_type, 0) + node.num_gpus
            self.max_node[node.worker_type] = max(
                self.max_node.get(node.worker_type, 0), node.num_gpus
            )
            key = (node.worker_type, node.rack)
            rack_size[key] = rack_size.get(key, 0) + node.num_gpus
        self.max_rack: dict[str, int] = {}
        for (worker_type, _), size in rack_size.items():
            self.max_rack[worker_type] = max(self.max_rack.get(worker_type, 0), size)
        self.racks = tuple(sorted(set(self.rack_of)))
        self.type_racks = {  # rack index of each node of a type, as placement strategies take
            wt: [self.racks.index(self.rack_of[n]) for n in members]
            for wt, members in self.type_nodes.items()
        }
        self._fitting: dict[tuple[str, int], list[str]] = {}

    def best_level(self, worker_type: str, num_gpus: int) -> int:
        """The best level a gang could reach on an empty cluster (NETWORK if it only fits so)."""
        if num_gpus <= self.max_node.get(worker_type, 0):
            return NODE
        return RACK if num_gpus <= self.max_rack.get(worker_type, 0) else NETWORK

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


class Board:
    """Free GPUs per node during one decision, with best-fit search by level.

    ``find`` results are cached per worker type until that type's free GPUs change, so many
    waiting jobs of the same size cost one search.
    """

    def __init__(self, topology: NodeLayout, node_free_gpus: Sequence[int]) -> None:
        self.topology = topology
        self.free = list(node_free_gpus)
        self.type_free = {
            wt: sum(self.free[n] for n in nodes) for wt, nodes in topology.type_nodes.items()
        }
        self._cache: dict[str, dict[tuple[int, int], Option | None]] = {}

    def find(self, worker_type: str, num_gpus: int, max_level: int) -> Option | None:
        """Best-fit placement at the best level available, no worse than ``max_level``."""
        if self.type_free.get(worker_type, 0) < num_gpus:
            return None
        cache = self._cache.setdefault(worker_type, {})
        key = (num_gpus, max_level)
        if key not in cache:
            cache[key] = self._search(worker_type, num_gpus, max_level)
        return cache[key]

    def _search(self, worker_type: str, num_gpus: int, max_level: int) -> Option | None:
        """The consolidated strategy's placement, if it is at ``max_level`` or better."""
        nodes = self.topology.type_nodes[worker_type]
        free = [self.free[n] for n in nodes]
        taken = consolidated(free, self.topology.type_racks[worker_type], num_gpus)
        option = self._option(worker_type, [(nodes[p], c) for p, c in taken])
        return option if option.level <= max_level else None

    def first_fit(self, worker_type: str, num_gpus: int) -> Option | None:
        """Lowest-numbered nodes with free GPUs first, ignoring locality (no consolidation)."""
        if self.type_free.get(worker_type, 0) < num_gpus:
            return None
        nodes = self.topology.type_nodes[worker_type]
        taken = first_fit([self.free[n] for n in nodes], [], num_gpus)
        return self._option(worker_type, [(nodes[p], c) for p, c in taken])

    def _option(self, worker_type: str, taken: list[tuple[int, int]]) -> Option:
        parts = tuple(sorted(taken))
        racks = {self.topology.rack_of[node] for node, _ in parts}
        level = NODE if len(parts) == 1 else RACK if len(racks) == 1 else NETWORK
        return Option(worker_type, level, parts)

    def take(self, option: Option) -> None:
        """Marks the option's GPUs as used."""
        self._change(option.worker_type, option.parts, -1)

    def give(self, worker_type: str, nodes: Sequence[int], counts: Sequence[int]) -> None:
        """Returns GPUs (of an evicted job) to the board."""
        self._change(worker_type, tuple(zip(nodes, counts, strict=True)), 1)

    def _change(self, worker_type: str, parts: Sequence[tuple[int, int]], sign: int) -> None:
        for node, count in parts:
            self.free[node] += sign * count
            self.type_free[worker_type] += sign * count
        self._cache.pop(worker_type, None)


class LevelModel:
    """Iteration-time slowdown of a gang at each level over node-local, from the engine.

    ``slowdowns(job, wt, now_s)`` is ``(1, t_rack / t_node, t_network / t_node)`` under the
    congestion in force at ``now_s``, from :func:`engine.network.step_model` with every rack of
    the cluster touched (the worst case of a rack-specific episode). Cached per job type, size,
    worker type and congestion epoch (the interval between two congestion changes).
    """

    def __init__(self, net: NetworkConfig, racks: tuple[str, ...]) -> None:
        self.net = net
        self.racks = racks
        self.changes = change_times(self.net)
        self._cache: dict[tuple[str, int, str, int], tuple[float, float, float]] = {}

    def slowdowns(self, job: JobState, worker_type: str, now_s: float) -> tuple[float, ...]:
        epoch = bisect_right(self.changes, now_s)
        key = (job.job_type, job.scale_factor, worker_type, epoch)
        if key not in self._cache:
            measured = job.steps_per_s[worker_type]
            rates = [
                step_model(
                    measured, job.scale_factor, job.gradient_bytes, level, self.racks, self.net,
                    now_s,
                ).steps_per_s
                for level in LEVELS
            ]  # fmt: skip
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
    topology: NodeLayout, model: LevelModel, job: JobState, now_s: float, gamma: float
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
    topology: NodeLayout, model: LevelModel, job: JobState, now_s: float, gamma: float
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

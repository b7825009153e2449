"""Cluster state: which GPUs of which node are free, and placing grants onto them.

GPUs within a node are interchangeable, so a placement is a count of GPUs per node. Nodes are
numbered in GPU-mix order: group 0's nodes first. Node names are ``n<index>``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.config import ClusterSpec
from engine.errors import AllocationError
from engine.network import LEVELS
from engine.placement import PlacementStrategy


@dataclass(frozen=True)
class Placement:
    """GPUs held by one job.

    Attributes:
        worker_type: the GPUs' type.
        nodes: node indices, ascending.
        counts: GPUs taken on each of those nodes.
        racks: rack names the placement touches, sorted.
        level: "node", "rack" or "network" (the consolidation level; bottleneck link).
        num_gpus: total GPUs, ``sum(counts)``.
    """

    worker_type: str
    nodes: tuple[int, ...]
    counts: tuple[int, ...]
    racks: tuple[str, ...]
    level: str
    num_gpus: int


class ClusterState:
    """Free GPUs per node, grouped by worker type."""

    def __init__(self, spec: ClusterSpec, strategy: PlacementStrategy) -> None:
        self.strategy = strategy
        self.capacity = spec.capacity()
        rack_names = sorted({g.rack for g in spec.node_groups})
        self.rack_names = rack_names
        self._nodes: dict[str, list[int]] = {wt: [] for wt in self.capacity}
        racks: list[int] = []
        free: list[int] = []
        for group in spec.node_groups:
            for _ in range(group.nodes):
                self._nodes[group.worker_type].append(len(free))
                free.append(group.gpus_per_node)
                racks.append(rack_names.index(group.rack))
        self.free = np.array(free, dtype=np.int64)
        self.node_rack = np.array(racks, dtype=np.int64)
        self._type_nodes = {wt: np.array(ids, dtype=np.int64) for wt, ids in self._nodes.items()}
        self.free_gpus: dict[str, int] = dict(self.capacity)

    def place(self, worker_type: str, num_gpus: int) -> Placement | None:
        """Takes ``num_gpus`` GPUs of ``worker_type``; None if too few are free."""
        if self.free_gpus.get(worker_type, 0) < num_gpus:
            return None
        nodes = self._type_nodes[worker_type]
        take = self.strategy(self.free[nodes], self.node_rack[nodes], num_gpus)
        if int(take.sum()) != num_gpus or np.any(take > self.free[nodes]):
            raise AllocationError(f"placement strategy returned an invalid placement {take}")
        used = np.flatnonzero(take)
        chosen = nodes[used]
        self.free[chosen] -= take[used]
        self.free_gpus[worker_type] -= num_gpus
        rack_ids = sorted({int(r) for r in self.node_rack[chosen]})
        level = LEVELS[0] if len(chosen) == 1 else LEVELS[1] if len(rack_ids) == 1 else LEVELS[2]
        return Placement(
            worker_type,
            tuple(int(n) for n in chosen),
            tuple(int(c) for c in take[used]),
            tuple(self.rack_names[r] for r in rack_ids),
            level,
            num_gpus,
        )

    def release(self, placement: Placement) -> None:
        """Returns a placement's GPUs to the free pool."""
        self.free[list(placement.nodes)] += placement.counts
        self.free_gpus[placement.worker_type] += placement.num_gpus

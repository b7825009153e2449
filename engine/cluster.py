"""Cluster state: which GPUs of which node are free, and placing grants onto them.

GPUs within a node are interchangeable, so a placement is a count of GPUs per node. Nodes are
numbered in GPU-mix order: group 0's nodes first. Node names are ``n<index>``.
"""

from __future__ import annotations

from dataclasses import dataclass

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
        self.rack_names = sorted({g.rack for g in spec.node_groups})
        self.free: list[int] = []  # free GPUs per node
        self.node_rack: list[int] = []  # rack index per node
        self._type_nodes: dict[str, list[int]] = {wt: [] for wt in self.capacity}
        for group in spec.node_groups:
            for _ in range(group.nodes):
                self._type_nodes[group.worker_type].append(len(self.free))
                self.free.append(group.gpus_per_node)
                self.node_rack.append(self.rack_names.index(group.rack))
        self._type_racks = {
            wt: [self.node_rack[n] for n in nodes] for wt, nodes in self._type_nodes.items()
        }
        self.free_gpus: dict[str, int] = dict(self.capacity)

    def place(self, worker_type: str, num_gpus: int) -> Placement | None:
        """Takes ``num_gpus`` GPUs of ``worker_type``; None if too few are free.

        Raises:
            AllocationError: if the placement strategy returns an invalid placement.
        """
        if self.free_gpus.get(worker_type, 0) < num_gpus:
            return None
        nodes = self._type_nodes[worker_type]
        free = self.free
        taken = self.strategy([free[n] for n in nodes], self._type_racks[worker_type], num_gpus)
        taken.sort()
        chosen = [nodes[position] for position, _ in taken]
        counts = [count for _, count in taken]
        valid = (
            sum(counts) == num_gpus
            and len(set(chosen)) == len(chosen)
            and all(1 <= c <= free[n] for n, c in zip(chosen, counts, strict=True))
        )
        if not valid:
            raise AllocationError(f"placement strategy returned an invalid placement {taken}")
        for node, count in zip(chosen, counts, strict=True):
            free[node] -= count
        self.free_gpus[worker_type] -= num_gpus
        rack_ids = sorted({self.node_rack[n] for n in chosen})
        level = LEVELS[0] if len(chosen) == 1 else LEVELS[1] if len(rack_ids) == 1 else LEVELS[2]
        racks = tuple(self.rack_names[r] for r in rack_ids)
        return Placement(worker_type, tuple(chosen), tuple(counts), racks, level, num_gpus)

    def release(self, placement: Placement) -> None:
        """Returns a placement's GPUs to the free pool."""
        for node, count in zip(placement.nodes, placement.counts, strict=True):
            self.free[node] += count
        self.free_gpus[placement.worker_type] += placement.num_gpus

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
        self.node_rack: list[int] = []  # rack index per node
        self._type_nodes: dict[str, list[int]] = {wt: [] for wt in self.capacity}
        self._type_free: dict[str, list[int]] = {wt: [] for wt in self.capacity}
        self._position: list[int] = []  # node -> position among its type's nodes
        for group in spec.node_groups:
            for _ in range(group.nodes):
                self._position.append(len(self._type_nodes[group.worker_type]))
                self._type_nodes[group.worker_type].append(len(self.node_rack))
                self._type_free[group.worker_type].append(group.gpus_per_node)
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
        free = self._type_free[worker_type]
        taken = self.strategy(free, self._type_racks[worker_type], num_gpus)
        taken.sort()
        valid = (
            sum(count for _, count in taken) == num_gpus
            and len({position for position, _ in taken}) == len(taken)
            and all(1 <= count <= free[position] for position, count in taken)
        )
        if not valid:
            raise AllocationError(f"placement strategy returned an invalid placement {taken}")
        for position, count in taken:
            free[position] -= count
        nodes = self._type_nodes[worker_type]
        chosen = [nodes[position] for position, _ in taken]
        counts = [count for _, count in taken]
        self.free_gpus[worker_type] -= num_gpus
        rack_ids = sorted({self.node_rack[n] for n in chosen})
        level = LEVELS[0] if len(chosen) == 1 else LEVELS[1] if len(rack_ids) == 1 else LEVELS[2]
        racks = tuple(self.rack_names[r] for r in rack_ids)
        return Placement(worker_type, tuple(chosen), tuple(counts), racks, level, num_gpus)

    def release(self, placement: Placement) -> None:
        """Returns a placement's GPUs to the free pool."""
        free = self._type_free[placement.worker_type]
        for node, count in zip(placement.nodes, placement.counts, strict=True):
            free[self._position[node]] += count
        self.free_gpus[placement.worker_type] += placement.num_gpus

"""The cluster's nodes, numbered once per run: node -> worker type, rack, GPUs.

Nodes are numbered in GPU-mix order: group 0's nodes first, then group 1's, and so on; node ``i``
is named ``n<i>``. Placements, segments, topology links, node-pinned parts and the Network page
all use this numbering, and all read it from one :class:`NodeLayout` built from the
:class:`engine.config.ClusterSpec`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from engine.config import ClusterSpec


class NodeInfo(NamedTuple):
    """One node of the cluster, in GPU-mix order (group 0's nodes first; name ``n<index>``)."""

    node: int
    worker_type: str
    rack: str
    num_gpus: int


class NodeLayout:
    """The cluster's nodes in GPU-mix order, with the lookups the engine needs (static per run).

    Attributes:
        nodes: every node, in order.
        racks: rack names, sorted.
        node_rack: rack name of each node.
        node_rack_index: index into ``racks`` of each node's rack.
        node_type: worker type of each node.
        node_gpus: GPUs on each node.
        type_nodes: worker type -> its nodes, ascending (types in order of first appearance).
        capacity: GPUs per worker type (same order as ``type_nodes``; equals
            :meth:`engine.config.ClusterSpec.capacity`).
    """

    def __init__(self, nodes: Sequence[NodeInfo]) -> None:
        self.nodes = tuple(nodes)
        self.racks = tuple(sorted({node.rack for node in self.nodes}))
        self.node_rack = tuple(node.rack for node in self.nodes)
        self.node_rack_index = tuple(self.racks.index(rack) for rack in self.node_rack)
        self.node_type = tuple(node.worker_type for node in self.nodes)
        self.node_gpus = tuple(node.num_gpus for node in self.nodes)
        type_nodes: dict[str, list[int]] = {}
        capacity: dict[str, int] = {}
        for node in self.nodes:
            type_nodes.setdefault(node.worker_type, []).append(node.node)
            capacity[node.worker_type] = capacity.get(node.worker_type, 0) + node.num_gpus
        self.type_nodes = {wt: tuple(members) for wt, members in type_nodes.items()}
        self.capacity = capacity

    @classmethod
    def of(cls, cluster: ClusterSpec) -> NodeLayout:
        """The layout of a GPU mix: each group's ``nodes`` nodes of ``gpus_per_node`` GPUs."""
        nodes: list[NodeInfo] = []
        for group in cluster.node_groups:
            for _ in range(group.nodes):
                nodes.append(
                    NodeInfo(len(nodes), group.worker_type, group.rack, group.gpus_per_node)
                )
        return cls(nodes)

    def rack_nodes(self, rack: str) -> list[int]:
        """Nodes in ``rack``, ascending."""
        return [node.node for node in self.nodes if node.rack == rack]

    def rack_gpus(self) -> dict[str, int]:
        """GPUs per rack, racks sorted by name."""
        totals = dict.fromkeys(self.racks, 0)
        for node in self.nodes:
            totals[node.rack] += node.num_gpus
        return totals

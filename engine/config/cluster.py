"""The GPU mix of a scenario: node groups of one worker type in racks, and worker types
added by a speed ratio (part of :class:`engine.config.ScenarioConfig`).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class NodeGroup:
    """One row of the GPU mix: ``nodes`` identical nodes of one worker type in one rack.

    Attributes:
        worker_type: GPU type name, a column of the throughput matrix (e.g. ``"v100"``).
        nodes: number of nodes in this group (>= 1).
        gpus_per_node: GPUs per node (>= 1).
        rack: rack name; groups sharing a rack name share its top-of-rack switch.
    """

    worker_type: str = field(metadata={"help": "GPU type, a column of the throughput matrix"})
    nodes: int = field(metadata={"help": "Number of nodes in this group"})
    gpus_per_node: int = field(metadata={"help": "GPUs on each node"})
    rack: str = field(default="rack0", metadata={"help": "Rack the nodes sit in"})


@dataclass(frozen=True)
class WorkerTypeSpec:
    """A worker type missing from the throughput matrix, defined by a speed ratio to one in it.

    Example: ``WorkerTypeSpec("a100", "v100", 2.0)`` runs every job type twice as fast as a V100
    (shared/docs/schedulers.md: "add worker types by a speed ratio to an existing one").
    """

    name: str = field(metadata={"help": "New GPU type name, e.g. a100"})
    base: str = field(metadata={"help": "Existing GPU type it is compared with"})
    speed_ratio: float = field(metadata={"help": "Throughput relative to the base type"})


@dataclass(frozen=True)
class ClusterSpec:
    """The GPU mix: racks -> nodes -> GPUs, each GPU of one worker type."""

    node_groups: tuple[NodeGroup, ...]

    def capacity(self) -> dict[str, int]:
        """GPUs per worker type, e.g. ``{"v100": 192, "k80": 128}``."""
        totals: dict[str, int] = {}
        for group in self.node_groups:
            totals[group.worker_type] = (
                totals.get(group.worker_type, 0) + group.nodes * group.gpus_per_node
            )
        return totals

    @property
    def total_gpus(self) -> int:
        return sum(self.capacity().values())

    def max_gpus_per_node(self) -> dict[str, int]:
        """Largest node size per worker type (bounds a node-local placement)."""
        sizes: dict[str, int] = {}
        for g in self.node_groups:
            sizes[g.worker_type] = max(sizes.get(g.worker_type, 0), g.gpus_per_node)
        return sizes


def default_cluster() -> ClusterSpec:
    """512 GPUs of three types in 4 racks of 8-GPU nodes: 192 V100, 192 P100, 128 K80.

    Sized for the Philly traces, whose mean demand is about 374-445 busy GPUs (SOURCES.md).
    """
    return ClusterSpec(
        node_groups=(
            NodeGroup("v100", 12, 8, "rack0"),
            NodeGroup("v100", 12, 8, "rack1"),
            NodeGroup("p100", 24, 8, "rack2"),
            NodeGroup("k80", 16, 8, "rack3"),
        )
    )

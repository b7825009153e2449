"""Cluster state: which GPUs of which node are free, and placing grants onto them.

GPUs within a node are interchangeable, so a placement is a count of GPUs per node. Nodes are
numbered as in the run's :class:`engine.allocation.layout.NodeLayout` (GPU-mix order, names
``n<index>``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

from engine.allocation.grants import Part
from engine.allocation.layout import NodeLayout
from engine.errors import AllocationError
from engine.placement import PlacementStrategy
from engine.placement.consolidated import consolidated, consolidated_indexed
from engine.placement.free_index import FreeIndex
from engine.step_time.network import LEVELS

SHARED_PLACEMENTS_MAX = 65_536
"""Most multi-node placements a :class:`ClusterState` keeps to hand out again (a Placement is
immutable, so equal ones are shared; beyond the bound each is built anew)."""


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
        node_types: worker type of each node, when the placement mixes types (empty: all
            ``worker_type``).
        combine: how the GPUs make progress together
            (:data:`engine.allocation.grants.COMBINE_MODES`).
    """

    worker_type: str
    nodes: tuple[int, ...]
    counts: tuple[int, ...]
    racks: tuple[str, ...]
    level: str
    num_gpus: int
    node_types: tuple[str, ...] = ()
    combine: str = "gang"

    def types_of_nodes(self) -> tuple[str, ...]:
        """Worker type per entry of ``nodes``."""
        return self.node_types or (self.worker_type,) * len(self.nodes)

    def gpus_by_type(self) -> dict[str, int]:
        """GPUs held per worker type."""
        if not self.node_types:
            return {self.worker_type: self.num_gpus}
        totals: dict[str, int] = {}
        for worker_type, count in zip(self.node_types, self.counts, strict=True):
            totals[worker_type] = totals.get(worker_type, 0) + count
        return totals


class ClusterState:
    """Free GPUs per node, grouped by worker type, on the run's node layout; the placement
    strategy picks nodes for unpinned grants."""

    def __init__(self, layout: NodeLayout, strategy: PlacementStrategy) -> None:
        self.layout = layout
        self.strategy = strategy
        self.capacity = dict(layout.capacity)
        self.rack_names = list(layout.racks)
        self.node_rack = layout.node_rack_index  # rack index per node
        self.node_type = layout.node_type  # worker type per node
        self._type_nodes = layout.type_nodes
        self._slots = {
            wt: TypeNodes(
                nodes, [layout.node_gpus[n] for n in nodes], [self.node_rack[n] for n in nodes]
            )  # fmt: skip
            for wt, nodes in self._type_nodes.items()
        }
        self._type_free = {wt: slot.free for wt, slot in self._slots.items()}
        self._position = [0] * len(layout.nodes)  # node -> position among its type's nodes
        self._node_free: list[list[int]] = [[] for _ in layout.nodes]  # node -> its type's free
        for slot in self._slots.values():
            for position, node in enumerate(slot.nodes):
                self._position[node] = position
                self._node_free[node] = slot.free
        self._node_index: list[FreeIndex] = [  # node -> its type's index
            self._slots[self.node_type[n]].index for n in range(len(layout.nodes))
        ]
        self._indexed = strategy is consolidated  # the same choice read from the index
        self.free_gpus: dict[str, int] = dict(self.capacity)
        self.node_free_view = NodeFreeView(self)
        self.changes = 0  # counts placements and releases: unchanged means the same free GPUs
        self._spread_placements: dict[tuple[str, tuple[tuple[int, int], ...]], Placement] = {}

    def place(self, worker_type: str, num_gpus: int) -> Placement | None:
        """Takes ``num_gpus`` GPUs of ``worker_type``; None if too few are free.

        Raises:
            AllocationError: if the placement strategy returns an invalid placement.
        """
        free_gpus = self.free_gpus
        if free_gpus.get(worker_type, 0) < num_gpus:
            return None
        slot = self._slots[worker_type]
        free, index = slot.free, slot.index
        if self._indexed:
            taken = consolidated_indexed(index, num_gpus)
        else:
            taken = self.strategy(free, slot.racks, num_gpus)
        if len(taken) == 1:  # the common one-node case: the same checks, a shared Placement
            position, count = taken[0]
            if count != num_gpus or not 1 <= num_gpus <= free[position]:
                raise AllocationError(f"placement strategy returned an invalid placement {taken}")
            index.set(position, free[position] - count)
            free_gpus[worker_type] = free_gpus[worker_type] - num_gpus
            self.changes += 1
            by_count = slot.one_node[position]
            placement = by_count[count] if count < len(by_count) else None
            return placement or self._one_node(worker_type, slot, position, count)
        taken.sort()
        if not (
            sum(count for _, count in taken) == num_gpus
            and len({position for position, _ in taken}) == len(taken)
            and all(1 <= count <= free[position] for position, count in taken)
        ):
            raise AllocationError(f"placement strategy returned an invalid placement {taken}")
        for position, count in taken:
            index.set(position, free[position] - count)
        free_gpus[worker_type] = free_gpus[worker_type] - num_gpus
        self.changes += 1
        key = (worker_type, tuple(taken))
        placement = self._spread_placements.get(key)
        if placement is None:  # built once per distinct placement, shared like _one_node's
            placement = self._spread(worker_type, taken, num_gpus)
            if len(self._spread_placements) < SHARED_PLACEMENTS_MAX:
                self._spread_placements[key] = placement
        return placement

    def _spread(self, worker_type: str, taken: list[tuple[int, int]], num_gpus: int) -> Placement:
        """The placement of ``taken`` ((position, GPUs) of ``worker_type``'s nodes, ascending)."""
        nodes = self._type_nodes[worker_type]
        chosen = [nodes[position] for position, _ in taken]
        counts = [count for _, count in taken]
        rack_ids = sorted({self.node_rack[n] for n in chosen})
        level = LEVELS[0] if len(chosen) == 1 else LEVELS[1] if len(rack_ids) == 1 else LEVELS[2]
        racks = tuple(self.rack_names[r] for r in rack_ids)
        return Placement(worker_type, tuple(chosen), tuple(counts), racks, level, num_gpus)

    def _one_node(self, worker_type: str, slot: TypeNodes, position: int, count: int) -> Placement:
        """The placement of ``count`` GPUs on the ``position``-th node of ``worker_type``, built
        once and kept in ``slot.one_node`` to be shared (a Placement is immutable; restarts
        reuse the same few hundred)."""
        node = slot.nodes[position]
        rack = self.rack_names[self.node_rack[node]]
        placement = Placement(worker_type, (node,), (count,), (rack,), LEVELS[0], count)
        by_count = slot.one_node[position]
        while len(by_count) <= count:
            by_count.append(None)
        by_count[count] = placement
        return placement

    def any_free(self) -> bool:
        """Whether any GPU is free."""
        return any(self.free_gpus.values())

    def free_on(self, node: int) -> int:
        """Free GPUs on one node."""
        return self._node_free[node][self._position[node]]

    def place_parts(self, parts: Sequence[Part], combine: str) -> Placement | None:
        """Places every part of a grant, or none of them (None if some part does not fit).

        A part pinned to a node takes its GPUs there; the others go through the placement
        strategy. The result lists each node once per worker type with the GPUs taken there.

        Raises:
            AllocationError: a part pinned to a node of another worker type, or an invalid
                placement from the strategy.
        """
        taken: list[Placement] = []
        for part in parts:
            piece = self._place_part(part)
            if piece is None:
                for done in taken:
                    self.release(done)
                return None
            taken.append(piece)
        return self._merge(taken, combine)

    def _place_part(self, part: Part) -> Placement | None:
        if part.node < 0:
            return self.place(part.worker_type, part.num_gpus)
        if (
            not 0 <= part.node < len(self.node_type)
            or self.node_type[part.node] != part.worker_type
        ):
            raise AllocationError(
                f"part {part} is pinned to a node without {part.worker_type} GPUs"
            )
        free = self._type_free[part.worker_type]
        position = self._position[part.node]
        if free[position] < part.num_gpus:
            return None
        self._slots[part.worker_type].index.set(position, free[position] - part.num_gpus)
        self.free_gpus[part.worker_type] -= part.num_gpus
        self.changes += 1
        rack = self.rack_names[self.node_rack[part.node]]
        return Placement(part.worker_type, (part.node,), (part.num_gpus,), (rack,), LEVELS[0],
                         part.num_gpus)  # fmt: skip

    def _merge(self, pieces: list[Placement], combine: str) -> Placement:
        if len(pieces) == 1 and combine == "gang":
            return pieces[0]
        counts: dict[int, int] = {}
        for piece in pieces:
            for node, count in zip(piece.nodes, piece.counts, strict=True):
                counts[node] = counts.get(node, 0) + count
        nodes = sorted(counts)
        rack_ids = sorted({self.node_rack[n] for n in nodes})
        level = LEVELS[0] if len(nodes) == 1 else LEVELS[1] if len(rack_ids) == 1 else LEVELS[2]
        by_type: dict[str, int] = {}
        for node in nodes:
            by_type[self.node_type[node]] = by_type.get(self.node_type[node], 0) + counts[node]
        main = max(by_type, key=lambda wt: (by_type[wt], wt))
        mixed = len(by_type) > 1
        return Placement(
            main, tuple(nodes), tuple(counts[n] for n in nodes),
            tuple(self.rack_names[r] for r in rack_ids), level, sum(counts.values()),
            tuple(self.node_type[n] for n in nodes) if mixed else (), combine,
        )  # fmt: skip

    def take_node(self, node: int) -> None:
        """Takes a node out of service (failed, or held as a spare; :mod:`engine.faults`): its
        GPUs leave the free pool and ``capacity``, which policies read as the live capacity.
        The node holds no job (the engine stopped them)."""
        worker_type = self.node_type[node]
        gpus = self.layout.node_gpus[node]
        self._node_index[node].set(self._position[node], 0)
        self.free_gpus[worker_type] = self.free_gpus[worker_type] - gpus
        self.capacity[worker_type] = self.capacity[worker_type] - gpus
        self.changes += 1

    def return_node(self, node: int) -> None:
        """Puts a node taken out by :meth:`take_node` back in service, all its GPUs free."""
        worker_type = self.node_type[node]
        gpus = self.layout.node_gpus[node]
        self._node_index[node].set(self._position[node], gpus)
        self.free_gpus[worker_type] = self.free_gpus[worker_type] + gpus
        self.capacity[worker_type] = self.capacity[worker_type] + gpus
        self.changes += 1

    def release(self, placement: Placement) -> None:
        """Returns a placement's GPUs to the free pool."""
        self.changes += 1
        node_type, position, node_free, node_index, free_gpus = (
            self.node_type, self._position, self._node_free, self._node_index, self.free_gpus
        )  # fmt: skip
        nodes, counts = placement.nodes, placement.counts
        if not placement.node_types:  # one type: its free count updated once
            for entry in range(len(nodes)):  # indexed, not zip: compiled, a C loop
                node = nodes[entry]
                free = node_free[node]
                at = position[node]
                node_index[node].set(at, free[at] + counts[entry])
            worker_type = placement.worker_type
            free_gpus[worker_type] = free_gpus[worker_type] + placement.num_gpus
            return
        for entry in range(len(nodes)):
            node, count = nodes[entry], counts[entry]
            worker_type = node_type[node]
            free = node_free[node]
            at = position[node]
            node_index[node].set(at, free[at] + count)
            free_gpus[worker_type] = free_gpus[worker_type] + count


class TypeNodes:
    """One worker type's nodes in a :class:`ClusterState`: their indices (ascending), free GPUs
    and rack index per position, and the shared one-node placements (``one_node[position]
    [count]``, None until first used). One dict probe per placement finds them all."""

    __slots__ = ("nodes", "free", "racks", "one_node", "index")

    def __init__(self, nodes: tuple[int, ...], free: list[int], racks: list[int]) -> None:
        self.nodes = nodes
        self.free = free
        self.racks = racks
        self.one_node: list[list[Placement | None]] = [[] for _ in nodes]
        self.index = FreeIndex(free, racks)  # every write to ``free`` goes through it


class NodeFreeView(Sequence[int]):
    """Free GPUs per node, read live from a :class:`ClusterState` (no copy per decision)."""

    def __init__(self, cluster: ClusterState) -> None:
        self._cluster = cluster

    def __len__(self) -> int:
        return len(self._cluster.node_type)

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> list[int]: ...

    def __getitem__(self, index: int | slice) -> int | list[int]:
        if isinstance(index, slice):
            return [self._cluster.free_on(n) for n in range(len(self))[index]]
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        return self._cluster.free_on(index % len(self))

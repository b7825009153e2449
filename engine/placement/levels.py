"""Consolidation levels for policies that choose nodes: candidates at a level, strategy-placed.

A gang of ``n`` GPUs of one worker type sits at one of three levels
(:data:`engine.step_time.network.LEVELS`,
best first): one node, the nodes of one rack, or nodes in several racks. :class:`TypeLayout`
knows the best level a gang could ever reach on the cluster; :class:`Board` tracks free GPUs per
node during one decision and finds a placement no worse than a level with the scenario's
placement strategy (:func:`place_within`), so a policy that decides *how well* to consolidate
(Dally) leaves *which nodes* to the strategy the scenario names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from engine.allocation.layout import NodeInfo, NodeLayout
from engine.placement.base import PlacementStrategy, get_placement

NODE, RACK, NETWORK = 0, 1, 2
"""Level indices into :data:`engine.step_time.network.LEVELS`."""


class Option(NamedTuple):
    """A placement found on the board: worker type, level index and (node, GPUs) pairs."""

    worker_type: str
    level: int
    parts: tuple[tuple[int, int], ...]


def level_of(taken: Sequence[tuple[int, int]], racks: Sequence[int]) -> int:
    """Level of a strategy's answer ((candidate position, GPUs) pairs; ``racks`` by position)."""
    if len(taken) == 1:
        return NODE
    return RACK if len({racks[p] for p, _ in taken}) == 1 else NETWORK


def place_within(
    strategy: PlacementStrategy, free: list[int], racks: list[int], num_gpus: int, max_level: int
) -> list[tuple[int, int]] | None:
    """``strategy``'s placement of ``num_gpus`` GPUs at ``max_level`` or better, or None.

    The strategy first sees every candidate node; if its answer is worse than ``max_level``,
    it sees only the candidates of that level: the nodes with ``num_gpus`` free GPUs (node), or
    one rack at a time, lowest rack first (rack) [R]. For the consolidated strategy, which
    already takes the best level free, the first answer decides.
    """
    taken = strategy(free, racks, num_gpus)
    if max_level == NETWORK or level_of(taken, racks) <= max_level:
        return taken
    if max_level == NODE:
        slots = [[p for p, f in enumerate(free) if f >= num_gpus]]
    else:
        by_rack: dict[int, list[int]] = {}
        for position, rack in enumerate(racks):
            by_rack.setdefault(rack, []).append(position)
        slots = [by_rack[r] for r in sorted(by_rack)]
    for slot in slots:
        if sum(free[p] for p in slot) < num_gpus:
            continue
        masked = [0] * len(free)
        for position in slot:
            masked[position] = free[position]
        taken = strategy(masked, racks, num_gpus)
        if level_of(taken, racks) <= max_level:
            return taken
    return None


Nodes = NodeLayout | Sequence[NodeInfo]
"""The engine's node layout, or a node list to build one from."""


class TypeLayout:
    """The cluster's nodes grouped by worker type and rack (static for a run), on the engine's
    :class:`engine.allocation.NodeLayout` (built from ``nodes`` if given a node list), with the
    largest node and rack of each type."""

    def __init__(self, nodes: Nodes) -> None:
        layout = nodes if isinstance(nodes, NodeLayout) else NodeLayout(nodes)
        self.rack_of = layout.node_rack
        self.racks = layout.racks
        self.type_nodes = layout.type_nodes
        self.size = layout.capacity
        self.max_node = {
            wt: max(layout.node_gpus[n] for n in members) for wt, members in self.type_nodes.items()
        }
        rack_size: dict[tuple[str, str], int] = {}
        for node in layout.nodes:
            key = (node.worker_type, node.rack)
            rack_size[key] = rack_size.get(key, 0) + node.num_gpus
        self.max_rack: dict[str, int] = {}
        for (worker_type, _), size in rack_size.items():
            self.max_rack[worker_type] = max(self.max_rack.get(worker_type, 0), size)
        self.type_racks = {  # rack index of each node of a type, as placement strategies take
            wt: [layout.node_rack_index[n] for n in members]
            for wt, members in self.type_nodes.items()
        }

    def best_level(self, worker_type: str, num_gpus: int) -> int:
        """The best level a gang could reach on an empty cluster (NETWORK if it only fits so)."""
        if num_gpus <= self.max_node.get(worker_type, 0):
            return NODE
        return RACK if num_gpus <= self.max_rack.get(worker_type, 0) else NETWORK


class Board:
    """Free GPUs per node during one decision, with the strategy's search by level.

    ``find`` results are cached per worker type until that type's free GPUs change, so many
    waiting jobs of the same size cost one search.
    """

    def __init__(
        self, topology: TypeLayout, node_free_gpus: Sequence[int], strategy: str = "consolidated"
    ) -> None:
        self.topology = topology
        self.strategy = get_placement(strategy)
        self.free = list(node_free_gpus)
        self.type_free = {
            wt: sum(self.free[n] for n in nodes) for wt, nodes in topology.type_nodes.items()
        }
        self._cache: dict[str, dict[tuple[int, int], Option | None]] = {}

    def find(self, worker_type: str, num_gpus: int, max_level: int) -> Option | None:
        """The strategy's placement at ``max_level`` or better (:func:`place_within`)."""
        if self.type_free.get(worker_type, 0) < num_gpus:
            return None
        cache = self._cache.setdefault(worker_type, {})
        key = (num_gpus, max_level)
        if key not in cache:
            nodes = self.topology.type_nodes[worker_type]
            free = [self.free[n] for n in nodes]
            racks = self.topology.type_racks[worker_type]
            taken = place_within(self.strategy, free, racks, num_gpus, max_level)
            cache[key] = None if taken is None else self.option(worker_type, nodes, taken)
        return cache[key]

    def place(self, worker_type: str, num_gpus: int, strategy: PlacementStrategy) -> Option | None:
        """``strategy``'s placement at any level (e.g. first fit for a locality-blind job)."""
        if self.type_free.get(worker_type, 0) < num_gpus:
            return None
        nodes = self.topology.type_nodes[worker_type]
        taken = strategy([self.free[n] for n in nodes], self.topology.type_racks[worker_type],
                         num_gpus)  # fmt: skip
        return self.option(worker_type, nodes, taken)

    def option(
        self, worker_type: str, nodes: Sequence[int], taken: Sequence[tuple[int, int]]
    ) -> Option:
        """The option of a strategy's answer over ``nodes`` (positions -> node indices)."""
        parts = tuple(sorted((nodes[p], c) for p, c in taken))
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

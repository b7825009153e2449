"""Consolidated placement: as few nodes and racks as possible, best fit.

1. One node with enough free GPUs, the one with the fewest (best fit, keeps big holes for big jobs).
2. Otherwise one rack: the rack with the fewest sufficient free GPUs, fullest-free nodes first.
3. Otherwise across racks, fullest-free nodes first.
Ties go to the lower node position, so placement is deterministic. Plain lists, compiled with
mypyc (:mod:`engine.native`). :func:`consolidated` reads the free counts as given (one pass over
the nodes: plans, :mod:`engine.placement.levels`); :func:`consolidated_indexed` makes the same
choice from a :class:`~engine.placement.free_index.FreeIndex` without a pass over the nodes (the
engine's cluster state, issue 37; equality is a Hypothesis property in
``tests/engine/test_placement_index.py``).
"""

from __future__ import annotations

from engine.placement.base import PLACEMENTS
from engine.placement.free_index import FreeIndex


def consolidated(free: list[int], racks: list[int], num_gpus: int) -> list[tuple[int, int]]:
    best = -1  # the first node with the fewest free GPUs that suffice, if any
    best_free = 0
    for position, node_free in enumerate(free):
        if num_gpus <= node_free and (best < 0 or node_free < best_free):
            best, best_free = position, node_free
            if node_free == num_gpus:  # an exact fit: no later node has fewer that suffice
                break
    if best >= 0:
        return [(best, num_gpus)]
    best_rack = best_rack_of(free, racks, num_gpus)
    if best_rack >= 0:
        positions = [p for p in range(len(racks)) if racks[p] == best_rack]
        return fill_fullest(free, positions, num_gpus)
    return fill_fullest(free, list(range(len(free))), num_gpus)


PLACEMENTS.register("consolidated", consolidated)


def consolidated_indexed(index: FreeIndex, num_gpus: int) -> list[tuple[int, int]]:
    """:func:`consolidated`'s choice on ``index.free``: the smallest sufficient free count's
    lowest position; else the rack of the fewest sufficient free GPUs (per-rack totals kept by
    the index), else every node, fullest first (read from the buckets, fullest down)."""
    buckets = index.buckets
    for count in range(num_gpus, len(buckets)):
        bucket = buckets[count]
        if bucket:
            return [(bucket[0], num_gpus)]
    best_rack = fewest_sufficient(index.rack_free, num_gpus)
    racks = index.racks
    taken: list[tuple[int, int]] = []
    for count in range(len(buckets) - 1, 0, -1):
        for position in buckets[count]:
            if num_gpus <= 0:
                return taken
            if best_rack >= 0 and racks[position] != best_rack:
                continue
            grab = count if count < num_gpus else num_gpus
            taken.append((position, grab))
            num_gpus -= grab
    return taken


def best_rack_of(free: list[int], racks: list[int], num_gpus: int) -> int:
    """The rack (index) whose candidate nodes have the fewest free GPUs in total that still
    suffice for ``num_gpus`` (ties: the lower index), or -1. Totals in a list indexed by rack
    (rack indices are small: the run's racks), not a dict."""
    rack_free: list[int] = []
    for position in range(len(free)):  # indexed, not zip: compiled, a C loop
        rack = racks[position]
        while len(rack_free) <= rack:  # (grown here: builtin max() is a generic call)
            rack_free.append(0)
        rack_free[rack] = rack_free[rack] + free[position]
    return fewest_sufficient(rack_free, num_gpus)


def fewest_sufficient(rack_free: list[int], num_gpus: int) -> int:
    """The rack index with the fewest free GPUs (``rack_free``) that still suffice for
    ``num_gpus`` (ties: the lower index), or -1."""
    best_rack, best_total = -1, 0
    for rack in range(len(rack_free)):  # ascending: a tie keeps the lower index
        total = rack_free[rack]
        if total >= num_gpus and (best_rack < 0 or total < best_total):
            best_rack, best_total = rack, total
    return best_rack


def fill_fullest(free: list[int], positions: list[int], num_gpus: int) -> list[tuple[int, int]]:
    """Takes GPUs from the ``positions`` (ascending) with the most free GPUs first (ties: lower
    position), as a sort by (-free, position) would order them, until ``num_gpus`` are taken
    or only empty nodes are left. Positions are put in buckets by free GPUs (a node's GPUs
    number in the tens at most), read from the fullest bucket down: no sort, no key function."""
    buckets: list[list[int]] = []  # free GPUs -> positions with that many, ascending
    for position in positions:
        node_free = free[position]
        if node_free > 0:  # empty nodes are never taken
            while len(buckets) <= node_free:
                buckets.append([])
            buckets[node_free].append(position)
    taken: list[tuple[int, int]] = []
    for node_free in range(len(buckets) - 1, 0, -1):
        for position in buckets[node_free]:
            if num_gpus <= 0:
                return taken
            grab = node_free if node_free < num_gpus else num_gpus
            taken.append((position, grab))
            num_gpus -= grab
    return taken

"""Consolidated placement: as few nodes and racks as possible, best fit.

1. One node with enough free GPUs, the one with the fewest (best fit, keeps big holes for big jobs).
2. Otherwise one rack: the rack with the fewest sufficient free GPUs, fullest-free nodes first.
3. Otherwise across racks, fullest-free nodes first.
Ties go to the lower node position, so placement is deterministic. Plain lists: nodes of one
type number in the tens, where Python loops beat numpy's per-call overhead; step 1 is one pass
over the free counts (compiled with mypyc, see :mod:`engine.native`).
"""

from __future__ import annotations

from engine.placement.base import PLACEMENTS


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

"""One worker type's nodes indexed by free GPUs, kept up to date on every change (issue 37).

:func:`engine.placement.consolidated.consolidated` scans every node of the type (and sums every
rack) on each placement: O(nodes), which grew with the cluster until it led the profile of a
320,000-job FIFO run on 20,480 GPUs. The index holds, per free-GPU count, the positions with
that many free GPUs (ascending), and per rack its free-GPU total, so the same choice is read in
O(distinct free counts) (a node's GPUs number in the tens at most) plus O(racks); a change
costs a bisection and a list insert/delete (C memmove) [R]. Full nodes (0 free GPUs) are not
listed: no choice reads them, and on a busy cluster most changes fill or empty a node, so
listing them kept one long sorted list (most of the type's nodes) in every change's path
(11% of a 1,000,000-job FIFO run on 25,600 GPUs, compiled, November 2026).

Only :class:`engine.cluster.ClusterState` writes the free counts it indexes, through
:meth:`FreeIndex.set`.
"""

from __future__ import annotations

from bisect import bisect_left, insort


class FreeIndex:
    """Free GPUs of one worker type's nodes, bucketed by count.

    Attributes:
        free: free GPUs per position (the caller's list, shared; written only by :meth:`set`).
        racks: rack index per position (same length).
        buckets: ``buckets[count]``: the positions with ``count`` free GPUs, ascending
            (``buckets[0]`` stays empty: full nodes are not listed).
        rack_free: free GPUs per rack index (0 .. the highest rack index among ``racks``).
    """

    __slots__ = ("free", "racks", "buckets", "rack_free")

    def __init__(self, free: list[int], racks: list[int]) -> None:
        self.free = free
        self.racks = racks
        self.buckets: list[list[int]] = [[]]
        self.rack_free: list[int] = [0] * (max(racks) + 1 if racks else 0)
        for position in range(len(free)):
            count = free[position]
            while len(self.buckets) <= count:
                self.buckets.append([])
            if count:
                self.buckets[count].append(position)
            rack = racks[position]
            self.rack_free[rack] = self.rack_free[rack] + count

    def set(self, position: int, count: int) -> None:
        """Sets the free GPUs of the node at ``position`` to ``count`` (>= 0)."""
        old = self.free[position]
        if old == count:
            return
        buckets = self.buckets
        if old:
            bucket = buckets[old]
            del bucket[bisect_left(bucket, position)]
        while len(buckets) <= count:
            buckets.append([])
        if count:
            insort(buckets[count], position)
        self.free[position] = count
        rack = self.racks[position]
        self.rack_free[rack] = self.rack_free[rack] + count - old

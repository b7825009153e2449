"""Parked ClusterQueues, found again only when their cohort's free quota could give them a head.

Kueue parks a ClusterQueue's inadmissible workloads and puts every one of the cohort tree back
when quota is freed in it (``requeueWorkloadsCohort`` in kubernetes-sigs/kueue ``pkg/cache/
queue/inadmissible_workloads.go``, read at commit ff69552e79), so
:class:`engine.quota.admission.QuotaScheduler` looked at every parked queue after every
release. This index finds the few a release can give a head.

A queue without preemption is parked when, for each flavor its pending workloads run on, the
fewest GPUs they need (``need``) is more than it may take (:meth:`QuotaNode.available`). What a
queue may take is at most its root's available GPUs plus the local quotas (the part not lent) of
the nodes between it and the root, a constant ``slack`` (:mod:`engine.quota.tree`: each level
adds at most its local quota to its parent's availability). So the queue cannot have a head
while its root's availability stays below ``need - slack`` for every flavor: a heap per (root,
flavor) keyed by that threshold gives the queues a release may wake, which the scheduler checks
exactly; results are the same as looking at every queue (``tests/engine/
test_quota_reference.py``) [R]. On the full Philly trace under the default quotas (15 teams,
FIFO), 873,000 of 1.21 million queue visits were to parked queues that stayed parked.
"""

from __future__ import annotations

from heapq import heapify, heappop, heappush

from engine.quota.tree import QuotaNode, QuotaTree


class WakeIndex:
    """Parked ClusterQueues by the root availability that could give them a head.

    Each (queue, flavor) has at most one live heap entry (``live`` holds its sequence number);
    a queue woken, or given a workload, keeps its other entries, so parking it again with the
    same needs pushes only what was popped.

    Args:
        tree: the quota tree whose ClusterQueues are parked here.
    """

    def __init__(self, tree: QuotaTree) -> None:
        self.nodes = tree.cluster_queues
        self.roots: dict[str, QuotaNode] = {n.root().name: n.root() for n in self.nodes.values()}
        # root -> flavor -> heap of (threshold, seq, queue, flavor)
        self.heaps: dict[str, dict[str, list[tuple[int, int, str, str]]]] = {}
        self.parked: set[str] = set()
        # queue -> flavor -> (threshold, seq) of its live entry
        self.live: dict[str, dict[str, tuple[int, int]]] = {name: {} for name in self.nodes}
        self.seq = 0
        self.slacks: dict[str, dict[str, int]] = {name: {} for name in self.nodes}

    def slack(self, name: str, flavor: str) -> int:
        """GPUs of ``flavor`` the nodes from queue ``name`` up to (not including) its root keep
        for themselves: the most its availability exceeds the root's."""
        node: QuotaNode | None = self.nodes[name]
        total = 0
        while node is not None and node.parent is not None:
            total += node.local_quota(flavor)
            node = node.parent
        return total

    def park(self, name: str, need: dict[str, int]) -> None:
        """Parks queue ``name``, which needs at least ``need[flavor]`` GPUs of some flavor."""
        self.parked.add(name)
        root = self.nodes[name].root().name
        slacks = self.slacks[name]
        live = self.live[name]
        for flavor, gpus in need.items():
            slack = slacks.get(flavor)
            if slack is None:
                slack = slacks[flavor] = self.slack(name, flavor)
            entry = live.get(flavor)
            if entry is not None and entry[0] == gpus - slack:
                continue
            self.seq += 1
            live[flavor] = (gpus - slack, self.seq)
            heaps = self.heaps.get(root)
            if heaps is None:
                heaps = self.heaps[root] = {}
            heap = heaps.get(flavor)
            if heap is None:
                heap = heaps[flavor] = []
            heappush(heap, (gpus - slack, self.seq, name, flavor))
            if len(heap) > 64 + 4 * len(self.nodes):
                heap[:] = [e for e in heap if self._is_live(e)]
                heapify(heap)

    def _is_live(self, entry: tuple[int, int, str, str]) -> bool:
        live = self.live[entry[2]].get(entry[3])
        return live is not None and live[1] == entry[1]

    def unpark(self, name: str) -> None:
        """Takes queue ``name`` out of the index (it gained a workload)."""
        self.parked.discard(name)

    def woken(self) -> None:
        """Unparks the queues whose threshold their root's availability reaches."""
        for root, heaps in self.heaps.items():
            node = self.roots[root]
            for flavor, heap in heaps.items():
                room = node.available(flavor)
                while heap and heap[0][0] <= room:
                    entry = heappop(heap)
                    if self._is_live(entry):
                        del self.live[entry[2]][flavor]
                        self.parked.discard(entry[2])

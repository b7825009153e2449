"""Kueue's flavor assignment modes and the rules that compare them.

Read from kubernetes-sigs/kueue at commit ff69552e79 (``pkg/scheduler/flavorassigner/
flavorassigner.go`` ``isPreferred``/``shouldTryNextFlavor``, ``pkg/cache/scheduler/
resource_node.go`` ``FindHeightOfLowestSubtreeThatFits``); our code. Each flavor a workload may
run on is Fit (at a borrowing level), Preempt or Reclaim (targets found), NoCandidates or NoFit;
:func:`try_next` says whether to try the next flavor, :func:`preferred` which of two to keep.
Compiled with mypyc (:mod:`engine.native`).
"""

from __future__ import annotations

from engine.quota.model import ClusterQueue
from engine.quota.preemption import Target
from engine.quota.tree import QuotaNode

NO_FIT, NO_CANDIDATES, PREEMPT, RECLAIM, FIT = range(5)
"""Kueue's flavor-assignment preemption modes, worst to best (``flavorassigner.go``)."""


class Assignment:
    """The best flavor found for a workload: mode (:data:`FIT` ...), borrowing level, flavor,
    and the eviction targets of a Preempt mode."""

    __slots__ = ("mode", "borrow", "flavor", "targets")

    def __init__(
        self, mode: int = NO_FIT, borrow: int = 1 << 30, flavor: str = "",
        targets: list[Target] | None = None,
    ) -> None:  # fmt: skip
        self.mode = mode
        self.borrow = borrow
        self.flavor = flavor
        self.targets: list[Target] = targets if targets is not None else []


def fits_at_root(node: QuotaNode, flavor: str, gpus: int) -> bool:
    """Whether the lowest subtree that holds ``gpus`` more is the root (Kueue's
    ``FindHeightOfLowestSubtreeThatFits`` second answer, negated)."""
    if not node.borrowing_with(flavor, gpus):
        return False
    remaining = gpus - node.local_available(flavor)
    for ancestor in node.path_to_root():
        if not ancestor.borrowing_with(flavor, remaining):
            return ancestor.parent is None
        remaining -= ancestor.local_available(flavor)
    return True


def try_next(assignment: Assignment, queue: ClusterQueue) -> bool:
    """Kueue's ``shouldTryNextFlavor``."""
    if assignment.mode in (NO_FIT, NO_CANDIDATES):
        return True
    if assignment.mode in (PREEMPT, RECLAIM) and queue.when_can_preempt == "TryNextFlavor":
        return True
    return assignment.borrow > 0 and queue.when_can_borrow == "TryNextFlavor"


def preferred(a: Assignment, b: Assignment) -> bool:
    """Kueue's ``isPreferred`` with its default preference, borrowing over preemption."""
    if a.mode == NO_FIT:
        return False
    if b.mode == NO_FIT:
        return True
    if (a.mode == NO_CANDIDATES) != (b.mode == NO_CANDIDATES):
        return a.mode != NO_CANDIDATES
    if a.mode != b.mode:
        return a.mode > b.mode
    return a.borrow < b.borrow

"""Kueue's fair sharing: dominant resource shares, the admission tournament and fair-sharing
preemption.

Read from kubernetes-sigs/kueue at commit ff69552e79 (``pkg/cache/scheduler/fair_sharing.go``
``dominantResourceShare``/``CompareDRS``, ``pkg/scheduler/fair_sharing_iterator.go``,
``pkg/scheduler/preemption/preemption.go`` ``fairPreemptions``, ``fairsharing/ordering.go``,
``fairsharing/strategy.go``); our code, with all GPU flavors one resource as Kueue counts
``nvidia.com/gpu``:

- A node's *share* is what it borrows (usage above its subtree quota, summed over flavors) x
  1000 over what the root could lend it (its parent's potential available, summed over the
  root's flavors), divided by its fair-sharing weight; a node that borrows nothing has share 0;
  weight 0 and borrowing is larger than any share.
- *Admission* (``FairSharingPrioritizeNonBorrowing`` on): at each pop, a tournament from the
  root down: at every cohort the child whose share, with the entry's GPUs added, is smallest
  wins (an entry that would not borrow beats one that would); ties by priority, then arrival.
- *Preemption*: candidates are the preemptor's queue's own workloads (``withinClusterQueue``)
  and those of borrowing queues of its cohort tree (``reclaimWithinCohort``), in Kueue's
  candidate order. With the preemptor's GPUs added, the queue of highest share gives up one
  workload at a time while the first strategy holds (LessThanOrEqualToFinalShare: the
  preemptor's new share <= the target's share after the eviction), the preemptor's own queue by
  priority; the second strategy (LessThanInitialShare: new share < the target's share before)
  retries the rest once per queue. The targets are then filled back (minimal set). [R: the
  tree walk of ``nextTarget`` over child cohorts is flattened to the root's ClusterQueues.]
"""

from __future__ import annotations

from engine.quota.preemption import (
    IN_CLUSTER_QUEUE,
    IN_COHORT_FAIR_SHARING,
    Admitted,
    Preemptor,
    Target,
    satisfies,
)
from engine.quota.tree import QuotaNode

Share = tuple[bool, float]
"""A comparable share: (weight 0 and borrowing, weighted share or the raw ratio)."""


def share(node: QuotaNode, weights: dict[str, float]) -> Share:
    """The node's dominant resource share (module docstring), comparable with ``<``."""
    if node.parent is None:
        return (False, 0.0)
    borrowed = sum(max(0, gpus - node.subtree.get(flavor, 0))
                   for flavor, gpus in node.usage.items())  # fmt: skip
    if borrowed <= 0:
        return (False, 0.0)
    root = node.root()
    lendable = sum(node.parent.potential_available(flavor) for flavor in root.subtree)
    ratio = borrowed * 1000.0 / lendable if lendable > 0 else 0.0
    weight = weights.get(node.name, 1.0)
    if weight == 0:
        return (ratio > 0, ratio if ratio > 0 else 0.0)
    return (False, ratio / weight)


def borrowing(node: QuotaNode) -> bool:
    """Whether the node uses more than its subtree quota of some flavor."""
    return node.parent is not None and any(
        gpus > node.subtree.get(flavor, 0) for flavor, gpus in node.usage.items()
    )


def tournament_key(
    node: QuotaNode, flavor: str, gpus: int, weights: dict[str, float]
) -> list[tuple[bool, Share]]:
    """The entry's (would borrow, share) at each level, from the root's children down to its
    queue, with its GPUs added (``computeDRS``): entries compare level by level, as the
    tournament's winners do [R: the per-level winners of ``runTournament`` are the entries with
    the smallest key at the first level where they differ]."""
    node.add_usage(flavor, gpus)
    chain = [node, *node.path_to_root()][:-1]  # the queue up to the root's child
    key = [(borrowing(n), share(n, weights)) for n in reversed(chain)]
    node.remove_usage(flavor, gpus)
    return key


def fair_targets(
    preemptor: Preemptor,
    admitted: dict[QuotaNode, dict[int, Admitted]],
    weights: dict[str, float],
    strategies: tuple[str, ...],
) -> list[Target]:
    """Kueue's ``fairPreemptions`` for one flavor; [] when the preemptor cannot fit."""
    by_queue = _candidates(preemptor, admitted)
    if not any(by_queue.values()):
        return []
    node, flavor, gpus = preemptor.node, preemptor.flavor, preemptor.gpus
    node.add_usage(flavor, gpus)
    targets: list[Target] = []
    retry: dict[QuotaNode, list[Admitted]] = {}
    fits = _first_strategy(preemptor, by_queue, weights, strategies[0], targets, retry)
    if not fits and len(strategies) > 1:
        fits = _second_strategy(preemptor, retry, weights, targets)
    node.remove_usage(flavor, gpus)
    if not fits:
        _restore(targets)
        return []
    for i in range(len(targets) - 2, -1, -1):  # fill back (fillBackWorkloads, borrowing)
        workload = targets[i].workload
        workload.node.add_usage(workload.flavor, workload.gpus)
        if gpus <= max(0, node.available(flavor)):
            targets[i] = targets[-1]
            targets.pop()
        else:
            workload.node.remove_usage(workload.flavor, workload.gpus)
    _restore(targets)
    return targets


def _restore(targets: list[Target]) -> None:
    for target in targets:
        target.workload.node.add_usage(target.workload.flavor, target.workload.gpus)


def _fits(preemptor: Preemptor) -> bool:
    return preemptor.node.available(preemptor.flavor) >= 0


def _first_strategy(
    preemptor: Preemptor, by_queue: dict[QuotaNode, list[Admitted]], weights: dict[str, float],
    strategy: str, targets: list[Target], retry: dict[QuotaNode, list[Admitted]],
) -> bool:  # fmt: skip
    pruned: set[QuotaNode] = set()
    while True:
        queue = _next_queue(preemptor, by_queue, weights, pruned)
        if queue is None:
            return False
        remaining = by_queue[queue]
        if queue is preemptor.node:
            victim = remaining.pop(0)
            _evict(victim, IN_CLUSTER_QUEUE, targets)
            if _fits(preemptor):
                return True
            continue
        new_share = share(preemptor.node, weights)
        old_share = share(queue, weights)
        while remaining:
            victim = remaining.pop(0)
            victim.node.remove_usage(victim.flavor, victim.gpus)
            target_new = share(queue, weights)
            victim.node.add_usage(victim.flavor, victim.gpus)
            passed = (new_share <= target_new if strategy == "LessThanOrEqualToFinalShare"
                      else new_share < old_share)  # fmt: skip
            if passed:
                _evict(victim, IN_COHORT_FAIR_SHARING, targets)
                if _fits(preemptor):
                    return True
                break
            retry.setdefault(queue, []).append(victim)


def _second_strategy(
    preemptor: Preemptor, retry: dict[QuotaNode, list[Admitted]], weights: dict[str, float],
    targets: list[Target],
) -> bool:  # fmt: skip
    pruned: set[QuotaNode] = set()
    while True:
        queue = _next_queue(preemptor, retry, weights, pruned)
        if queue is None:
            return False
        if share(preemptor.node, weights) < share(queue, weights):
            victim = retry[queue].pop(0)
            _evict(victim, IN_COHORT_FAIR_SHARING, targets)
            if _fits(preemptor):
                return True
        pruned.add(queue)


def _evict(victim: Admitted, reason: str, targets: list[Target]) -> None:
    victim.node.remove_usage(victim.flavor, victim.gpus)
    targets.append(Target(victim, reason))


def _next_queue(
    preemptor: Preemptor, by_queue: dict[QuotaNode, list[Admitted]], weights: dict[str, float],
    pruned: set[QuotaNode],
) -> QuotaNode | None:  # fmt: skip
    """The queue of highest share that still has candidates (``nextTarget``, flattened)."""
    best: QuotaNode | None = None
    best_share: Share = (False, -1.0)
    for queue, remaining in by_queue.items():
        if queue in pruned:
            continue
        if not remaining or (queue is not preemptor.node and not borrowing(queue)):
            pruned.add(queue)
            continue
        current = share(queue, weights)
        if current > best_share:
            best, best_share = queue, current
    return best


def _candidates(
    preemptor: Preemptor, admitted: dict[QuotaNode, dict[int, Admitted]]
) -> dict[QuotaNode, list[Admitted]]:
    """Kueue's ``findCandidates``, grouped by queue, each in ``CandidatesOrdering``."""
    policy = preemptor.queue.preemption
    out: dict[QuotaNode, list[Admitted]] = {}
    node, flavor = preemptor.node, preemptor.flavor
    if policy.within_cluster_queue != "Never":
        out[node] = [w for w in admitted.get(node, {}).values()
                     if w.flavor == flavor
                     and satisfies(policy.within_cluster_queue, preemptor, w)]  # fmt: skip
    if node.parent is not None and policy.reclaim_within_cohort != "Never":
        for queue in _queues_under(node.root()):
            if queue is node or not queue.borrowing_with(flavor, 0):
                continue
            out[queue] = [w for w in admitted.get(queue, {}).values()
                          if w.flavor == flavor
                          and satisfies(policy.reclaim_within_cohort, preemptor, w)]  # fmt: skip
    for workloads in out.values():
        workloads.sort(key=lambda w: (w.priority, -w.admitted_s, -w.index))
    return out


def _queues_under(node: QuotaNode) -> list[QuotaNode]:
    if node.is_cluster_queue:
        return [node]
    return [q for child in node.children for q in _queues_under(child)]


__all__ = ["borrowing", "fair_targets", "share", "tournament_key"]

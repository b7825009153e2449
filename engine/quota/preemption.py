"""Kueue's classical preemption: which admitted workloads a pending one may evict, and the
minimal set that makes it fit.

Read from kubernetes-sigs/kueue at commit ff69552e79 (``pkg/scheduler/preemption/
preemption.go`` ``classicalPreemptions``/``fillBackWorkloads``, ``classical/
hierarchical_preemption.go``, ``classical/candidate_generator.go``, ``common/ordering.go``,
``common/preemption_policy.go``); our code, for one resource (GPUs) and one flavor at a time:

1. Candidates: the preemptor's own ClusterQueue's workloads allowed by ``withinClusterQueue``;
   with ``reclaimWithinCohort`` set, the workloads of the cohort tree's other ClusterQueues that
   use more than their quota (walking up from the preemptor, skipping subtrees within nominal),
   allowed by ``reclaimWithinCohort``. A cohort candidate is *reclaim without borrowing* unless
   ``borrowWithinCohort`` allows preempting it while the preemptor borrows (lower priority than
   the preemptor and at most ``maxPriorityThreshold``).
2. Order (``CandidatesOrdering``): other ClusterQueues first, then lower priority first, then the
   most recently admitted first.
3. Attempts with and without borrowing, in Kueue's order; in each, remove candidates in order
   (skipping one whose ClusterQueue is back within nominal) until the preemptor fits, then add
   back every target but the last whose removal was not needed (fill back).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cmp_to_key

from engine.quota.model import ClusterQueue
from engine.quota.tree import QuotaNode

IN_CLUSTER_QUEUE = "InClusterQueue"
IN_COHORT_RECLAMATION = "InCohortReclamation"
IN_COHORT_RECLAIM_WHILE_BORROWING = "InCohortReclaimWhileBorrowing"
IN_COHORT_FAIR_SHARING = "InCohortFairSharing"
PREEMPTION_REASONS = (
    IN_CLUSTER_QUEUE,
    IN_COHORT_RECLAMATION,
    IN_COHORT_RECLAIM_WHILE_BORROWING,
    IN_COHORT_FAIR_SHARING,
)
"""Kueue's preemption reasons (``kueue.InClusterQueueReason`` etc.), as the results name them."""

_WITHIN_CQ, _HIERARCHICAL, _WITHOUT_BORROWING, _WHILE_BORROWING = range(4)


class Admitted:
    """An admitted workload as the quota layer books it.

    Attributes:
        index: the job's index in the run.
        node: its ClusterQueue's node.
        flavor: the flavor it holds.
        gpus: GPUs it holds.
        priority: its priority (higher first).
        order_s: its queue-order timestamp (arrival, s).
        admitted_s: when its quota was reserved (s).
    """

    __slots__ = ("index", "node", "flavor", "gpus", "priority", "order_s", "admitted_s")

    def __init__(
        self, index: int, node: QuotaNode, flavor: str, gpus: int, priority: int,
        order_s: float, admitted_s: float,
    ) -> None:  # fmt: skip
        self.index = index
        self.node = node
        self.flavor = flavor
        self.gpus = gpus
        self.priority = priority
        self.order_s = order_s
        self.admitted_s = admitted_s


@dataclass(frozen=True)
class Target:
    """A workload to evict, and Kueue's reason (one of :data:`PREEMPTION_REASONS`)."""

    workload: Admitted
    reason: str


@dataclass(frozen=True)
class Preemptor:
    """The pending workload that asks for ``gpus`` of ``flavor``."""

    node: QuotaNode
    queue: ClusterQueue
    flavor: str
    gpus: int
    priority: int
    order_s: float
    index: int
    local_queue_usage: dict[int, tuple[str, float]] | None = None
    """Under admission fair sharing: job index -> (LocalQueue, its usage) of every admitted
    workload of a ClusterQueue with admission fair sharing; None when it is off."""


def satisfies(policy: str, preemptor: Preemptor, candidate: Admitted) -> bool:
    """Kueue's ``SatisfiesPreemptionPolicy``: may ``preemptor`` evict ``candidate`` under
    ``policy`` (Never, LowerPriority, LowerOrNewerEqualPriority, Any)."""
    lower = preemptor.priority > candidate.priority
    if policy == "LowerPriority":
        return lower
    if policy == "LowerOrNewerEqualPriority":
        newer_equal = preemptor.priority == candidate.priority and (
            (preemptor.order_s, preemptor.index) < (candidate.order_s, candidate.index)
        )
        return lower or newer_equal
    return policy == "Any"


def find_targets(
    preemptor: Preemptor, admitted: dict[QuotaNode, dict[int, Admitted]]
) -> list[Target]:
    """The minimal set of workloads whose eviction lets ``preemptor`` fit (empty: none does).

    ``admitted``: ClusterQueue node -> its admitted workloads by job index. The tree's usage is
    restored before returning.
    """
    same, hierarchy, by_priority = _candidates(preemptor, admitted)
    ordered = [*hierarchy, *by_priority, *same]
    forbidden = preemptor.queue.preemption.borrow_within_cohort == "Never"
    node, flavor = preemptor.node, preemptor.flavor
    under_nominal = node.nominal(flavor) > node.usage.get(flavor, 0)
    attempts: tuple[bool, ...]
    if (not hierarchy and not by_priority) or (forbidden and not under_nominal):
        attempts = (True,)
    elif forbidden and not hierarchy:
        attempts = (False, True)
    else:
        attempts = (True, False)
    for borrowing in attempts:
        targets: list[tuple[Admitted, int, QuotaNode | None]] = []
        for workload, variant, lca in ordered:
            if not _valid(preemptor, workload, variant, lca, borrowing):
                continue
            workload.node.remove_usage(workload.flavor, workload.gpus)
            targets.append((workload, variant, lca))
            if _fits(preemptor, borrowing):
                targets = _fill_back(preemptor, targets, borrowing)
                for target, _, _ in targets:
                    target.node.add_usage(target.flavor, target.gpus)
                return [Target(w, _reason(v)) for w, v, _ in targets]
        for target, _, _ in targets:
            target.node.add_usage(target.flavor, target.gpus)
    return []


def _reason(variant: int) -> str:
    if variant == _WITHIN_CQ:
        return IN_CLUSTER_QUEUE
    if variant == _WHILE_BORROWING:
        return IN_COHORT_RECLAIM_WHILE_BORROWING
    return IN_COHORT_RECLAMATION


def _fits(preemptor: Preemptor, borrowing: bool) -> bool:
    node, flavor, gpus = preemptor.node, preemptor.flavor, preemptor.gpus
    if not borrowing and node.borrowing_with(flavor, gpus):
        return False
    return gpus <= max(0, node.available(flavor))


def _fill_back(
    preemptor: Preemptor, targets: list[tuple[Admitted, int, QuotaNode | None]], borrowing: bool
) -> list[tuple[Admitted, int, QuotaNode | None]]:
    """Kueue's ``fillBackWorkloads``: re-admit, from the second last back, each target the
    preemptor still fits without."""
    for i in range(len(targets) - 2, -1, -1):
        workload = targets[i][0]
        workload.node.add_usage(workload.flavor, workload.gpus)
        if _fits(preemptor, borrowing):
            targets[i] = targets[-1]
            targets.pop()
        else:
            workload.node.remove_usage(workload.flavor, workload.gpus)
    return targets


def _valid(
    preemptor: Preemptor, workload: Admitted, variant: int, lca: QuotaNode | None,
    borrowing: bool,
) -> bool:  # fmt: skip
    """Kueue's ``candidateIsValid``: a cohort candidate's queue (and its cohorts below the
    common ancestor) must still be over its quota."""
    if workload.node is preemptor.node:
        return True
    if borrowing and variant == _WITHOUT_BORROWING:
        return False
    flavor = preemptor.flavor
    if workload.node.within_nominal(flavor):
        return False
    for node in workload.node.path_to_root():
        if node is lca:
            break
        if node.within_nominal(flavor):
            return False
    return True


Candidate = tuple[Admitted, int, QuotaNode | None]


def _candidates(
    preemptor: Preemptor, admitted: dict[QuotaNode, dict[int, Admitted]]
) -> tuple[list[Candidate], list[Candidate], list[Candidate]]:
    """(same queue, hierarchical reclaim, by priority) candidates, each in Kueue's order."""
    policy = preemptor.queue.preemption
    same: list[Candidate] = []
    if policy.within_cluster_queue != "Never":
        same = _from_queue(preemptor, preemptor.node, None, False, admitted)
    hierarchy: list[Candidate] = []
    by_priority: list[Candidate] = []
    node, flavor = preemptor.node, preemptor.flavor
    if node.parent is not None and policy.reclaim_within_cohort != "Never":
        advantage = node.fits_in_subtree(flavor, preemptor.gpus)
        remaining = max(0, preemptor.gpus - node.local_available(flavor))
        previous: QuotaNode | None = None
        for root in node.path_to_root():
            out = hierarchy if advantage else by_priority
            _collect(preemptor, root, root, previous, advantage, admitted, out)
            fits = root.fits_in_subtree(flavor, remaining)
            remaining = max(0, remaining - root.local_available(flavor))
            advantage = advantage or fits
            previous = root
    key = cmp_to_key(_ordering(preemptor.node, preemptor.local_queue_usage or {}))
    return sorted(same, key=key), sorted(hierarchy, key=key), sorted(by_priority, key=key)


def _ordering(
    queue: QuotaNode, usage: dict[int, tuple[str, float]]
) -> Callable[[Candidate, Candidate], int]:
    """Kueue's ``CandidatesOrdering`` (``pkg/scheduler/preemption/common/ordering.go``): other
    queues first; under admission fair sharing, of two workloads of one ClusterQueue from two
    LocalQueues, the one whose LocalQueue has used more; lower priority; newest admission."""

    def compare(a: Candidate, b: Candidate) -> int:
        x, y = a[0], b[0]
        if (x.node is queue) != (y.node is queue):
            return 1 if x.node is queue else -1
        ux, uy = usage.get(x.index), usage.get(y.index)
        if (
            ux is not None and uy is not None and x.node is y.node
            and ux[0] != uy[0] and ux[1] != uy[1]
        ):  # fmt: skip
            return -1 if ux[1] > uy[1] else 1
        kx = (x.priority, -x.admitted_s, -x.index)
        ky = (y.priority, -y.admitted_s, -y.index)
        return -1 if kx < ky else (1 if kx > ky else 0)

    return compare


def _collect(
    preemptor: Preemptor, current: QuotaNode, subtree_root: QuotaNode, skip: QuotaNode | None,
    advantage: bool, admitted: dict[QuotaNode, dict[int, Admitted]], out: list[Candidate],
) -> None:  # fmt: skip
    """Kueue's ``collectCandidatesInSubtree``: over-quota queues under ``current``."""
    flavor = preemptor.flavor
    for child in current.children:
        if child.is_cluster_queue or child is skip or child.within_nominal(flavor):
            continue
        _collect(preemptor, child, subtree_root, skip, advantage, admitted, out)
    for child in current.children:
        if not child.is_cluster_queue or child is preemptor.node:
            continue
        if not child.within_nominal(flavor):
            out.extend(_from_queue(preemptor, child, subtree_root, advantage, admitted))


def _from_queue(
    preemptor: Preemptor, queue: QuotaNode, lca: QuotaNode | None, advantage: bool,
    admitted: dict[QuotaNode, dict[int, Admitted]],
) -> list[Candidate]:  # fmt: skip
    """Kueue's ``getCandidatesFromCQ`` with ``classifyPreemptionVariant``."""
    policy = preemptor.queue.preemption
    same = queue is preemptor.node
    rule = policy.within_cluster_queue if same else policy.reclaim_within_cohort
    out: list[Candidate] = []
    for workload in admitted.get(queue, {}).values():
        if workload.flavor != preemptor.flavor or not satisfies(rule, preemptor, workload):
            continue
        if same:
            variant = _WITHIN_CQ
        elif advantage:
            variant = _HIERARCHICAL
        elif policy.borrow_within_cohort == "Never" or _above_threshold(
            workload.priority, preemptor.priority, policy.max_priority_threshold
        ):
            variant = _WITHOUT_BORROWING
        else:
            variant = _WHILE_BORROWING
        out.append((workload, variant, lca))
    return out


def _above_threshold(candidate: int, incoming: int, threshold: int | None) -> bool:
    """Kueue's ``isAboveBorrowingThreshold``."""
    if candidate >= incoming:
        return True
    return threshold is not None and candidate > threshold

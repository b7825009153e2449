"""Kueue's quota tree: ClusterQueues and cohorts as nodes, their GPU quota and usage per flavor.

The arithmetic is Kueue's resource node (kubernetes-sigs/kueue ``pkg/cache/scheduler/
resource_node.go``, read at commit ff69552e79; our code):

- a node's *local quota* of a flavor is the part of its subtree quota it does not lend,
  ``max(0, subtree - lendingLimit)`` (0 when it lends everything, i.e. no lending limit);
- a cohort's *subtree quota* is its own nominal quota plus what each child lends
  (``child.subtree - child.local``); its *usage* is what its children use beyond their local
  quota;
- :meth:`QuotaNode.available` is what a node may still take: its unused local quota plus what its
  parent has available, capped by its borrowing limit; :meth:`QuotaNode.potential_available` the
  same on an empty cluster;
- :meth:`QuotaNode.add_usage` books usage up the tree only past each node's local quota.

Quantities are whole GPUs (``int``). Errors are caught earlier (:meth:`QueueConfig.check`).
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.quota.model import FlavorQuota, QueueConfig


class UsageClock:
    """Counts the changes of usage in one tree (what :meth:`QuotaNode.available` remembers
    is good until the next)."""

    __slots__ = ("ticks",)

    def __init__(self) -> None:
        self.ticks = 0


class QuotaNode:
    """A ClusterQueue or cohort of the tree.

    Attributes:
        name: the object's name.
        is_cluster_queue: True for a ClusterQueue (a leaf), False for a cohort.
        parent: the parent cohort, None at a root.
        quotas: flavor -> its :class:`FlavorQuota` (nominal, borrowing and lending limits).
        subtree: flavor -> subtree quota (GPUs).
        usage: flavor -> GPUs in use (admitted workloads, and what children use past their
            local quota).
        children: the child nodes (cohorts first, then ClusterQueues, in config order).
        clock: the usage clock shared by the nodes of one tree (:class:`UsageClock`).
    """

    __slots__ = (
        "name", "is_cluster_queue", "parent", "quotas", "subtree", "usage", "children", "clock",
        "_available", "_available_at", "_limited", "_height",
    )  # fmt: skip

    def __init__(self, name: str, is_cluster_queue: bool, quotas: tuple[FlavorQuota, ...]):
        self.name = name
        self.is_cluster_queue = is_cluster_queue
        self.parent: QuotaNode | None = None
        self.quotas = {q.flavor: q for q in quotas}
        self.subtree: dict[str, int] = {q.flavor: q.nominal_gpus for q in quotas}
        self.usage: dict[str, int] = {}
        self.children: list[QuotaNode] = []
        self.clock = UsageClock()
        self._available: dict[str, int] = {}  # flavor -> available(), read at _available_at
        self._available_at = -1
        self._height = -1  # height(), once the tree is built
        # flavors with a lending or borrowing limit; for the others a node with a parent may
        # take just what its parent has available (its local quota is 0)
        self._limited = {
            q.flavor
            for q in quotas
            if q.lending_limit_gpus is not None or q.borrowing_limit_gpus is not None
        }

    def __repr__(self) -> str:
        kind = "ClusterQueue" if self.is_cluster_queue else "Cohort"
        return f"{kind}({self.name!r}, usage={self.usage})"

    def nominal(self, flavor: str) -> int:
        """The node's own nominal quota of ``flavor`` (0 when it lists none)."""
        quota = self.quotas.get(flavor)
        return quota.nominal_gpus if quota is not None else 0

    def local_quota(self, flavor: str) -> int:
        """GPUs of ``flavor`` the node keeps for itself (not lent)."""
        quota = self.quotas.get(flavor)
        if quota is None or quota.lending_limit_gpus is None:
            return 0
        return max(0, self.subtree.get(flavor, 0) - quota.lending_limit_gpus)

    def local_available(self, flavor: str) -> int:
        """Unused GPUs of the node's local quota."""
        return max(0, self.local_quota(flavor) - self.usage.get(flavor, 0))

    def available(self, flavor: str) -> int:
        """GPUs of ``flavor`` the node may take now (may be negative in a cohort overrun).

        Remembered until the tree's usage next changes [R: a cache; a cycle asks it of the same
        nodes many times between two changes]; a node without limits on ``flavor`` passes its
        parent's on."""
        if self.parent is not None and flavor not in self._limited:
            return self.parent.available(flavor)
        if self._available_at != self.clock.ticks:
            self._available.clear()
            self._available_at = self.clock.ticks
        value = self._available.get(flavor)
        if value is None:
            value = self._available[flavor] = self._compute_available(flavor)
        return value

    def _compute_available(self, flavor: str) -> int:
        if self.parent is None:
            return self.subtree.get(flavor, 0) - self.usage.get(flavor, 0)
        parent_available = self.parent.available(flavor)
        quota = self.quotas.get(flavor)
        if quota is not None and quota.borrowing_limit_gpus is not None:
            local = self.local_quota(flavor)
            stored_in_parent = self.subtree.get(flavor, 0) - local
            used_in_parent = max(0, self.usage.get(flavor, 0) - local)
            with_max = stored_in_parent - used_in_parent + quota.borrowing_limit_gpus
            parent_available = min(with_max, parent_available)
        return self.local_available(flavor) + parent_available

    def potential_available(self, flavor: str) -> int:
        """GPUs of ``flavor`` the node could take on an empty cluster."""
        if self.parent is None:
            return self.subtree.get(flavor, 0)
        potential = self.local_quota(flavor) + self.parent.potential_available(flavor)
        quota = self.quotas.get(flavor)
        if quota is not None and quota.borrowing_limit_gpus is not None:
            potential = min(self.subtree.get(flavor, 0) + quota.borrowing_limit_gpus, potential)
        return potential

    def add_usage(self, flavor: str, gpus: int) -> None:
        """Books ``gpus`` of ``flavor``; the part past the local quota goes to the parent."""
        self.clock.ticks += 1
        local_available = self.local_available(flavor)
        self.usage[flavor] = self.usage.get(flavor, 0) + gpus
        if self.parent is not None and gpus > local_available:
            self.parent.add_usage(flavor, gpus - local_available)

    def remove_usage(self, flavor: str, gpus: int) -> None:
        """Releases ``gpus`` of ``flavor`` (the inverse of :meth:`add_usage`)."""
        self.clock.ticks += 1
        stored_in_parent = self.usage.get(flavor, 0) - self.local_quota(flavor)
        self.usage[flavor] = self.usage.get(flavor, 0) - gpus
        if stored_in_parent > 0 and self.parent is not None:
            self.parent.remove_usage(flavor, min(gpus, stored_in_parent))

    def borrowing_with(self, flavor: str, gpus: int) -> bool:
        """Whether the node would use more than its quota with ``gpus`` more: a ClusterQueue's
        nominal quota, a cohort's subtree quota."""
        limit = self.nominal(flavor) if self.is_cluster_queue else self.subtree.get(flavor, 0)
        return limit < self.usage.get(flavor, 0) + gpus

    def within_nominal(self, flavor: str) -> bool:
        """Kueue's ``IsWithinNominalInResources`` for one flavor: usage <= subtree quota."""
        return self.usage.get(flavor, 0) <= self.subtree.get(flavor, 0)

    def fits_in_subtree(self, flavor: str, gpus: int) -> bool:
        """Whether ``gpus`` more fit in the node's subtree quota (``QuantitiesFitInQuota``)."""
        return self.usage.get(flavor, 0) + gpus <= self.subtree.get(flavor, 0)

    def path_to_root(self) -> Iterator[QuotaNode]:
        """The node's ancestors, parent first."""
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def root(self) -> QuotaNode:
        """The root of the node's tree (itself when it has no parent)."""
        node = self
        while node.parent is not None:
            node = node.parent
        return node

    def height(self) -> int:
        """Kueue's ``getNodeHeight``: 0 for a leaf, 1 for a cohort of queues, and so on
        (remembered: :class:`QuotaTree` builds the tree before any is asked)."""
        if self._height >= 0:
            return self._height
        height = 0
        if not self.is_cluster_queue:
            height = min(len(self.children), 1)
            for child in self.children:
                if not child.is_cluster_queue:
                    height = max(height, child.height() + 1)
        self._height = height
        return height

    def borrowing_level(self, flavor: str, gpus: int) -> int:
        """Kueue's ``FindHeightOfLowestSubtreeThatFits``: 0 when ``gpus`` more fit in the
        queue's nominal quota, else the height of the lowest cohort whose subtree holds them."""
        if not self.borrowing_with(flavor, gpus) or self.parent is None:
            return 0
        remaining = gpus - self.local_available(flavor)
        node: QuotaNode | None = self.parent
        while node is not None:  # (path_to_root without a generator: it runs per head)
            if not node.borrowing_with(flavor, remaining):
                return node.height()
            remaining -= node.local_available(flavor)
            node = node.parent
        return self.root().height()


class QuotaTree:
    """Every node of a :class:`QueueConfig`, with subtree quotas computed.

    Cohorts named by a ClusterQueue or as a parent but not declared are implicit roots with no
    quota of their own (Kueue creates them so).

    Attributes:
        cluster_queues: name -> leaf node, in config order.
        cohorts: name -> cohort node.
    """

    def __init__(self, config: QueueConfig) -> None:
        self.cohorts: dict[str, QuotaNode] = {
            c.name: QuotaNode(c.name, False, c.flavors) for c in config.cohorts
        }
        self.cluster_queues: dict[str, QuotaNode] = {
            cq.name: QuotaNode(cq.name, True, cq.flavors) for cq in config.cluster_queues
        }
        for cohort in config.cohorts:
            if cohort.parent:
                self._attach(self.cohorts[cohort.name], cohort.parent)
        for cq in config.cluster_queues:
            if cq.cohort:
                self._attach(self.cluster_queues[cq.name], cq.cohort)
        for node in self.cohorts.values():
            node.children.sort(key=lambda child: child.is_cluster_queue)  # cohorts first
        for node in self.cohorts.values():
            if node.parent is None:
                _accumulate(node)
        clock = UsageClock()
        for node in [*self.cohorts.values(), *self.cluster_queues.values()]:
            node.clock = clock

    def _attach(self, child: QuotaNode, parent_name: str) -> None:
        parent = self.cohorts.get(parent_name)
        if parent is None:  # an implicit cohort
            parent = self.cohorts[parent_name] = QuotaNode(parent_name, False, ())
        child.parent = parent
        parent.children.append(child)


def _accumulate(cohort: QuotaNode) -> None:
    """Kueue's ``updateCohortResourceNode``: a cohort's subtree quota from its children."""
    cohort.subtree = {flavor: q.nominal_gpus for flavor, q in cohort.quotas.items()}
    for child in cohort.children:
        if not child.is_cluster_queue:
            _accumulate(child)
        for flavor, gpus in child.subtree.items():
            cohort.subtree[flavor] = (
                cohort.subtree.get(flavor, 0) + gpus - child.local_quota(flavor)
            )

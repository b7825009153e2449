"""One ClusterQueue's admission state: its pending workloads, grouped by what they need.

:class:`engine.quota.admission.QuotaScheduler` keeps one :class:`QueueState` per ClusterQueue
in a list (its position is the queue's number), so a scheduling cycle reads a queue's keys,
quota node, strategy and flags as attributes, not through a dozen dicts keyed by its name.

Without preemption a pending workload is admissible iff some flavor it runs on has room for
its GPUs: a queue's pending keys are also grouped by (GPUs, those flavors) (:class:`Group`), so
a BestEffortFIFO head is the first key among the groups that fit (:meth:`QueueState.
first_fitting`), not a scan, and a queue whose groups all need more than the room has no head
(:meth:`QueueState.park`, :meth:`QueueState.still_clean`) [R].

Restructured from per-name dicts (29 November 2026): on the full Philly trace under the default
quotas (FIFO, 86,659 decisions, 340,000 heads) the quota layer's time is mostly this
bookkeeping, not Kueue's rules. Compiled with mypyc (:mod:`engine.native`).
"""

from __future__ import annotations

from engine.quota.assignment import FIT, Assignment
from engine.quota.model import ClusterQueue
from engine.quota.pending import CountedKeys, OrderKey, SortedKeys
from engine.quota.tree import QuotaNode


class Group:
    """The pending keys of one queue's workloads with the same GPUs and flavors.

    Attributes:
        gpus: GPUs each workload needs.
        flavors: the queue's flavors they run on, in the queue's order.
        slots: those flavors' positions in the queue's flavor list.
        keys: their pending keys in order.
    """

    __slots__ = ("gpus", "flavors", "slots", "keys")

    def __init__(self, gpus: int, flavors: tuple[str, ...], slots: list[int]) -> None:
        self.gpus = gpus
        self.flavors = flavors
        self.slots = slots
        self.keys = SortedKeys()


class Workload:
    """A pending (or admitted) workload: job index, its queue, GPUs, priority (higher first),
    its key in the queue (:data:`OrderKey`) and the key's arrival time (s), and its group."""

    __slots__ = ("index", "queue", "gpus", "priority", "order_s", "key", "group")

    def __init__(
        self, index: int, queue: QueueState, gpus: int, priority: int, key: OrderKey
    ) -> None:
        self.index = index
        self.queue = queue
        self.gpus = gpus
        self.priority = priority
        self.order_s = key[2]
        self.key = key
        self.group: Group | None = None


class QueueState:
    """One ClusterQueue as the scheduler sees it.

    Args:
        pos: the queue's number (its position in the configuration).
        config: the ClusterQueue.
        node: its quota node.
        scans: whether a BestEffortFIFO head needs Kueue's flavor assignment per workload
            (preemption, or admission fair sharing): its keys are kept in order then.

    Attributes:
        pending: its pending keys (only counted when no head needs their order).
        groups: (GPUs, flavors) -> :class:`Group`, every group it ever had.
        active: the groups with pending keys.
        parked: flavor -> at most the fewest GPUs of its pending workloads that run on it,
            noted when it had no head and lowered by each workload queued since (one leaving
            may leave it low): it has no head while no flavor has that room; None when unknown.
        clean_at: the usage version at which a queue that scans had no head (-1: unknown).
        blocked: "quota" or "placement" (what its head waits for), "" when not blocked.
    """

    def __init__(self, pos: int, config: ClusterQueue, node: QuotaNode, scans: bool) -> None:
        self.pos = pos
        self.name = config.name
        self.config = config
        self.node = node
        self.scans = scans
        self.strict = config.queueing_strategy == "StrictFIFO"
        self.borrow_next = config.when_can_borrow == "TryNextFlavor"
        self.flavors = [q.flavor for q in config.flavors]
        self.room = [0] * len(self.flavors)  # per flavor slot: available GPUs (first_fitting)
        self.pending: SortedKeys = SortedKeys() if scans or self.strict else CountedKeys()
        self.groups: dict[tuple[int, tuple[str, ...]], Group] = {}
        self.active: list[Group] = []
        self.parked: dict[str, int] | None = None
        self.clean_at = -1
        self.blocked = ""

    def group(self, gpus: int, flavors: tuple[str, ...]) -> Group:
        """The group of workloads needing ``gpus`` GPUs on ``flavors`` (made when new)."""
        group = self.groups.get((gpus, flavors))
        if group is None:
            slots = [self.flavors.index(flavor) for flavor in flavors]
            group = self.groups[(gpus, flavors)] = Group(gpus, flavors, slots)
        return group

    def add(self, workload: Workload, group: Group) -> None:
        """Queues ``workload`` (of ``group``)."""
        self.pending.add(workload.key)
        if not len(group.keys):
            self.active.append(group)
        group.keys.add(workload.key)
        self.clean_at = -1
        parked = self.parked
        if parked is not None:
            for flavor in group.flavors:
                if group.gpus < parked.get(flavor, 1 << 30):
                    parked[flavor] = group.gpus

    def remove(self, workload: Workload, group: Group) -> None:
        """Takes ``workload`` (of ``group``) out of the queue."""
        self.pending.remove(workload.key)
        group.keys.remove(workload.key)
        if not len(group.keys):
            self.active.remove(group)  # (a cycle looks at every active group)
        self.clean_at = -1

    def still_clean(self, version: int) -> bool:
        """Whether the queue still has no head without looking at its workloads (``version``:
        the scheduler's usage version)."""
        if self.scans:
            return self.clean_at == version
        parked = self.parked
        if parked is None:
            return False
        node = self.node
        for flavor, gpus in parked.items():  # noqa: SIM110 (compiled: no generator)
            if gpus <= node.available(flavor):
                return False
        return True

    def park(self) -> None:
        """Notes, for a queue without a head, the fewest GPUs it waits for per flavor."""
        need: dict[str, int] = {}
        for group in self.active:
            gpus = group.gpus
            for flavor in group.flavors:
                if gpus < need.get(flavor, 1 << 30):
                    need[flavor] = gpus
        self.parked = need

    def first_fitting(self) -> Group | None:
        """The group whose first pending key is the first that fits some flavor it runs on
        (None: no head; :attr:`room` holds each flavor's available GPUs)."""
        node, room, flavors = self.node, self.room, self.flavors
        for slot in range(len(flavors)):
            room[slot] = node.available(flavors[slot])
        best: Group | None = None
        for group in self.active:
            if best is not None and group.keys.first() >= best.keys.first():
                continue
            for slot in group.slots:
                if group.gpus <= room[slot]:
                    best = group
                    break
        return best

    def fit(self, group: Group) -> Assignment:
        """Kueue's flavor assignment for the first workload of ``group``, which fits some
        flavor without preemption (right after :meth:`first_fitting`): the first flavor that
        fits, or under ``whenCanBorrow: TryNextFlavor`` the one that borrows least (Kueue's
        ``isPreferred`` among Fit modes)."""
        node, room, gpus = self.node, self.room, group.gpus
        best = Assignment()
        for slot in group.slots:
            if gpus > room[slot]:
                continue
            flavor = self.flavors[slot]
            borrow = node.borrowing_level(flavor, gpus)
            if borrow == 0 or not self.borrow_next:
                return Assignment(FIT, borrow, flavor)
            if best.mode != FIT or borrow < best.borrow:
                best = Assignment(FIT, borrow, flavor)
        return best

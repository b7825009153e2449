"""Kueue's admission: each ClusterQueue's head, its flavor, and the cycle that admits them.

Read from kubernetes-sigs/kueue at commit ff69552e79 (``pkg/scheduler/scheduler.go``
``schedule``/``processEntry``/``makeClassicalIterator``, ``pkg/scheduler/flavorassigner/
flavorassigner.go`` ``fitsResourceQuota``/``isPreferred``/``shouldTryNextFlavor``, ``pkg/cache/
queue/cluster_queue.go``); our code. One scheduling cycle:

1. *Heads*: per ClusterQueue with pending workloads, in the queue's order (priority, higher
   first, then the policy's key, then arrival): StrictFIFO takes the first whatever happens to
   it; BestEffortFIFO takes the first that is not inadmissible (no flavor fits and no preemption
   helps) [R: Kueue parks an inadmissible head and tries the next at its next cycle, and puts the
   parked ones back when quota is freed in the cohort; in simulated time those cycles happen at
   the same instant, so we scan to the first admissible workload, re-scanning only after usage
   changed].
2. *Flavor assignment*: the queue's flavors in order; a flavor the job cannot run on (no
   throughput on that worker type) is skipped like a flavor whose node labels do not match. Each
   flavor is Fit (at a borrowing level), Preempt (targets found), NoCandidates or NoFit;
   ``whenCanBorrow``/``whenCanPreempt`` decide whether to stop at it or try the next, and the
   best is kept (Kueue's default preference: borrowing over preemption).
3. *Order*: entries that do not borrow first, then higher priority, then earlier arrival; under
   fair sharing, Kueue's tournament of dominant resource shares (:mod:`engine.quota.fair_sharing`).
4. *Admit* in that order: a Fit entry is admitted if it still fits (earlier admissions of the
   cycle count) and its worker type has the free GPUs [R: Kueue leaves the placement of pods to
   kube-scheduler; here a workload is admitted when it can be placed, otherwise it waits as a
   placement wait]; a Preempt entry whose targets are not already taken evicts them and reserves
   its usage for the rest of the cycle, to be admitted at the next cycle.

Cycles repeat at the same instant until one changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from engine.quota.admission_fair_sharing import LocalQueueUsage
from engine.quota.fair_sharing import Share, fair_targets, tournament_key
from engine.quota.model import ClusterQueue, QueueConfig
from engine.quota.pending import CountedKeys, OrderKey, SortedKeys
from engine.quota.preemption import Admitted, Preemptor, Target, find_targets
from engine.quota.tree import QuotaNode, QuotaTree
from engine.quota.wake import WakeIndex

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


class CycleResult:
    """What one call of :meth:`QuotaScheduler.schedule` did.

    Attributes:
        admitted: (job index, worker type) of every workload admitted, in order.
        evicted: (job index, Kueue's reason, preemptor's job index) of every workload evicted.
        blocked: ClusterQueue name -> "quota" (its head did not fit its quota) or "placement"
            (its head fit its quota but the worker type had too few free GPUs), for each queue
            left with pending workloads.
    """

    __slots__ = ("admitted", "evicted", "blocked")

    def __init__(self) -> None:
        self.admitted: list[tuple[int, str]] = []
        self.evicted: list[tuple[int, str, int]] = []
        self.blocked: dict[str, str] = {}


class _Workload:
    __slots__ = ("index", "queue", "gpus", "priority", "order_s", "key")

    def __init__(self, index: int, queue: str, gpus: int, priority: int, key: OrderKey) -> None:
        self.index = index
        self.queue = queue
        self.gpus = gpus
        self.priority = priority
        self.order_s = key[2]
        self.key = key


class QuotaScheduler:
    """Kueue's queues and admission over a :class:`QuotaTree`.

    Args:
        config: the checked queue configuration.
        runs_on: ``runs_on(job index, worker type)``: whether the job has a throughput there.
    """

    def __init__(
        self,
        config: QueueConfig,
        runs_on: Callable[[int, str], bool],
        key_of: Callable[[int], OrderKey],
    ) -> None:
        self.tree = QuotaTree(config)
        self.fair = config.fair_sharing
        self.weights = {cq.name: cq.fair_weight for cq in config.cluster_queues}
        self.weights.update({c.name: c.fair_weight for c in config.cohorts})
        self.queues: dict[str, ClusterQueue] = {cq.name: cq for cq in config.cluster_queues}
        self._flavors = {cq.name: [q.flavor for q in cq.flavors] for cq in config.cluster_queues}
        self.flavor_types = config.flavor_types()
        self.runs_on = runs_on
        self.key_of = key_of
        # without preemption a pending workload is admissible iff some flavor it runs on has
        # room for its GPUs: per queue, its pending keys grouped by (GPUs, those flavors), so a
        # BestEffortFIFO head is the first key among the groups that fit, not a scan
        self.groups: dict[str, dict[tuple[int, tuple[str, ...]], SortedKeys]] = {
            name: {} for name in self.queues
        }
        self._group_of: dict[int, tuple[int, tuple[str, ...]]] = {}
        fair = config.fair_sharing
        self.afs: LocalQueueUsage | None = None
        self._afs_queues: set[str] = set()
        if fair.admission_half_life_s > 0:
            self._afs_queues = {cq.name for cq in config.cluster_queues
                                if cq.admission_fair_sharing}  # fmt: skip
        if self._afs_queues:
            weights = {lq.name: lq.fair_weight for lq in config.local_queues}
            self.afs = LocalQueueUsage(
                fair.admission_half_life_s, fair.admission_sampling_s, weights
            )
        self._local_queue: dict[int, str] = {}  # job index -> its LocalQueue
        self._scans = {name: self._must_scan(cq) for name, cq in self.queues.items()}
        self._any_scan = any(self._scans.values())
        self.pending: dict[str, SortedKeys] = {
            name: SortedKeys() if self._scans[name] or cq.queueing_strategy == "StrictFIFO"
            else CountedKeys()
            for name, cq in self.queues.items()
        }  # fmt: skip
        self.blocked: dict[str, str] = {}  # queue -> "quota" or "placement" (CycleResult)
        self._released = True  # a release since the last schedule (the first looks at all)
        self._submitted: set[str] = set()  # queues that gained a workload since then
        self.workloads: dict[int, _Workload] = {}
        self.admitted: dict[QuotaNode, dict[int, Admitted]] = {
            node: {} for node in self.tree.cluster_queues.values()
        }
        self.admitted_by_index: dict[int, Admitted] = {}
        self.touched: set[str] = set()  # queues whose usage changed since the caller cleared it
        self.version = 0  # bumped at every change of usage
        # queue -> flavor -> at most the fewest GPUs of its pending workloads that run on it,
        # noted when a queue that needs no scan had no head and lowered by each workload queued
        # since (one leaving may leave it low): it has no head while no flavor has that room
        self._parked: dict[str, dict[str, int]] = {}
        # the queues of _parked known to have no head until their root frees quota: not looked
        # at by a cycle over all queues until the index wakes them (:mod:`engine.quota.wake`)
        self.wake = WakeIndex(self.tree)
        # queue -> the version at which a queue that may preempt had no head (any change of
        # usage may give it one)
        self._clean: dict[str, int] = {}

    def worker_type(self, flavor: str) -> str:
        """The worker type a flavor stands for."""
        return self.flavor_types.get(flavor, flavor)

    def submit(
        self, index: int, queue: str, gpus: int, priority: int, key: OrderKey,
        local_queue: str = "",
    ) -> None:  # fmt: skip
        """Queues a pending workload (a job that arrived, or an evicted one, again) of
        ClusterQueue ``queue``, from ``local_queue`` (default: the ClusterQueue's name)."""
        self.workloads[index] = _Workload(index, queue, gpus, priority, key)
        self._local_queue[index] = local_queue or queue
        self._queue(self.workloads[index])

    def _queue(self, workload: _Workload) -> None:
        name, key = workload.queue, workload.key
        self.pending[name].add(key)
        group = self._group_of.get(workload.index)
        if group is None:
            runs = tuple(q.flavor for q in self.queues[name].flavors
                         if self.runs_on(workload.index, self.worker_type(q.flavor)))  # fmt: skip
            group = self._group_of[workload.index] = (workload.gpus, runs)
        keys = self.groups[name].get(group)
        if keys is None:
            keys = self.groups[name][group] = SortedKeys()
        keys.add(key)
        self._submitted.add(name)
        self._clean.pop(name, None)
        self.wake.unpark(name)
        parked = self._parked.get(name)
        if parked is not None:
            for flavor in group[1]:
                if group[0] < parked.get(flavor, 1 << 30):
                    parked[flavor] = group[0]

    def _unqueue(self, workload: _Workload) -> None:
        name, key = workload.queue, workload.key
        self.pending[name].remove(key)
        group = self._group_of[workload.index]
        keys = self.groups[name][group]
        keys.remove(key)
        if not len(keys):
            del self.groups[name][group]  # (a cycle looks at every group of its queue)
        self._clean.pop(name, None)

    def _still_clean(self, name: str) -> bool:
        """Whether queue ``name`` still has no head without looking at its workloads."""
        if self._scans[name]:
            return self._clean.get(name) == self.version
        parked = self._parked.get(name)
        if parked is None:
            return False
        node = self.tree.cluster_queues[name]
        for flavor, gpus in parked.items():  # noqa: SIM110 (compiled: no generator)
            if gpus <= node.available(flavor):
                return False
        return True

    def _sleep(self, name: str) -> None:
        """Parks a queue without a head in the wake index (when it needs no scan)."""
        parked = self._parked.get(name)
        if parked is not None and not self._scans[name]:
            self.wake.park(name, parked)

    def _park(self, name: str) -> None:
        """Notes, for a queue without a head, the fewest GPUs it waits for per flavor."""
        need: dict[str, int] = {}
        for (gpus, flavors), keys in self.groups[name].items():
            if len(keys):
                for flavor in flavors:
                    if gpus < need.get(flavor, 1 << 30):
                        need[flavor] = gpus
        self._parked[name] = need

    def _must_scan(self, queue: ClusterQueue) -> bool:
        """Whether a BestEffortFIFO head needs Kueue's full flavor assignment per workload
        (preemption may admit a workload that does not fit), or its order changes with its
        LocalQueues' usage (admission fair sharing)."""
        p = queue.preemption
        return (
            p.within_cluster_queue != "Never"
            or p.reclaim_within_cohort != "Never"
            or queue.name in self._afs_queues
        )

    def release(self, index: int, now_s: float) -> None:
        """Frees the quota of a workload that finished (or is evicted) at ``now_s``."""
        workload = self.admitted_by_index.pop(index)
        if self.afs is not None and workload.node.name in self._afs_queues:
            self.afs.release(self._local_queue[index], workload.gpus, now_s)
        del self.admitted[workload.node][index]
        workload.node.remove_usage(workload.flavor, workload.gpus)
        self.touched.add(workload.node.name)
        self.workloads.pop(index, None)
        self.version += 1
        self._released = True

    def schedule(self, now_s: float, free_gpus: dict[str, int]) -> CycleResult:
        """Runs cycles at ``now_s`` until one changes nothing; ``free_gpus`` (worker type ->
        free GPUs) is updated by what it admits and evicts."""
        result = CycleResult()
        if self.afs is not None and self.afs.sample_all(now_s):
            self.version += 1  # LocalQueue usage moved: heads may change
        # the queues the next cycle must look at (None: all): without preemption anywhere and
        # no release since the last call, only those that gained workloads (free GPUs and room
        # only come from releases)
        only = None if self._any_scan or self._released else set(self._submitted)
        self._released = False
        self._submitted.clear()
        for _ in range(1 + 4 * len(self.workloads)):  # each change admits or evicts a workload
            evicted = len(result.evicted)
            admitted = self._cycle(now_s, free_gpus, result, only)
            if not admitted:
                break
            # without preemption anywhere, a cycle that only admitted changes nothing for a
            # queue whose head was parked or waited for GPUs (admissions only take room): only
            # the queues that admitted, or whose head no longer fit, need a new head
            only = None if self._any_scan or len(result.evicted) > evicted else admitted
        self._released = False  # (its own evictions were looked at by its own cycles)
        self._submitted.clear()
        result.blocked = dict(self.blocked)
        return result

    def _cycle(
        self, now_s: float, free: dict[str, int], result: CycleResult, only: set[str] | None
    ) -> set[str]:
        """One scheduling cycle; returns the queues that admitted or evicted and those whose
        head no longer fit after them (empty: no change)."""
        entries: list[tuple[tuple[int, int, float, int], _Workload, Assignment]] = []
        changed: set[str] = set()
        if only is None:
            self.blocked = {}
            self.wake.woken()
        asleep = self.wake.parked
        for name, keys in self.pending.items():
            if only is None:
                if name in asleep:
                    continue  # (marked "quota" below)
            elif name not in only:
                continue
            self.blocked.pop(name, None)
            if not len(keys) or self._still_clean(name):
                if len(keys):
                    self.blocked[name] = "quota"
                    self._sleep(name)
                continue
            head = self._head(name, keys)
            if head is None:
                self._clean[name] = self.version
                self.blocked[name] = "quota"
                self._sleep(name)
                continue
            workload, assignment = head
            order = (assignment.borrow, -workload.priority, workload.order_s, workload.index)
            entries.append((order, workload, assignment))
        reserved: list[tuple[QuotaNode, str, int]] = []
        retry: set[str] = set()
        taken: set[int] = set()
        for workload, assignment in self._in_order(entries):
            node = self.tree.cluster_queues[workload.queue]
            flavor, gpus = assignment.flavor, workload.gpus
            if assignment.mode == FIT:
                if gpus > max(0, node.available(flavor)):
                    self.blocked[workload.queue] = "quota"
                    retry.add(workload.queue)  # its head may be another job at the next cycle
                    continue
                worker_type = self.worker_type(flavor)
                if free.get(worker_type, 0) < gpus:
                    self.blocked[workload.queue] = "placement"
                    continue
                self._admit(workload, node, flavor, now_s)
                free[worker_type] -= gpus
                result.admitted.append((workload.index, worker_type))
                changed.add(workload.queue)
            elif not any(t.workload.index in taken for t in assignment.targets):
                if not self._fits_without(node, flavor, gpus, assignment.targets):
                    self.blocked[workload.queue] = "quota"
                    continue
                for target in assignment.targets:
                    self._evict(target, workload.index, now_s, free, result)
                    taken.add(target.workload.index)
                node.add_usage(flavor, gpus)
                reserved.append((node, flavor, gpus))
                self.blocked[workload.queue] = "quota"
                changed.add(workload.queue)
        for node, flavor, gpus in reserved:
            node.remove_usage(flavor, gpus)
        for name in list(retry):
            if self._still_clean(name):  # (what the next cycle would find)
                retry.discard(name)
                self._sleep(name)
        # a queue left unmarked: asleep, given a workload by an eviction, or its head admitted
        # (a cycle over some queues runs without preemption: only those it looked at)
        for name in self.pending if only is None else only:
            if len(self.pending[name]) and name not in self.blocked:
                self.blocked[name] = "quota"
        return changed | retry if changed else changed

    def _in_order(
        self, entries: list[tuple[tuple[int, int, float, int], _Workload, Assignment]]
    ) -> Iterator[tuple[_Workload, Assignment]]:
        """The cycle's entries in Kueue's order: classical (no borrowing first, priority,
        arrival), or under fair sharing the tournament, re-run after each admission."""
        if not self.fair.enabled:
            if len(entries) > 1:
                entries.sort(key=_entry_order)
            elif not entries:
                return iter(())
            return iter([(workload, assignment) for _, workload, assignment in entries])
        return self._tournament(entries)

    def _tournament(
        self, entries: list[tuple[tuple[int, int, float, int], _Workload, Assignment]]
    ) -> Iterator[tuple[_Workload, Assignment]]:
        left = list(entries)
        while left:
            best = min(range(len(left)), key=lambda i: self._fair_key(left[i]))
            _, workload, assignment = left.pop(best)
            yield workload, assignment

    def _fair_key(
        self, entry: tuple[tuple[int, int, float, int], _Workload, Assignment]
    ) -> tuple[str, list[tuple[bool, Share]], int, float, int]:
        _, workload, assignment = entry
        node = self.tree.cluster_queues[workload.queue]
        levels = tournament_key(node, assignment.flavor, workload.gpus, self.weights)
        return (node.root().name, levels, -workload.priority, workload.order_s, workload.index)

    def _head(self, name: str, keys: SortedKeys) -> tuple[_Workload, Assignment] | None:
        strict = self.queues[name].queueing_strategy == "StrictFIFO"
        if not strict and not self._scans[name]:
            key = self._first_fitting(name)
            if key is None:
                self._park(name)
                return None
            workload = self.workloads[key[3]]
            return workload, self._fit(workload)
        for key in self._in_queue_order(name, keys):
            workload = self.workloads[key[3]]
            assignment = self.assign(workload)
            if strict or assignment.mode not in (NO_FIT, NO_CANDIDATES):
                if assignment.mode in (NO_FIT, NO_CANDIDATES):
                    return None
                return workload, assignment
        return None

    def _in_queue_order(self, name: str, keys: SortedKeys) -> list[OrderKey]:
        """The queue's pending keys in Kueue's order: under admission fair sharing, lower
        LocalQueue usage first (``queueOrderingFunc``), then the key."""
        if self.afs is None or name not in self._afs_queues:
            return keys.in_order()
        usage = self.afs.usage
        local_queue = self._local_queue
        return sorted(keys.in_order(), key=lambda key: (usage(local_queue[key[3]]), key))

    def _fit(self, workload: _Workload) -> Assignment:
        """:meth:`assign` for a workload known to fit some flavor without preemption: the
        first flavor that fits, or under ``whenCanBorrow:
        TryNextFlavor`` the one that borrows least (Kueue's ``isPreferred`` among Fit modes)."""
        queue = self.queues[workload.queue]
        node = self.tree.cluster_queues[workload.queue]
        gpus = workload.gpus
        best = Assignment()
        for flavor in self._group_of[workload.index][1]:
            if gpus > node.available(flavor):
                continue
            borrow = node.borrowing_level(flavor, gpus)
            if borrow == 0 or queue.when_can_borrow != "TryNextFlavor":
                return Assignment(FIT, borrow, flavor)
            if best.mode != FIT or borrow < best.borrow:
                best = Assignment(FIT, borrow, flavor)
        return best

    def _first_fitting(self, name: str) -> OrderKey | None:
        """The first pending key of ``name`` whose GPUs fit some flavor it runs on."""
        node = self.tree.cluster_queues[name]
        room = {flavor: node.available(flavor) for flavor in self._flavors[name]}
        best: OrderKey | None = None
        for (gpus, flavors), keys in self.groups[name].items():
            first = keys.first()
            if best is not None and first >= best:
                continue
            for flavor in flavors:
                if gpus <= room[flavor]:
                    best = first
                    break
        return best

    def assign(self, workload: _Workload) -> Assignment:
        """Kueue's flavor assignment for one pending workload (``findFlavorForPodSetResource``
        with ``fitsResourceQuota``)."""
        queue = self.queues[workload.queue]
        node = self.tree.cluster_queues[workload.queue]
        best = Assignment()
        gpus = workload.gpus
        for quota in queue.flavors:
            flavor = quota.flavor
            if not self.runs_on(workload.index, self.worker_type(flavor)):
                continue
            current = self._try_flavor(workload, queue, node, flavor, gpus)
            if not _try_next(current, queue):
                return current
            if _preferred(current, best):
                best = current
        return best

    def _try_flavor(
        self, workload: _Workload, queue: ClusterQueue, node: QuotaNode, flavor: str, gpus: int
    ) -> Assignment:
        if gpus > node.potential_available(flavor):
            return Assignment(NO_FIT, 1 << 30, flavor)
        borrow = node.borrowing_level(flavor, gpus)
        if gpus <= max(0, node.available(flavor)):
            return Assignment(FIT, borrow, flavor)
        may_reclaim = node.parent is not None and not _fits_at_root(node, flavor, gpus)
        policy = queue.preemption
        while_borrowing = policy.borrow_within_cohort != "Never" or (
            self.fair.enabled and policy.reclaim_within_cohort != "Never"
        )
        if node.nominal(flavor) >= gpus or may_reclaim or while_borrowing:
            preemptor = Preemptor(
                node, queue, flavor, gpus, workload.priority, workload.order_s, workload.index,
                self._admitted_usage(),
            )  # fmt: skip
            if self.fair.enabled:
                targets = fair_targets(
                    preemptor, self.admitted, self.weights, self.fair.preemption_strategies
                )
            else:
                targets = find_targets(preemptor, self.admitted)
            if not targets:
                return Assignment(NO_CANDIDATES, borrow, flavor)
            own = all(t.workload.node is node for t in targets)
            return Assignment(PREEMPT if own else RECLAIM, borrow, flavor, targets)
        return Assignment(NO_FIT, borrow, flavor)

    def _admitted_usage(self) -> dict[int, tuple[str, float]] | None:
        """Job index -> (LocalQueue, its usage) of each admitted workload of a ClusterQueue
        with admission fair sharing (None when it is off)."""
        if self.afs is None:
            return None
        usage: dict[int, tuple[str, float]] = {}
        for name in self._afs_queues:
            for index in self.admitted[self.tree.cluster_queues[name]]:
                local_queue = self._local_queue[index]
                usage[index] = (local_queue, self.afs.usage(local_queue))
        return usage

    def _fits_without(self, node: QuotaNode, flavor: str, gpus: int, targets: list[Target]) -> bool:
        for target in targets:
            target.workload.node.remove_usage(target.workload.flavor, target.workload.gpus)
        fits = gpus <= max(0, node.available(flavor))
        for target in targets:
            target.workload.node.add_usage(target.workload.flavor, target.workload.gpus)
        return fits

    def _admit(self, workload: _Workload, node: QuotaNode, flavor: str, now_s: float) -> None:
        self._unqueue(workload)
        admitted = Admitted(
            workload.index, node, flavor, workload.gpus, workload.priority, workload.order_s,
            now_s,
        )  # fmt: skip
        node.add_usage(flavor, workload.gpus)
        if self.afs is not None and node.name in self._afs_queues:
            self.afs.admit(self._local_queue[workload.index], workload.gpus, now_s)
        self.touched.add(node.name)
        self.admitted[node][workload.index] = admitted
        self.admitted_by_index[workload.index] = admitted
        self.version += 1

    def _evict(
        self, target: Target, preemptor: int, now_s: float, free: dict[str, int],
        result: CycleResult,
    ) -> None:  # fmt: skip
        victim = target.workload
        workload = self.workloads[victim.index]
        self.release(victim.index, now_s)
        self.workloads[victim.index] = workload
        free[self.worker_type(victim.flavor)] = (
            free.get(self.worker_type(victim.flavor), 0) + victim.gpus
        )
        workload.key = self.key_of(victim.index)  # re-keyed: it ran since it queued
        workload.order_s = workload.key[2]
        self._queue(workload)
        result.evicted.append((victim.index, target.reason, preemptor))


def _entry_order(
    entry: tuple[tuple[int, int, float, int], _Workload, Assignment],
) -> tuple[int, int, float, int]:
    return entry[0]


def _fits_at_root(node: QuotaNode, flavor: str, gpus: int) -> bool:
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


def _try_next(assignment: Assignment, queue: ClusterQueue) -> bool:
    """Kueue's ``shouldTryNextFlavor``."""
    if assignment.mode in (NO_FIT, NO_CANDIDATES):
        return True
    if assignment.mode in (PREEMPT, RECLAIM) and queue.when_can_preempt == "TryNextFlavor":
        return True
    return assignment.borrow > 0 and queue.when_can_borrow == "TryNextFlavor"


def _preferred(a: Assignment, b: Assignment) -> bool:
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

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
from engine.quota.assignment import (
    FIT,
    NO_CANDIDATES,
    NO_FIT,
    PREEMPT,
    RECLAIM,
    Assignment,
    fits_at_root,
    preferred,
    try_next,
)
from engine.quota.fair_sharing import Share, fair_targets, tournament_key
from engine.quota.model import ClusterQueue, QueueConfig
from engine.quota.pending import OrderKey
from engine.quota.preemption import Admitted, Preemptor, Target, find_targets
from engine.quota.queue_state import QueueState, Workload
from engine.quota.tree import QuotaNode, QuotaTree
from engine.quota.wake import WakeIndex

Entry = tuple[tuple[int, int, float, int], Workload, Assignment]
"""A cycle's entry: (no borrowing first, -priority, arrival s, job index), head, assignment."""


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


class QuotaScheduler:
    """Kueue's queues and admission over a :class:`QuotaTree`.

    Args:
        config: the checked queue configuration.
        runs_on: ``runs_on(job index, worker type)``: whether the job has a throughput there.
        key_of: ``key_of(job index)``: the job's :data:`OrderKey` in its queue now.

    Attributes:
        states: one :class:`QueueState` per ClusterQueue, in config order.
        state_of: ClusterQueue name -> its state.
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
        self.flavor_types = config.flavor_types()
        self.runs_on = runs_on
        self.key_of = key_of
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
        self.states = [
            QueueState(pos, cq, self.tree.cluster_queues[cq.name], self._must_scan(cq))
            for pos, cq in enumerate(config.cluster_queues)
        ]
        self.state_of = {state.name: state for state in self.states}
        self._any_scan = any(state.scans for state in self.states)
        self._released = True  # a release since the last schedule (the first looks at all)
        self._submitted: set[int] = set()  # queues (numbers) that gained a workload since then
        self.workloads: dict[int, Workload] = {}
        self.admitted: dict[QuotaNode, dict[int, Admitted]] = {
            node: {} for node in self.tree.cluster_queues.values()
        }
        self.admitted_by_index: dict[int, Admitted] = {}
        self.touched: set[str] = set()  # queues whose usage changed since the caller cleared it
        self.version = 0  # bumped at every change of usage
        # the parked queues known to have no head until their root frees quota: not looked
        # at by a cycle over all queues until the index wakes them (:mod:`engine.quota.wake`)
        self.wake = WakeIndex(self.tree)

    def worker_type(self, flavor: str) -> str:
        """The worker type a flavor stands for."""
        return self.flavor_types.get(flavor, flavor)

    def submit(
        self, index: int, queue: str, gpus: int, priority: int, key: OrderKey,
        local_queue: str = "",
    ) -> None:  # fmt: skip
        """Queues a pending workload (a job that arrived, or an evicted one, again) of
        ClusterQueue ``queue``, from ``local_queue`` (default: the ClusterQueue's name)."""
        workload = Workload(index, self.state_of[queue], gpus, priority, key)
        self.workloads[index] = workload
        self._local_queue[index] = local_queue or queue
        self._queue(workload)

    def _queue(self, workload: Workload) -> None:
        state = workload.queue
        group = workload.group
        if group is None:
            runs = tuple([flavor for flavor in state.flavors
                          if self.runs_on(workload.index, self.worker_type(flavor))])  # fmt: skip
            group = workload.group = state.group(workload.gpus, runs)
        state.add(workload, group)
        self._submitted.add(state.pos)
        self.wake.unpark(state.name)

    def _sleep(self, state: QueueState) -> None:
        """Parks a queue without a head in the wake index (when it needs no scan)."""
        if state.parked is not None and not state.scans:
            self.wake.park(state.name, state.parked)

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
        blocked = result.blocked
        for state in self.states:
            if state.blocked:
                blocked[state.name] = state.blocked
        return result

    def _visit(self, only: set[int] | None) -> list[QueueState]:
        """The queues a cycle looks at: ``only`` (numbers), or all that are not asleep (their
        marks cleared, and the wake index asked first)."""
        if only is not None:
            return [self.states[pos] for pos in only]
        self.wake.woken()
        asleep = self.wake.parked
        visit = []
        for state in self.states:
            state.blocked = ""
            if state.name not in asleep:
                visit.append(state)
        return visit

    def _entries(self, visit: list[QueueState]) -> list[Entry]:
        """Each visited queue's head and its flavor; a queue without one is marked."""
        entries: list[Entry] = []
        for state in visit:
            state.blocked = ""
            if not len(state.pending):
                continue
            head = None if state.still_clean(self.version) else self._head(state)
            if head is None:
                state.clean_at = self.version
                state.blocked = "quota"
                self._sleep(state)
                continue
            workload, assignment = head
            order = (assignment.borrow, -workload.priority, workload.order_s, workload.index)
            entries.append((order, workload, assignment))
        return entries

    def _cycle(
        self, now_s: float, free: dict[str, int], result: CycleResult, only: set[int] | None
    ) -> set[int]:
        """One scheduling cycle; returns the queues (numbers) that admitted or evicted and
        those whose head no longer fit after them (empty: no change)."""
        visit = self._visit(only)
        entries = self._entries(visit)
        reserved: list[tuple[QuotaNode, str, int]] = []
        retry: list[QueueState] = []
        taken: set[int] = set()
        changed: set[int] = set()
        for workload, assignment in self._in_order(entries):
            state = workload.queue
            node = state.node
            flavor, gpus = assignment.flavor, workload.gpus
            if assignment.mode == FIT:
                if gpus > max(0, node.available(flavor)):
                    state.blocked = "quota"
                    retry.append(state)  # its head may be another job at the next cycle
                    continue
                worker_type = self.worker_type(flavor)
                if free.get(worker_type, 0) < gpus:
                    state.blocked = "placement"
                    continue
                self._admit(workload, node, flavor, now_s)
                free[worker_type] -= gpus
                result.admitted.append((workload.index, worker_type))
                changed.add(state.pos)
            elif not any(t.workload.index in taken for t in assignment.targets):
                if not self._fits_without(node, flavor, gpus, assignment.targets):
                    state.blocked = "quota"
                    continue
                for target in assignment.targets:
                    self._evict(target, workload.index, now_s, free, result)
                    taken.add(target.workload.index)
                node.add_usage(flavor, gpus)
                reserved.append((node, flavor, gpus))
                state.blocked = "quota"
                changed.add(state.pos)
        for node, flavor, gpus in reserved:
            node.remove_usage(flavor, gpus)
        for state in retry:
            if state.still_clean(self.version):  # (what the next cycle would find)
                self._sleep(state)
            elif changed:
                changed.add(state.pos)
        # a queue left unmarked: asleep, given a workload by an eviction, or its head admitted
        # (a cycle over some queues runs without preemption: only those it looked at)
        for state in self.states if only is None else visit:
            if not state.blocked and len(state.pending):
                state.blocked = "quota"
        return changed

    def _in_order(self, entries: list[Entry]) -> Iterator[tuple[Workload, Assignment]]:
        """The cycle's entries in Kueue's order: classical (no borrowing first, priority,
        arrival), or under fair sharing the tournament, re-run after each admission."""
        if not self.fair.enabled:
            if len(entries) > 1:
                entries.sort(key=_entry_order)
            elif not entries:
                return iter(())
            return iter([(workload, assignment) for _, workload, assignment in entries])
        return self._tournament(entries)

    def _tournament(self, entries: list[Entry]) -> Iterator[tuple[Workload, Assignment]]:
        left = list(entries)
        while left:
            best = min(range(len(left)), key=lambda i: self._fair_key(left[i]))
            _, workload, assignment = left.pop(best)
            yield workload, assignment

    def _fair_key(self, entry: Entry) -> tuple[str, list[tuple[bool, Share]], int, float, int]:
        _, workload, assignment = entry
        node = workload.queue.node
        levels = tournament_key(node, assignment.flavor, workload.gpus, self.weights)
        return (node.root().name, levels, -workload.priority, workload.order_s, workload.index)

    def _head(self, state: QueueState) -> tuple[Workload, Assignment] | None:
        if not state.strict and not state.scans:
            group = state.first_fitting()
            if group is None:
                state.park()
                return None
            return self.workloads[group.keys.first()[3]], state.fit(group)
        for key in self._in_queue_order(state):
            workload = self.workloads[key[3]]
            assignment = self.assign(workload)
            if state.strict or assignment.mode not in (NO_FIT, NO_CANDIDATES):
                if assignment.mode in (NO_FIT, NO_CANDIDATES):
                    return None
                return workload, assignment
        return None

    def _in_queue_order(self, state: QueueState) -> list[OrderKey]:
        """The queue's pending keys in Kueue's order: under admission fair sharing, lower
        LocalQueue usage first (``queueOrderingFunc``), then the key."""
        if self.afs is None or state.name not in self._afs_queues:
            return state.pending.in_order()
        usage = self.afs.usage
        local_queue = self._local_queue
        return sorted(state.pending.in_order(), key=lambda key: (usage(local_queue[key[3]]), key))

    def assign(self, workload: Workload) -> Assignment:
        """Kueue's flavor assignment for one pending workload (``findFlavorForPodSetResource``
        with ``fitsResourceQuota``)."""
        queue = workload.queue.config
        node = workload.queue.node
        best = Assignment()
        gpus = workload.gpus
        for quota in queue.flavors:
            flavor = quota.flavor
            if not self.runs_on(workload.index, self.worker_type(flavor)):
                continue
            current = self._try_flavor(workload, queue, node, flavor, gpus)
            if not try_next(current, queue):
                return current
            if preferred(current, best):
                best = current
        return best

    def _try_flavor(
        self, workload: Workload, queue: ClusterQueue, node: QuotaNode, flavor: str, gpus: int
    ) -> Assignment:
        if gpus > node.potential_available(flavor):
            return Assignment(NO_FIT, 1 << 30, flavor)
        borrow = node.borrowing_level(flavor, gpus)
        if gpus <= max(0, node.available(flavor)):
            return Assignment(FIT, borrow, flavor)
        may_reclaim = node.parent is not None and not fits_at_root(node, flavor, gpus)
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

    def _admit(self, workload: Workload, node: QuotaNode, flavor: str, now_s: float) -> None:
        group = workload.group
        assert group is not None  # (queued workloads have their group)
        workload.queue.remove(workload, group)
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


def _entry_order(entry: Entry) -> tuple[int, int, float, int]:
    return entry[0]

"""The engine's event loop: owns the clock, the event queue, the rng and the state.

Events are job arrivals, job completions, round boundaries (when the policy re-decides each round,
or admission waits for them), congestion changes and, when the scenario turns failures on, node
failures and returns (:mod:`engine.faults`; off, they cost one comparison per event). Between
events every running job progresses at a constant rate, so the loop jumps from event to event.
At each event time the engine asks the policy for an allocation, validates it, preempts and
places (see :mod:`engine.policies.base`).
Completions sit in a heap with lazy invalidation (:mod:`engine.completions`). The waiting jobs
sit in an ``OrderedDict``, not a dict: jobs leave a long queue from its front, and a dict keeps
a hole for each until it is rebuilt (``dict(d)`` copies the holes while they are under a third
of its entries), so every decision that reads the queue from its front walked them. On 1,000,000
jobs on 25,600 GPUs (``benchmarks/bench_scale.py``) that walk was half of FIFO's time
and grew with the queue; an ``OrderedDict``'s order is a linked list, with no holes (issue 37).

Under ``RoundConfig.relaunch_on_event`` (Muri's testbed, :mod:`engine.presets`) a round boundary
that has an event relaunches every running job: each pauses for the checkpoint-restore time, as
does every start, the first included.

Runs start from :func:`engine.simulator.simulate`, which picks this loop or Gavel's round loop
of leases (:mod:`engine.lease_rounds`, a subclass of :class:`Simulation`).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from time import perf_counter

import numpy as np
import pandas as pd

from engine.allocation.grants import Decision, keeps_grant
from engine.allocation.validation import validate_allocation
from engine.cluster import ClusterState, Placement
from engine.completions import CompletionHeap
from engine.config import PolicySpec, ScenarioConfig
from engine.decision_log import DecisionLog
from engine.errors import AllocationError, EngineError, SimulationCancelled
from engine.fault_handling import FaultHandling
from engine.jobs import job_states
from engine.placement import get_placement
from engine.policies.base import (
    Allocation,
    Grant,
    PolicyContext,
    SchedulerState,
    build_params,
    display_name,
    get_policy,
)
from engine.quota.gate import quota_policy
from engine.recorder import Recorder
from engine.result_assembly import simulation_result
from engine.results import SimulationResult
from engine.sharing import SharingConfig, check_policy_sharing
from engine.state import JobState
from engine.step_time.network import change_times
from engine.step_time.rates import JobRates
from engine.step_time.throughput import ThroughputMatrix
from engine.step_time.topology import LinkLoad, Topology

ProgressFn = Callable[[float], None]
CancelFn = Callable[[], bool]
CHECK_EVERY = 2000  # loop iterations between progress reports / cancel checks (both loops)
_BARE = Decision({})  # what a bare allocation means: no wake-up, no job held back


def changed_entries(
    allocation: Allocation, jobs: list[JobState], stamp: int
) -> list[tuple[int, Grant]]:
    """The entries the engine acts on: (job index, grant) of every grant that is not the job's
    current one (every grant of a job that is not running), in the allocation's order. Each job
    whose entry keeps its grant is marked ``kept_stamp = stamp``, so the preemption scan finds
    the running jobs without their grant by that mark, not by a lookup in the allocation. A
    member of a shared group keeps its grant only when its host (earlier in the allocation)
    keeps its own (:mod:`engine.sharing`)."""
    changed: list[tuple[int, Grant]] = []
    for index, grant in allocation.items():
        job = jobs[index]
        if keeps_grant(grant, job.grant) and (
            grant.host < 0 or jobs[grant.host].kept_stamp == stamp
        ):
            job.kept_stamp = stamp
        else:
            changed.append((index, grant))
    return changed


class Simulation:
    """One run of one policy in the event loop; use :func:`engine.simulator.simulate`."""

    def __init__(
        self,
        jobs: pd.DataFrame,
        config: ScenarioConfig,
        spec: PolicySpec,
        matrix: ThroughputMatrix,
        stage_rows: pd.DataFrame | None = None,
        trace_file: str = "",
    ) -> None:
        self.config = config
        self.spec = spec
        self.policy_name = display_name(spec)  # the policy as results and messages call it
        self.matrix = matrix
        cls = get_policy(spec.name)
        rng = np.random.default_rng(config.seed)
        check_policy_sharing(self.policy_name, cls.shares_gpus, spec.params)
        context = PolicyContext(
            config.cluster, config.rounds, rng, config.network, matrix, config.placement,
            config.sharing or SharingConfig(), stage_rows, trace_file,
        )  # fmt: skip
        self.layout = context.layout  # the run's one node numbering
        self.cluster = ClusterState(self.layout, get_placement(config.placement))
        self.policy = cls(build_params(cls, spec.params), context)
        if config.queues is not None:  # teams' quotas (engine.quota): Kueue admits, in order
            self.policy = quota_policy(self.policy, config.queues, jobs, context)
        switch_cost_s = self.policy.switch_cost_s
        self.restore_s = (
            config.rounds.checkpoint_restore_s if switch_cost_s is None else switch_cost_s
        )
        self.jobs = job_states(jobs, matrix, self.cluster.capacity, config.network)
        self.topology = Topology(self.layout, config.network)
        self.links = LinkLoad(self.topology)
        self.waiting: OrderedDict[int, JobState] = OrderedDict()  # arrival, then requeue order
        self.running: dict[int, JobState] = {}
        self.guests: dict[int, list[int]] = {}  # shared groups: host index -> members on its GPUs
        self.grouped: set[int] = set()  # jobs whose GPUs another job shares until they leave
        self.completions = CompletionHeap(self.jobs)
        self.recorder = Recorder(self.cluster.capacity)
        self.log: DecisionLog | None = None
        self.congestion_times = [t for t in change_times(config.network) if t > 0]
        self.round_s = config.rounds.round_duration_s
        self.intra_node_gbps = config.network.intra_node_gbps
        self.ticks = self.policy.uses_rounds or not config.rounds.admit_mid_round
        # the policy's class flags, read once (the event loop reads them at every event)
        self.admit_mid_round = config.rounds.admit_mid_round
        self.relaunch = config.rounds.relaunch_on_event
        self.event_in_round = False  # relaunch: an arrival or completion since the last tick
        self.preemptive = self.policy.preemptive
        self.full_on_events = not self.policy.uses_rounds or self.policy.replans_on_events
        self.sync_on_full = self.policy.preemptive and self.policy.needs_sync
        self.now_s = 0.0
        self.next_tick_s = math.inf
        self.next_arrival = 0
        self.arrivals_s = [job.arrival_s for job in self.jobs]
        self.arrived_from = 0  # jobs[arrived_from:next_arrival] arrived since the last decision
        self.area = 0.0
        self.area_at_end = np.zeros(len(self.jobs))
        self.rates = JobRates(matrix, config.network, self.round_s, self.policy)
        self.num_decisions = 0
        self.decision_time_s = 0.0
        self.wake_at_s = math.inf  # the policy's last Decision, until its next one
        self.held_back: frozenset[int] = frozenset()
        self._recorded_changes = -1  # cluster.changes at the last utilization record
        # node failures (engine.fault_handling), off unless the scenario turns them on: the
        # failure process, its next event's time, and the jobs failures stopped since the last
        # decision
        self.faults: FaultHandling | None = None
        self.next_fault_s = math.inf
        self.stopped: list[JobState] = []
        self.completed: list[JobState] = []  # since the policy's last decision
        if config.failures.enabled:
            faults = FaultHandling(config, self.layout, self.cluster, self.jobs, self.restore_s)
            self.faults, self.next_fault_s = faults, faults.model.next_s

    def run(
        self, on_progress: ProgressFn | None, should_cancel: CancelFn | None
    ) -> SimulationResult:
        done = 0
        iteration = 0
        cluster, arrivals_s = self.cluster, self.arrivals_s
        while (t := self._next_event_time()) != math.inf:
            self._advance(t)
            completed = self._complete_jobs()
            arrived = self.next_arrival < len(arrivals_s) and arrivals_s[self.next_arrival] <= t
            if arrived:
                self._admit_arrivals()
            if self.congestion_times:
                self._apply_congestion()
            faulted = self.next_fault_s <= t and self._apply_faults()
            woke = self.wake_at_s <= t
            if woke:
                self.wake_at_s = math.inf
            self._decide(changed=arrived or completed > 0 or woke or faulted)
            if self.log:  # after every event, so a job's reason is known from its arrival
                self.log.waiting(
                    t, self.waiting.values(), cluster.free_gpus, self.held_back,
                    self.num_decisions,
                )  # fmt: skip
            if cluster.changes != self._recorded_changes:  # else the same busy GPUs as before
                self._recorded_changes = cluster.changes
                self.recorder.utilization(t, cluster.free_gpus)
            done += completed
            iteration += 1
            if iteration % CHECK_EVERY == 0:
                if should_cancel and should_cancel():
                    raise SimulationCancelled(f"{self.policy_name}: cancelled")
                if on_progress:
                    on_progress(done / max(1, len(self.jobs)))
        return self._result()

    def _next_event_time(self) -> float:
        """The earliest of the next round tick, completion, arrival, congestion change, the
        policy's wake-up and failure event."""
        t = self.next_tick_s
        completion_s = self.completions.next_s()
        if completion_s < t:
            t = completion_s
        if self.next_arrival < len(self.arrivals_s) and self.arrivals_s[self.next_arrival] < t:
            t = self.arrivals_s[self.next_arrival]
        if self.congestion_times and (self.running or self.waiting):
            t = min(t, self.congestion_times[0])
        if self.now_s < self.wake_at_s < t and self.waiting:
            t = self.wake_at_s
        if self.next_fault_s < t and (
            self.running or self.waiting or self.next_arrival < len(self.arrivals_s)
        ):  # failures matter while jobs are left (never with failures off: next_fault_s = inf)
            t = self.next_fault_s
        return t

    def _advance(self, t: float) -> None:
        self.area += (len(self.waiting) + len(self.running)) * (t - self.now_s)
        if self.held_back:
            for index in self.held_back:
                if index in self.waiting:
                    self.jobs[index].consolidation_wait_s += t - self.now_s
        self.now_s = t

    def _complete_jobs(self) -> int:
        count = 0
        while (job := self.completions.pop_due(self.now_s)) is not None:
            self._complete(job)
            count += 1
        return count

    def _complete(self, job: JobState) -> None:
        job.sync(self.now_s)
        job.steps_done = job.total_steps
        job.completion_s = self.now_s
        self.area_at_end[job.index] = self.area
        self._release(job, "completed")
        del self.running[job.index]
        self.completed.append(job)
        if self.log:
            self.log.event(self.now_s, job, "completed", "", self.num_decisions)

    def _admit_arrivals(self) -> bool:
        start = self.next_arrival
        while (
            self.next_arrival < len(self.jobs)
            and self.jobs[self.next_arrival].arrival_s <= self.now_s
        ):
            job = self.jobs[self.next_arrival]
            job.area_at_arrival = self.area
            self.waiting[job.index] = job
            if self.log:
                self.log.event(self.now_s, job, "arrived", "", self.num_decisions)
            self.next_arrival += 1
        if self.next_arrival > start and self.ticks and self.next_tick_s == math.inf:
            self.next_tick_s = math.ceil(self.now_s / self.round_s) * self.round_s
        return self.next_arrival > start

    def _apply_congestion(self) -> None:
        if not self.congestion_times or self.congestion_times[0] > self.now_s:
            return
        while self.congestion_times and self.congestion_times[0] <= self.now_s:
            self.congestion_times.pop(0)
        for job in self.running.values():
            if job.placement is not None and len(job.placement.nodes) > 1:
                job.sync(self.now_s)
                self._set_rate(job, job.placement, self.links.bandwidth_gbps(job.index, self.now_s))

    def _decide(self, changed: bool) -> None:
        """The policy's decision, when one is due; under ``relaunch`` a round boundary with an
        event (one since the last boundary, or a change of GPUs at this one) then relaunches
        every running job (:meth:`_relaunch_running`)."""
        if not self.relaunch:
            self._decide_now(changed)
            return
        tick = self.now_s >= self.next_tick_s
        self.event_in_round = self.event_in_round or changed
        before = self.cluster.changes
        self._decide_now(changed)
        if tick:
            if self.event_in_round or self.cluster.changes != before:
                self._relaunch_running()
            self.event_in_round = False

    def _relaunch_running(self) -> None:
        """Every running job not (re)started at this instant restarts where it runs: its progress
        pauses for the restore time from now (its completion is filed again)."""
        now_s, restore_s = self.now_s, self.restore_s
        for job in self.running.values():
            placement = job.placement
            if placement is None or job.segment_start_s == now_s or job.last_step_s is not None:
                continue
            job.sync(now_s)
            self._close_segment(job, placement, "relaunched")
            job.segment_start_s = now_s
            job.restore_until_s = now_s + restore_s
            self._set_rate(job, placement, job.bandwidth_gbps)

    def _decide_now(self, changed: bool) -> None:
        tick = self.now_s >= self.next_tick_s
        if tick:
            self.next_tick_s = (
                self.now_s + self.round_s if (self.waiting or self.running) else math.inf
            )
            if self.next_tick_s == math.inf:
                return
        elif not (changed and self.admit_mid_round):
            return
        full = tick or self.full_on_events
        preemptive = self.preemptive
        if (not full or not preemptive) and not (self.waiting and self.cluster.any_free()):
            return  # nothing could start and nothing may be preempted
        allocation, entries = self._ask_policy(sync_running=full and self.sync_on_full)
        if full and preemptive and len(allocation) - len(entries) < len(self.running):
            self._preempt_ungranted(allocation)  # (else every running job keeps its grant)
        if preemptive:  # the other entries are running jobs, which _start_all skips
            if entries:
                self._start_entries(entries, strict=full)
        elif allocation:
            self._start_all(allocation, strict=True)
        if full:
            self._check_progress_possible()

    def _ask_policy(self, sync_running: bool) -> tuple[Allocation, list[tuple[int, Grant]]]:
        """The policy's allocation, validated, and its changed entries (:func:`changed_entries`;
        the running jobs that keep their grants are marked with this decision's count)."""
        if sync_running:
            for job in self.running.values():
                job.sync(self.now_s)
        cluster = self.cluster
        stopped: tuple[JobState, ...] = ()
        if self.stopped:
            stopped = tuple(self.stopped)
            self.stopped = []
        completed: tuple[JobState, ...] = ()
        if self.completed:
            completed = tuple(self.completed)
            self.completed = []
        state = SchedulerState(
            self.now_s, self.waiting.values(), self.running.values(), cluster.capacity,
            cluster.free_gpus, self._round_index(),
            self.jobs[self.arrived_from : self.next_arrival], cluster.node_free_view, stopped,
            completed,
        )  # fmt: skip
        self.arrived_from = self.next_arrival
        started = perf_counter()
        answer = self.policy.allocate(state)
        self.decision_time_s += perf_counter() - started
        self.num_decisions += 1
        if isinstance(answer, Decision):
            decision, allocation = answer, answer.allocation
        else:  # Decision(answer) without building one
            decision, allocation = _BARE, answer
        self.wake_at_s, self.held_back = decision.wake_at_s, decision.held_for_consolidation
        if decision.requeued:  # an event for relaunch_on_event (else unread)
            self.event_in_round = True
        if not allocation:
            return allocation, []
        validate_allocation(
            allocation, self.jobs, self.layout, self.matrix, self.spec.name, self.now_s
        )
        return allocation, changed_entries(allocation, self.jobs, self.num_decisions)

    def _round_index(self) -> int:
        return int(self.now_s // self.round_s)

    def _preempt_ungranted(self, allocation: Allocation) -> None:
        """Preempts (or migrates) the running jobs whose grant the allocation does not keep:
        those :func:`changed_entries` did not mark with this decision's count (an empty
        allocation marks none: then every running job goes)."""
        stamp = self.num_decisions
        changed = [(job, allocation.get(job.index)) for job in self.running.values()
                   if job.kept_stamp != stamp]  # fmt: skip
        for job, grant in changed:
            job.sync(self.now_s)
            if job.last_step_s is not None:  # its final consolidation is the checkpoint
                self._complete(job)
                continue
            reason = "preempted" if grant is None else "migrated"
            job.num_preemptions += 1
            self._requeue(job, reason)
            if self.log:
                self.log.event(self.now_s, job, reason, f"by decision {self.num_decisions}",
                               self.num_decisions)  # fmt: skip

    def _start_all(self, allocation: Allocation, strict: bool) -> None:
        self._start_entries(list(allocation.items()), strict)

    def _start_entries(self, entries: list[tuple[int, Grant]], strict: bool) -> None:
        """Places and starts the granted jobs that wait, in order. Raises AllocationError for a
        grant that does not fit when ``strict``, and for a running job's under a
        non-preemptive policy (which adds jobs, so may not list running ones)."""
        jobs, cluster = self.jobs, self.cluster
        for index, grant in entries:
            if index < 0:  # (checked before the lookup: jobs[-1] is the trace's last job)
                raise AllocationError(f"{self.spec.name}: job index {index} is not in the system")
            job = jobs[index]
            if job.placement is not None:  # running (a completed job holds no placement)
                if strict and not self.preemptive:
                    raise AllocationError(f"{self.spec.name}: job {job.job_id} is already running")
                continue
            if job.completion_s is not None:
                continue  # its steps were done; completed instead of preempted
            if index >= self.next_arrival:  # (an arrived job neither running nor done
                # waits: the same test as ``index in self.waiting``, without a dict probe)
                raise AllocationError(f"{self.spec.name}: job {job.job_id} is not in the system")
            if grant.host >= 0:  # a member of a shared group: on its host's GPUs
                placement = jobs[grant.host].placement
                if placement is not None:
                    self.guests.setdefault(grant.host, []).append(index)
                    self.grouped.update((index, grant.host))
                    self.recorder.hosts[(index, self.now_s)] = grant.host  # (its segment starts)
            elif grant.parts or grant.combine != "gang":
                placement = cluster.place_parts(grant.pieces(), grant.combine)
            else:  # a method call on the cluster, not a bound method (compiled: a C call)
                placement = cluster.place(grant.worker_type, grant.num_gpus)
            if placement is None:
                if strict:
                    raise AllocationError(
                        f"{self.spec.name}: job {job.job_id} granted {grant.pieces()} at "
                        f"t={self.now_s:.0f}s but the GPUs are not free"
                    )
                continue
            self._start(job, placement, grant)

    def _start(self, job: JobState, placement: Placement, grant: Grant) -> None:
        del self.waiting[job.index]
        self.running[job.index] = job
        now_s = self.now_s
        job.sync(now_s)
        first = job.first_start_s is None
        if first:
            job.first_start_s = now_s
        if not first or self.relaunch:  # a restart (under relaunch: every launch) costs it
            job.restore_until_s = now_s + self.restore_s
        job.placement = placement
        job.grant = grant
        job.segment_start_s = now_s
        if self.faults is not None:
            self.faults.plan_checkpoints(job, placement)
        if placement.node_types:
            job.ref_gpus = sum(
                count * job.ref_speed.get(worker_type, 1.0)
                for worker_type, count in placement.gpus_by_type().items()
            )
        else:  # one type: the same sum of one term
            job.ref_gpus = placement.num_gpus * job.ref_speed.get(placement.worker_type, 1.0)
        if grant.host >= 0:  # shares its host's GPUs and links (engine.sharing)
            self._set_rate(job, placement, self.jobs[grant.host].bandwidth_gbps)
        elif len(placement.nodes) == 1:
            self._set_rate(job, placement, self.intra_node_gbps)
        else:
            neighbours = self.links.attach(job.index, self.topology.links_of(placement.nodes))
            self._set_rate(job, placement, self.links.bandwidth_gbps(job.index, now_s))
            self._refresh_rates(neighbours)
        if self.log:
            self.log.started(now_s, job, placement, self.num_decisions)

    def _refresh_rates(self, indices: set[int]) -> None:
        """Re-rates running jobs whose share of a link changed (another job came or went)."""
        for index in sorted(indices):
            job = self.jobs[index]
            placement = job.placement
            if placement is None:
                continue
            bandwidth_gbps = self.links.bandwidth_gbps(index, self.now_s)
            if bandwidth_gbps != job.bandwidth_gbps:
                job.sync(self.now_s)
                self._set_rate(job, placement, bandwidth_gbps)

    def _set_rate(self, job: JobState, placement: Placement, bandwidth_gbps: float) -> None:
        """Rates a synced job on its placement and bottleneck bandwidth; files its completion."""
        now_s = self.now_s
        job.bandwidth_gbps = bandwidth_gbps
        job.rate, job.comm_share = self.rates.of(job, placement, bandwidth_gbps, now_s)
        grant = job.grant
        if grant is not None and grant.share_speed != 1.0:  # its speed in a shared group
            job.rate = job.rate * grant.share_speed
        if self.faults is not None:  # checkpoints take a share of its wall time
            job.rate = job.rate * job.checkpoint_keep
        if placement.combine == "copies":  # the final consolidation after the last step
            job.final_s = self.rates.final_s(job, placement, bandwidth_gbps)
        job.version += 1
        self.completions.file(job, job.finish_time_s(now_s), len(self.running))

    def _requeue(self, job: JobState, reason: str, unsaved_s: float = 0.0) -> None:
        """A synced running job leaves its GPUs (preempted, migrated or failed: ``reason``;
        ``unsaved_s`` as :meth:`_release`'s) and waits again."""
        self._release(job, reason, unsaved_s)
        del self.running[job.index]
        self.waiting[job.index] = job

    def _release(self, job: JobState, reason: str, unsaved_s: float = 0.0) -> None:
        """Frees a synced job's GPUs and closes its segment; ``unsaved_s``: wall time since its
        last checkpoint that a failure lost (not counted as checkpoint time)."""
        placement = job.placement
        assert placement is not None  # the caller synced the job
        self._close_segment(job, placement, reason, unsaved_s)
        self.grouped.discard(job.index)
        grant = job.grant
        job.placement = None
        job.grant = None
        job.ref_gpus = 0.0
        job.rate = 0.0
        job.version += 1
        if grant is not None and grant.host >= 0:  # a shared group's member: no GPUs of its own
            self._leave_group(job.index, grant.host)
        elif job.index in self.guests:  # a host whose members run on: one of them holds them
            self._hand_over(job.index, placement)
        else:
            self.cluster.release(placement)
            if len(placement.nodes) > 1:
                self._refresh_rates(self.links.detach(job.index))

    def _leave_group(self, index: int, host: int) -> None:
        """Job ``index`` leaves the shared group of ``host``."""
        members = self.guests[host]
        members.remove(index)
        if not members:
            del self.guests[host]

    def _hand_over(self, host: int, placement: Placement) -> None:
        """A host leaves while its group's members run: the first member holds the GPUs (and
        links) from now, the others share its; their speeds stay until the next decision [R]."""
        members = self.guests.pop(host)
        heir = self.jobs[members[0]]
        assert heir.grant is not None  # (running)
        heir.grant = heir.grant._replace(host=-1)
        for index in members[1:]:
            member = self.jobs[index]
            assert member.grant is not None
            member.grant = member.grant._replace(host=heir.index)
        if len(members) > 1:
            self.guests[heir.index] = members[1:]
        if len(placement.nodes) > 1:
            self.links.detach(host)
            self.links.attach(heir.index, self.topology.links_of(placement.nodes))

    def _close_segment(
        self, job: JobState, placement: Placement, reason: str, unsaved_s: float = 0.0
    ) -> None:
        """Ends the job's segment on ``placement`` now: its GPU-seconds by worker type and its
        Gantt row (``unsaved_s``: as :meth:`_release`'s)."""
        now_s = self.now_s
        if self.faults is not None:
            self.faults.book_segment(job, placement, now_s, unsaved_s)
        held_s = now_s - job.segment_start_s
        if placement.node_types:
            for worker_type, count in placement.gpus_by_type().items():
                job.add_service(worker_type, held_s * count)
        else:
            job.add_service(placement.worker_type, held_s * placement.num_gpus)
        grant = job.grant
        if grant is not None and job.index in self.grouped:  # (engine.metrics_sharing)
            self.recorder.shared_segment(job, held_s, grant.share_speed, grant.host)
        self.recorder.close_segment(job, placement, now_s, reason)

    def _check_progress_possible(self) -> None:
        if (
            self.waiting
            and not self.running
            and self.next_arrival >= len(self.jobs)
            and not (self.faults is not None and self.faults.model.down)  # (nodes to come back)
        ):
            raise self._stuck_error()

    def _stuck_error(self) -> EngineError:
        """The error of a run that cannot go on: jobs wait, nothing runs, nothing will arrive."""
        return EngineError(
            f"{self.policy_name} left {len(self.waiting)} job(s) waiting on an idle "
            "cluster with no arrivals to come"
        )

    def _result(self) -> SimulationResult:
        return simulation_result(
            self.policy_name, self.jobs, self.layout.capacity, self.recorder, self.area_at_end,
            node_failures=None if self.faults is None else self.faults.model.node_failures,
            num_decisions=self.num_decisions, decision_time_s=self.decision_time_s, log=self.log,
        )  # fmt: skip

    # Node failures (engine.fault_handling): only runs whose scenario turns them on reach these.

    def _apply_faults(self) -> bool:
        """Applies the failure events due by now; True when a node failed or came back."""
        faults = self.faults
        assert faults is not None
        changed = faults.apply_due(self.now_s, self._stop_jobs_on)
        self.next_fault_s = faults.model.next_s
        return changed

    def _stop_jobs_on(self, node: int, cause: str) -> None:
        """A failure of ``node`` stops the jobs running there: each keeps the work of its last
        completed checkpoint and waits again (it pays the restore when it restarts)."""
        faults = self.faults
        assert faults is not None
        now_s = self.now_s
        hit = [job for job in self.running.values()
               if job.placement is not None and node in job.placement.nodes]  # fmt: skip
        for job in hit:
            job.sync(now_s)
            placement = job.placement
            assert placement is not None
            if job.last_step_s is not None:  # its steps were done: only its consolidation is lost
                self._complete(job)
                continue
            unsaved_s = faults.lose_unsaved(job, placement, now_s)
            job.num_failures += 1
            self._requeue(job, "failed", unsaved_s)
            job.failed_last = True  # (after its segment closed: its restart's restore is lost)
            self.stopped.append(job)
            if self.log:
                detail = f"{cause}; {unsaved_s:,.0f} s of work since its last checkpoint lost"
                self.log.event(now_s, job, "failed", detail, self.num_decisions)

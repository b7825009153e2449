"""The steps that move a job between waiting, running and done (:mod:`engine.event_loop`).

:class:`JobMoves` starts a job on its placement (rates it, files its completion, attaches it to
its links), re-rates it when its links' shares change, and takes it off its GPUs again: completed,
preempted, migrated, relaunched or stopped by a node failure. Each step closes the job's segment
(its GPU-seconds by worker type and its Gantt row, :mod:`engine.recorder`). Both loops use these
steps: the engine's event loop and Gavel's round loop of leases (:mod:`engine.lease_rounds`).

Shared GPUs (:mod:`engine.sharing`): a member of a shared group runs on its host's GPUs; when the
host leaves first, the first member holds the GPUs and links from then on [R].
"""

from __future__ import annotations

from engine.allocation.grants import Grant
from engine.cluster import ClusterState, Placement
from engine.completions import CompletionHeap
from engine.decision_log import DecisionLog
from engine.fault_handling import FaultHandling
from engine.loop_state import Clock, JobSets, LoopRules
from engine.recorder import Recorder
from engine.state import JobState
from engine.step_time.rates import JobRates
from engine.step_time.topology import LinkLoad, Topology


class JobMoves:
    """Start, re-rate, complete, requeue and release jobs of one run (module docstring)."""

    def __init__(
        self,
        sets: JobSets,
        clock: Clock,
        rules: LoopRules,
        cluster: ClusterState,
        recorder: Recorder,
        rates: JobRates,
        topology: Topology,
        faults: FaultHandling | None,
        log: DecisionLog | None,
    ) -> None:
        self.sets, self.clock, self.rules, self.cluster = sets, clock, rules, cluster
        self.recorder, self.rates, self.faults, self.log = recorder, rates, faults, log
        self.topology, self.links = topology, LinkLoad(topology)
        self.completions = CompletionHeap(sets.jobs)
        self.guests: dict[int, list[int]] = {}  # shared groups: host index -> members on its GPUs
        self.grouped: set[int] = set()  # jobs whose GPUs another job shares until they leave

    def join_group(self, index: int, host: int) -> Placement | None:
        """Job ``index`` joins the shared group of running job ``host``: its host's placement
        (None when the host does not run)."""
        placement = self.sets.jobs[host].placement
        if placement is not None:
            self.guests.setdefault(host, []).append(index)
            self.grouped.update((index, host))
            self.recorder.hosts[(index, self.clock.now_s)] = host  # (its segment starts)
        return placement

    def start(self, job: JobState, placement: Placement, grant: Grant) -> None:
        """A waiting job starts on ``placement`` under ``grant`` now."""
        sets = self.sets
        del sets.waiting[job.index]
        sets.running[job.index] = job
        now_s = self.clock.now_s
        job.sync(now_s)
        first = job.first_start_s is None
        if first:
            job.first_start_s = now_s
        if not first or self.rules.relaunch:  # a restart (under relaunch: every launch) costs it
            job.restore_until_s = now_s + self.rules.restore_s
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
            self.set_rate(job, placement, sets.jobs[grant.host].bandwidth_gbps)
        elif len(placement.nodes) == 1:
            self.set_rate(job, placement, self.rules.intra_node_gbps)
        else:
            neighbours = self.links.attach(job.index, self.topology.links_of(placement.nodes))
            self.set_rate(job, placement, self.links.bandwidth_gbps(job.index, now_s))
            self.refresh_rates(neighbours)
        if self.log:
            self.log.started(now_s, job, placement, self.clock.num_decisions)

    def refresh_rates(self, indices: set[int]) -> None:
        """Re-rates running jobs whose share of a link changed (another job came or went)."""
        jobs, now_s = self.sets.jobs, self.clock.now_s
        for index in sorted(indices):
            job = jobs[index]
            placement = job.placement
            if placement is None:
                continue
            bandwidth_gbps = self.links.bandwidth_gbps(index, now_s)
            if bandwidth_gbps != job.bandwidth_gbps:
                job.sync(now_s)
                self.set_rate(job, placement, bandwidth_gbps)

    def rerate_spread_jobs(self) -> None:
        """Re-rates every running job on more than one node (the congestion changed)."""
        now_s = self.clock.now_s
        for job in self.sets.running.values():
            if job.placement is not None and len(job.placement.nodes) > 1:
                job.sync(now_s)
                self.set_rate(job, job.placement, self.links.bandwidth_gbps(job.index, now_s))

    def set_rate(self, job: JobState, placement: Placement, bandwidth_gbps: float) -> None:
        """Rates a synced job on its placement and bottleneck bandwidth; files its completion."""
        now_s = self.clock.now_s
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
        self.completions.file(job, job.finish_time_s(now_s), len(self.sets.running))

    def relaunch_running(self) -> None:
        """Every running job not (re)started at this instant restarts where it runs: its progress
        pauses for the restore time from now (its completion is filed again)."""
        now_s, restore_s = self.clock.now_s, self.rules.restore_s
        for job in self.sets.running.values():
            placement = job.placement
            if placement is None or job.segment_start_s == now_s or job.last_step_s is not None:
                continue
            job.sync(now_s)
            self.close_segment(job, placement, "relaunched")
            job.segment_start_s = now_s
            job.restore_until_s = now_s + restore_s
            self.set_rate(job, placement, job.bandwidth_gbps)

    def complete(self, job: JobState) -> None:
        """A running job's last step (and consolidation) is done now."""
        now_s = self.clock.now_s
        job.sync(now_s)
        job.steps_done = job.total_steps
        self.retire(job, now_s)
        self.sets.completed.append(job)
        if self.log:
            self.log.event(now_s, job, "completed", "", self.clock.num_decisions)

    def retire(self, job: JobState, completion_s: float) -> None:
        """A synced running job whose steps are done leaves the system, complete at
        ``completion_s``."""
        job.completion_s = completion_s
        self.sets.area_at_end[job.index] = self.clock.area
        self.release(job, "completed")
        del self.sets.running[job.index]

    def requeue(self, job: JobState, reason: str, unsaved_s: float = 0.0) -> None:
        """A synced running job leaves its GPUs (preempted, migrated or failed: ``reason``;
        ``unsaved_s`` as :meth:`release`'s) and waits again."""
        self.release(job, reason, unsaved_s)
        del self.sets.running[job.index]
        self.sets.waiting[job.index] = job

    def release(self, job: JobState, reason: str, unsaved_s: float = 0.0) -> None:
        """Frees a synced job's GPUs and closes its segment; ``unsaved_s``: wall time since its
        last checkpoint that a failure lost (not counted as checkpoint time)."""
        placement = job.placement
        assert placement is not None  # the caller synced the job
        self.close_segment(job, placement, reason, unsaved_s)
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
                self.refresh_rates(self.links.detach(job.index))

    def _leave_group(self, index: int, host: int) -> None:
        """Job ``index`` leaves the shared group of ``host``."""
        members = self.guests[host]
        members.remove(index)
        if not members:
            del self.guests[host]

    def _hand_over(self, host: int, placement: Placement) -> None:
        """A host leaves while its group's members run: the first member holds the GPUs (and
        links) from now, the others share its; their speeds stay until the next decision [R]."""
        jobs = self.sets.jobs
        members = self.guests.pop(host)
        heir = jobs[members[0]]
        assert heir.grant is not None  # (running)
        heir.grant = heir.grant._replace(host=-1)
        for index in members[1:]:
            member = jobs[index]
            assert member.grant is not None
            member.grant = member.grant._replace(host=heir.index)
        if len(members) > 1:
            self.guests[heir.index] = members[1:]
        if len(placement.nodes) > 1:
            self.links.detach(host)
            self.links.attach(heir.index, self.topology.links_of(placement.nodes))

    def close_segment(
        self, job: JobState, placement: Placement, reason: str, unsaved_s: float = 0.0
    ) -> None:
        """Ends the job's segment on ``placement`` now: its GPU-seconds by worker type and its
        Gantt row (``unsaved_s``: as :meth:`release`'s)."""
        now_s = self.clock.now_s
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

    def stop_jobs_on(self, node: int, cause: str) -> None:
        """A failure of ``node`` stops the jobs running there: each keeps the work of its last
        completed checkpoint and waits again (it pays the restore when it restarts)."""
        faults = self.faults
        assert faults is not None
        now_s = self.clock.now_s
        hit = [job for job in self.sets.running.values()
               if job.placement is not None and node in job.placement.nodes]  # fmt: skip
        for job in hit:
            job.sync(now_s)
            placement = job.placement
            assert placement is not None
            if job.last_step_s is not None:  # its steps were done: only its consolidation is lost
                self.complete(job)
                continue
            unsaved_s = faults.lose_unsaved(job, placement, now_s)
            job.num_failures += 1
            self.requeue(job, "failed", unsaved_s)
            job.failed_last = True  # (after its segment closed: its restart's restore is lost)
            self.sets.stopped.append(job)
            if self.log:
                detail = f"{cause}; {unsaved_s:,.0f} s of work since its last checkpoint lost"
                self.log.event(now_s, job, "failed", detail, self.clock.num_decisions)

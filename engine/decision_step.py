"""The decision step: ask the policy, validate its allocation, preempt, place and start.

Blox's pipeline (msr-fiddle/blox: scheduling -> placement -> launch/preempt) as the engine runs
it at a decision (:mod:`engine.policies.base` for the contract). The policy reads a
:class:`SchedulerState`; its allocation is validated (:mod:`engine.allocation.validation`); the
entries whose grant is not the job's own are the ones acted on (:func:`changed_entries`): the
running jobs without their grant are preempted or migrated, then the granted waiting jobs are
placed and started in the allocation's order (:mod:`engine.job_moves`). Both loops call it: the
engine's event loop at its decision events, Gavel's round loop of leases once per round.
"""

from __future__ import annotations

from time import perf_counter

from engine.allocation.grants import Decision, keeps_grant
from engine.allocation.layout import NodeLayout
from engine.allocation.validation import validate_allocation
from engine.cluster import ClusterState
from engine.decision_log import DecisionLog
from engine.errors import AllocationError, EngineError
from engine.job_moves import JobMoves
from engine.loop_state import Arrivals, Clock, JobSets, LoopRules
from engine.policies.base import Allocation, Grant, Policy, SchedulerState
from engine.state import JobState
from engine.step_time.throughput import ThroughputMatrix

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


class DecisionStep:
    """The policy's decisions in one run (module docstring); ``policy_name`` as results call it,
    ``spec_name`` as the registry does (for the messages of :class:`AllocationError`)."""

    def __init__(
        self,
        policy: Policy,
        names: tuple[str, str],
        sets: JobSets,
        arrivals: Arrivals,
        clock: Clock,
        rules: LoopRules,
        moves: JobMoves,
        inputs: tuple[NodeLayout, ThroughputMatrix, ClusterState],
        log: DecisionLog | None,
    ) -> None:
        self.policy, (self.policy_name, self.spec_name) = policy, names
        self.sets, self.arrivals, self.clock, self.rules, self.moves = (
            sets, arrivals, clock, rules, moves,
        )  # fmt: skip
        self.layout, self.matrix, self.cluster = inputs
        self.log = log

    def decide(self, full: bool) -> None:
        """A decision of the event loop: ``full`` (at a round boundary, or on events for a policy
        that replans on them) lets a preemptive policy preempt; a partial one only adds jobs."""
        preemptive = self.rules.preemptive
        sets = self.sets
        if (not full or not preemptive) and not (sets.waiting and self.cluster.any_free()):
            return  # nothing could start and nothing may be preempted
        allocation, entries = self.ask(full and self.rules.sync_on_full, self.round_index())
        if full and preemptive and len(allocation) - len(entries) < len(sets.running):
            self.preempt_ungranted(allocation)  # (else every running job keeps its grant)
        if preemptive:  # the other entries are running jobs, which start_all skips
            if entries:
                self.start_entries(entries, strict=full)
        elif allocation:
            self.start_all(allocation, strict=True)
        if full:
            self.check_progress_possible()

    def round_index(self) -> int:
        """The event loop's round index: whole rounds since time 0."""
        return int(self.clock.now_s // self.rules.round_s)

    def ask(
        self, sync_running: bool, round_index: int
    ) -> tuple[Allocation, list[tuple[int, Grant]]]:
        """The policy's allocation, validated, and its changed entries (:func:`changed_entries`;
        the running jobs that keep their grants are marked with this decision's count)."""
        sets, clock, arrivals, cluster = self.sets, self.clock, self.arrivals, self.cluster
        if sync_running:
            for job in sets.running.values():
                job.sync(clock.now_s)
        stopped: tuple[JobState, ...] = ()
        if sets.stopped:
            stopped = tuple(sets.stopped)
            sets.stopped = []
        completed: tuple[JobState, ...] = ()
        if sets.completed:
            completed = tuple(sets.completed)
            sets.completed = []
        state = SchedulerState(
            clock.now_s, sets.waiting.values(), sets.running.values(), cluster.capacity,
            cluster.free_gpus, round_index,
            sets.jobs[arrivals.arrived_from : arrivals.next_index], cluster.node_free_view,
            stopped, completed,
        )  # fmt: skip
        arrivals.arrived_from = arrivals.next_index
        started = perf_counter()
        answer = self.policy.allocate(state)
        clock.decision_time_s += perf_counter() - started
        clock.num_decisions += 1
        if isinstance(answer, Decision):
            decision, allocation = answer, answer.allocation
        else:  # Decision(answer) without building one
            decision, allocation = _BARE, answer
        clock.wake_at_s, clock.held_back = decision.wake_at_s, decision.held_for_consolidation
        if decision.requeued:  # an event for relaunch_on_event (else unread)
            clock.event_in_round = True
        if not allocation:
            return allocation, []
        validate_allocation(
            allocation, sets.jobs, self.layout, self.matrix, self.spec_name, clock.now_s
        )
        return allocation, changed_entries(allocation, sets.jobs, clock.num_decisions)

    def preempt_ungranted(self, allocation: Allocation) -> None:
        """Preempts (or migrates) the running jobs whose grant the allocation does not keep:
        those :func:`changed_entries` did not mark with this decision's count (an empty
        allocation marks none: then every running job goes)."""
        now_s, stamp = self.clock.now_s, self.clock.num_decisions
        changed = [(job, allocation.get(job.index)) for job in self.sets.running.values()
                   if job.kept_stamp != stamp]  # fmt: skip
        for job, grant in changed:
            job.sync(now_s)
            if job.last_step_s is not None:  # its final consolidation is the checkpoint
                self.moves.complete(job)
                continue
            reason = "preempted" if grant is None else "migrated"
            job.num_preemptions += 1
            self.moves.requeue(job, reason)
            if self.log:
                self.log.event(now_s, job, reason, f"by decision {stamp}", stamp)

    def start_all(self, allocation: Allocation, strict: bool) -> None:
        """Places and starts every granted job that waits (:meth:`start_entries`)."""
        self.start_entries(list(allocation.items()), strict)

    def start_entries(self, entries: list[tuple[int, Grant]], strict: bool) -> None:
        """Places and starts the granted jobs that wait, in order. Raises AllocationError for a
        grant that does not fit when ``strict``, and for a running job's under a
        non-preemptive policy (which adds jobs, so may not list running ones)."""
        jobs, cluster, moves, name = self.sets.jobs, self.cluster, self.moves, self.spec_name
        for index, grant in entries:
            if index < 0:  # (checked before the lookup: jobs[-1] is the trace's last job)
                raise AllocationError(f"{name}: job index {index} is not in the system")
            job = jobs[index]
            if job.placement is not None:  # running (a completed job holds no placement)
                if strict and not self.rules.preemptive:
                    raise AllocationError(f"{name}: job {job.job_id} is already running")
                continue
            if job.completion_s is not None:
                continue  # its steps were done; completed instead of preempted
            if index >= self.arrivals.next_index:  # (an arrived job neither running nor done
                # waits: the same test as ``index in waiting``, without a dict probe)
                raise AllocationError(f"{name}: job {job.job_id} is not in the system")
            if grant.host >= 0:  # a member of a shared group: on its host's GPUs
                placement = moves.join_group(index, grant.host)
            elif grant.parts or grant.combine != "gang":
                placement = cluster.place_parts(grant.pieces(), grant.combine)
            else:  # a method call on the cluster, not a bound method (compiled: a C call)
                placement = cluster.place(grant.worker_type, grant.num_gpus)
            if placement is None:
                if strict:
                    raise AllocationError(
                        f"{name}: job {job.job_id} granted {grant.pieces()} at "
                        f"t={self.clock.now_s:.0f}s but the GPUs are not free"
                    )
                continue
            moves.start(job, placement, grant)

    def check_progress_possible(self) -> None:
        """Raises :meth:`stuck_error` when jobs wait, none runs and none is to arrive (and no
        failed node is to come back)."""
        faults = self.moves.faults
        if (
            self.sets.waiting
            and not self.sets.running
            and not self.arrivals.pending()
            and not (faults is not None and faults.model.down)  # (nodes to come back)
        ):
            raise self.stuck_error()

    def stuck_error(self) -> EngineError:
        """The error of a run that cannot go on: jobs wait, nothing runs, nothing will arrive."""
        return EngineError(
            f"{self.policy_name} left {len(self.sets.waiting)} job(s) waiting on an idle "
            "cluster with no arrivals to come"
        )

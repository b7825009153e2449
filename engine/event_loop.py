"""The engine's event loop: named steps around one clock, one handler per event kind.

Between events every running job progresses at a constant rate, so the loop jumps from event to
event (SimPy's core: ``step()`` until no event is left). :meth:`Simulation.next_event_s` is the
one place that picks the next event's time, the earliest over the event sources:

==================  ==========================================  =================================
event kind          source (its next time)                      handler
==================  ==========================================  =================================
completion          :class:`engine.completions.CompletionHeap`  :meth:`Simulation.on_completions`
arrival             :class:`engine.loop_state.Arrivals`         :meth:`Simulation.on_arrivals`
congestion change   the network's change times                  :meth:`Simulation.on_congestion`
fault / repair      :mod:`engine.fault_handling` (failures on)  :meth:`Simulation.on_faults`
decision wake-up    the policy's last ``Decision.wake_at_s``    :meth:`Simulation.on_wake`
round boundary      ``Clock.next_tick_s``                       :meth:`Simulation.on_round`
decision            any of the above (the policy's flags)       :meth:`Simulation.on_decision`
==================  ==========================================  =================================

:meth:`Simulation.step` runs the handlers of one instant in that order (the completions first,
so a job's GPUs are free for the arrivals' decision), then records the waiting jobs' reasons
(:mod:`engine.decision_log`) and the utilization. The decision itself, Blox's pipeline (ask,
validate, preempt, place, start), is :mod:`engine.decision_step`; the moves of one job
(start, re-rate, complete, requeue) are :mod:`engine.job_moves`; the state they share is grouped
in :mod:`engine.loop_state`. Gavel's round loop of leases (:mod:`engine.lease_rounds`) drives the
same parts in its own order, through their public methods.

Failures (:mod:`engine.faults`), off, cost one comparison per event. The waiting jobs sit in an
``OrderedDict``, not a dict: jobs leave a long queue from its front, and a dict keeps a hole for
each until it is rebuilt (``dict(d)`` copies the holes while they are under a third of its
entries), so every decision that reads the queue from its front walked them. On 1,000,000 jobs
on 25,600 GPUs (``benchmarks/bench_scale.py``) that walk was half of FIFO's time and grew with
the queue; an ``OrderedDict``'s order is a linked list, with no holes (issue 37).

Under ``RoundConfig.relaunch_on_event`` (Muri's testbed, :mod:`engine.presets`) a round boundary
that has an event relaunches every running job: each pauses for the checkpoint-restore time, as
does every start, the first included.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from engine.cluster import ClusterState
from engine.config import PolicySpec, ScenarioConfig
from engine.decision_log import DecisionLog
from engine.decision_step import DecisionStep
from engine.errors import SimulationCancelled
from engine.fault_handling import FaultHandling
from engine.job_moves import JobMoves
from engine.jobs import job_states
from engine.loop_state import Arrivals, Clock, JobSets, LoopRules
from engine.placement import get_placement
from engine.policies.base import PolicyContext, build_params, display_name, get_policy
from engine.quota.gate import quota_policy
from engine.recorder import Recorder
from engine.result_assembly import simulation_result
from engine.results import SimulationResult
from engine.sharing import SharingConfig, check_policy_sharing
from engine.step_time.network import change_times
from engine.step_time.rates import JobRates
from engine.step_time.throughput import ThroughputMatrix
from engine.step_time.topology import Topology

ProgressFn = Callable[[float], None]
CancelFn = Callable[[], bool]
CHECK_EVERY = 2000  # loop iterations between progress reports / cancel checks (both loops)


def check_in(
    name: str, done: int, total: int, on_progress: ProgressFn | None, cancel: CancelFn | None
) -> None:
    """Every :data:`CHECK_EVERY` iterations of either loop: raises SimulationCancelled when
    ``cancel()`` says so, else reports ``done / total`` jobs completed."""
    if cancel and cancel():
        raise SimulationCancelled(f"{name}: cancelled")
    if on_progress:
        on_progress(done / max(1, total))


class Simulation:
    """One run of one policy in the event loop (module docstring); use
    :func:`engine.simulator.simulate`. ``log``: the decision log to fill, if any."""

    def __init__(
        self,
        jobs: pd.DataFrame,
        config: ScenarioConfig,
        spec: PolicySpec,
        matrix: ThroughputMatrix,
        stage_rows: pd.DataFrame | None = None,
        trace_file: str = "",
        log: DecisionLog | None = None,
    ) -> None:
        self.config, self.spec, self.matrix, self.log = config, spec, matrix, log
        self.policy_name = display_name(spec)  # the policy as results and messages call it
        cls = get_policy(spec.name)
        check_policy_sharing(self.policy_name, cls.shares_gpus, spec.params)
        context = PolicyContext(
            config.cluster, config.rounds, np.random.default_rng(config.seed), config.network,
            matrix, config.placement, config.sharing or SharingConfig(), stage_rows, trace_file,
        )  # fmt: skip
        self.layout = context.layout  # the run's one node numbering
        self.cluster = ClusterState(self.layout, get_placement(config.placement))
        self.policy = cls(build_params(cls, spec.params), context)
        if config.queues is not None:  # teams' quotas (engine.quota): Kueue admits, in order
            self.policy = quota_policy(self.policy, config.queues, jobs, context)
        self.rules = rules = LoopRules(config, self.policy)
        self.sets = JobSets(job_states(jobs, matrix, self.cluster.capacity, config.network))
        self.jobs = self.sets.jobs
        self.clock, self.arrivals = Clock(), Arrivals(self.jobs)
        self.congestion_s = [t for t in change_times(config.network) if t > 0]
        self.recorder = Recorder(self.cluster.capacity)  # (before the spares leave it)
        self.faults: FaultHandling | None = None  # node failures, unless the scenario has them
        if config.failures.enabled:
            self.faults = FaultHandling(
                config, self.layout, self.cluster, self.jobs, rules.restore_s
            )
            self.clock.next_fault_s = self.faults.model.next_s
        self.moves = JobMoves(
            self.sets, self.clock, rules, self.cluster, self.recorder,
            JobRates(matrix, config.network, rules.round_s, self.policy),
            Topology(self.layout, config.network), self.faults, log,
        )  # fmt: skip
        self.decisions = DecisionStep(
            self.policy, (self.policy_name, spec.name), self.sets, self.arrivals, self.clock,
            rules, self.moves, (self.layout, matrix, self.cluster), log,
        )  # fmt: skip

    def run(
        self, on_progress: ProgressFn | None, should_cancel: CancelFn | None
    ) -> SimulationResult:
        """Steps from event to event until none is left; the result tables."""
        done = 0
        iteration = 0
        while (t := self.next_event_s()) != math.inf:
            done += self.step(t)
            iteration += 1
            if iteration % CHECK_EVERY == 0:
                check_in(self.policy_name, done, len(self.jobs), on_progress, should_cancel)
        return self.result()

    def next_event_s(self) -> float:
        """The next event's time (s; ``inf``: none is left), the earliest over the sources
        (module docstring). Congestion changes count while jobs are in the system, the policy's
        wake-up while jobs wait, failure events while jobs are left (never with failures off:
        ``next_fault_s`` is ``inf``)."""
        clock, sets = self.clock, self.sets
        t = clock.next_tick_s
        completion_s = self.moves.completions.next_s()
        if completion_s < t:
            t = completion_s
        arrival_s = self.arrivals.next_s()
        if arrival_s < t:
            t = arrival_s
        if self.congestion_s and (sets.running or sets.waiting):
            t = min(t, self.congestion_s[0])
        if clock.now_s < clock.wake_at_s < t and sets.waiting:
            t = clock.wake_at_s
        if clock.next_fault_s < t and (sets.running or sets.waiting or self.arrivals.pending()):
            t = clock.next_fault_s
        return t

    def step(self, t: float) -> int:
        """One instant: every event due at ``t`` (s) through its handler, then the records;
        returns how many jobs completed."""
        self.advance(t)
        completed = self.on_completions()
        arrived = self.arrivals.next_s() <= t and self.on_arrivals()
        if self.congestion_s:
            self.on_congestion()
        faulted = self.clock.next_fault_s <= t and self.on_faults()
        woke = self.on_wake()
        self.on_decision(changed=arrived or completed > 0 or woke or faulted)
        self.record()
        return completed

    def advance(self, t: float) -> None:
        """Moves the clock to ``t`` (s): the area of jobs in the system, and the consolidation
        wait of the jobs the policy holds back."""
        clock, sets = self.clock, self.sets
        clock.area += (len(sets.waiting) + len(sets.running)) * (t - clock.now_s)
        if clock.held_back:
            for index in clock.held_back:
                if index in sets.waiting:
                    self.jobs[index].consolidation_wait_s += t - clock.now_s
        clock.now_s = t

    def on_completions(self) -> int:
        """Completion events: the jobs whose last step is due complete; how many."""
        count = 0
        moves, now_s = self.moves, self.clock.now_s
        while (job := moves.completions.pop_due(now_s)) is not None:
            moves.complete(job)
            count += 1
        return count

    def on_arrivals(self) -> bool:
        """Arrival events: the jobs arrived by now wait; the first arrivals in an empty system
        start the round boundaries (when the loop keeps them). True when a job arrived."""
        clock, arrivals, sets, log = self.clock, self.arrivals, self.sets, self.log
        start = arrivals.next_index
        while arrivals.next_index < len(self.jobs) and arrivals.next_s() <= clock.now_s:
            job = self.jobs[arrivals.next_index]
            job.area_at_arrival = clock.area
            sets.waiting[job.index] = job
            if log:
                log.event(clock.now_s, job, "arrived", "", clock.num_decisions)
            arrivals.next_index += 1
        if arrivals.next_index > start and self.rules.ticks and clock.next_tick_s == math.inf:
            round_s = self.rules.round_s
            clock.next_tick_s = math.ceil(clock.now_s / round_s) * round_s
        return arrivals.next_index > start

    def on_congestion(self) -> None:
        """Congestion change events: the jobs across nodes are re-rated."""
        now_s = self.clock.now_s
        if not self.congestion_s or self.congestion_s[0] > now_s:
            return
        while self.congestion_s and self.congestion_s[0] <= now_s:
            self.congestion_s.pop(0)
        self.moves.rerate_spread_jobs()

    def on_faults(self) -> bool:
        """Fault and repair events due by now (:mod:`engine.fault_handling`); True when a node
        failed or came back."""
        faults = self.faults
        assert faults is not None
        changed = faults.apply_due(self.clock.now_s, self.moves.stop_jobs_on)
        self.clock.next_fault_s = faults.model.next_s
        return changed

    def on_wake(self) -> bool:
        """The policy's wake-up (``Decision.wake_at_s``): True when it is due now."""
        clock = self.clock
        woke = clock.wake_at_s <= clock.now_s
        if woke:
            clock.wake_at_s = math.inf
        return woke

    def on_round(self) -> bool:
        """A round boundary: plans the next one while jobs are in the system; False when none
        is left (then nothing is decided)."""
        clock, sets = self.clock, self.sets
        clock.next_tick_s = (
            clock.now_s + self.rules.round_s if (sets.waiting or sets.running) else math.inf
        )
        return clock.next_tick_s != math.inf

    def on_decision(self, changed: bool) -> None:
        """The policy's decision, when one is due (a round boundary; or an event, ``changed``,
        when the policy admits mid-round); under ``relaunch`` a round boundary with an event
        (one since the last boundary, or a change of GPUs at this one) then relaunches every
        running job (:meth:`engine.job_moves.JobMoves.relaunch_running`)."""
        if not self.rules.relaunch:
            self._decide(changed)
            return
        clock = self.clock
        tick = clock.now_s >= clock.next_tick_s
        clock.event_in_round = clock.event_in_round or changed
        before = self.cluster.changes
        self._decide(changed)
        if tick:
            if clock.event_in_round or self.cluster.changes != before:
                self.moves.relaunch_running()
            clock.event_in_round = False

    def _decide(self, changed: bool) -> None:
        if self.clock.now_s >= self.clock.next_tick_s:
            if self.on_round():
                self.decisions.decide(full=True)
        elif changed and self.rules.admit_mid_round:
            self.decisions.decide(full=self.rules.full_on_events)

    def record(self) -> None:
        """After every instant: the waiting jobs' reasons (so a job's reason is known from its
        arrival) and, when the busy GPUs changed, the utilization."""
        clock, cluster = self.clock, self.cluster
        if self.log:
            self.log.waiting(
                clock.now_s, self.sets.waiting.values(), cluster.free_gpus, clock.held_back,
                clock.num_decisions,
            )  # fmt: skip
        if cluster.changes != clock.recorded_changes:  # else the same busy GPUs as before
            clock.recorded_changes = cluster.changes
            self.recorder.utilization(clock.now_s, cluster.free_gpus)

    def result(self) -> SimulationResult:
        """The run's result tables (:func:`engine.result_assembly.simulation_result`)."""
        clock = self.clock
        return simulation_result(
            self.policy_name, self.jobs, self.layout.capacity, self.recorder,
            self.sets.area_at_end,
            node_failures=None if self.faults is None else self.faults.model.node_failures,
            num_decisions=clock.num_decisions, decision_time_s=clock.decision_time_s,
            log=self.log,
        )  # fmt: skip

"""The event loop's state, grouped by what belongs together (:mod:`engine.event_loop`).

:class:`Clock` is the time, the times the loop keeps for its own event sources (the next round
boundary, the policy's wake-up, the next failure event) and the run's counters; :class:`Arrivals`
the arrival source (the jobs in arrival order and how far they have arrived); :class:`JobSets`
where each job is (waiting, running, done since the last decision); :class:`LoopRules` the
scenario's round rules and the policy's class flags, read once because the loop reads them at
every event. The loop's parts (:mod:`engine.job_moves`, :mod:`engine.decision_step`) share these
objects, so each holds the state it reads without a reference to the loop.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from engine.config import ScenarioConfig
from engine.policies.base import Policy
from engine.state import JobState


class Clock:
    """The loop's time (s), its own sources' next times (s) and the run's counters."""

    def __init__(self) -> None:
        self.now_s = 0.0
        self.area = 0.0  # jobs in the system integrated over time (job-s), for the JCT books
        self.next_tick_s = math.inf  # the next round boundary (inf: none planned)
        self.wake_at_s = math.inf  # the policy's last Decision, until its next one
        self.next_fault_s = math.inf  # the next failure event (inf: failures off)
        self.held_back: frozenset[int] = frozenset()  # held for consolidation (same Decision)
        self.num_decisions = 0
        self.decision_time_s = 0.0  # wall time inside the policy's allocate()
        self.event_in_round = False  # relaunch: an arrival or completion since the last tick
        self.recorded_changes = -1  # cluster.changes at the last utilization record


class Arrivals:
    """The arrival source: jobs ``[0, next_index)`` have arrived, ``[arrived_from, next_index)``
    since the policy's last decision (the jobs are sorted by arrival)."""

    def __init__(self, jobs: list[JobState]) -> None:
        self.times_s = [job.arrival_s for job in jobs]
        self.next_index = 0
        self.arrived_from = 0

    def pending(self) -> bool:
        """Whether a job is still to arrive."""
        return self.next_index < len(self.times_s)

    def next_s(self) -> float:
        """The next arrival's time (s; ``inf`` when every job has arrived)."""
        if self.next_index < len(self.times_s):
            return self.times_s[self.next_index]
        return math.inf


class JobSets:
    """Where the run's jobs are: ``jobs`` by index; ``waiting`` in arrival, then requeue order
    (an ``OrderedDict``: see :mod:`engine.event_loop`); ``running``; ``completed`` and
    ``stopped`` (by failures) since the policy's last decision; ``area_at_end``, the clock's
    area when each job completed (job-s, shape ``(len(jobs),)``)."""

    def __init__(self, jobs: list[JobState]) -> None:
        self.jobs = jobs
        self.waiting: OrderedDict[int, JobState] = OrderedDict()
        self.running: dict[int, JobState] = {}
        self.completed: list[JobState] = []
        self.stopped: list[JobState] = []
        self.area_at_end = np.zeros(len(jobs))


class LoopRules:
    """The round rules of the scenario and the policy's class flags (:class:`Policy`), read
    once: ``round_s`` (s), ``ticks`` (the loop keeps round boundaries), ``restore_s`` (s a
    start after the first pauses: the policy's switch cost, else the checkpoint restore)."""

    def __init__(self, config: ScenarioConfig, policy: Policy) -> None:
        rounds = config.rounds
        switch_cost_s = policy.switch_cost_s
        self.restore_s = rounds.checkpoint_restore_s if switch_cost_s is None else switch_cost_s
        self.round_s = rounds.round_duration_s
        self.ticks = policy.uses_rounds or not rounds.admit_mid_round
        self.admit_mid_round = rounds.admit_mid_round
        self.relaunch = rounds.relaunch_on_event
        self.preemptive = policy.preemptive
        self.full_on_events = not policy.uses_rounds or policy.replans_on_events
        self.sync_on_full = policy.preemptive and policy.needs_sync
        self.intra_node_gbps = config.network.intra_node_gbps

"""The skeleton shared by Dally and its consolidation baselines (:mod:`.policy`).

Jobs are served in Tiresias LAS order (queue by attained GPU-seconds, FIFO by arrival inside a
queue; Gu et al., NSDI 2019) and a job that cannot start is skipped, so later jobs pass it.
Each job gets a node-pinned gang of one worker type at the best level it accepts
(:meth:`ConsolidationScheduler.allowed_level`), its nodes chosen within that level by the
scenario's placement strategy (the placement layer's :class:`engine.placement.levels.Board`),
or first fit for jobs a baseline places without regard to locality. Running jobs keep their
grants; only network-sensitive preemption (Dally's part ii, at round boundaries) moves them.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import deque
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.placement.first_fit import first_fit
from engine.policies.base import Allocation, Decision, Policy, PolicyContext, SchedulerState
from engine.policies.dally.levels import (
    NETWORK,
    Board,
    DallyLayout,
    LevelModel,
    Option,
    grant_of,
)
from engine.policies.dally.preempt import Evictor
from engine.policies.dally.tuner import AutoTuner
from engine.policies.explain import Explanation
from engine.policies.las.explain import LasExplanation
from engine.policies.las.keys import THRESHOLDS_GPU_S, THRESHOLDS_HELP, parse_thresholds
from engine.state import JobState


class ConsolidationScheduler(Policy):
    """LAS-ordered gang scheduling with a per-job consolidation level (module docstring).

    Subclasses set the hooks :meth:`allowed_level` and :meth:`locality_blind`, and may switch
    on preemption (``theta`` < inf) and the auto-tuner (``tuner``). Their ``Params`` carry at
    least ``queue_thresholds_gpu_s``.

    Attributes:
        gamma: the delay timers' scale factor in force.
        evictions: (time s, beneficiary index, victim indices) of every network-sensitive
            preemption, for inspection and tests.
    """

    preemptive = True
    uses_rounds = True
    replans_on_events = True

    explanation: ClassVar[type[Explanation]] = LasExplanation  # LAS order, no promotion

    @dataclass(frozen=True)
    class Params:
        queue_thresholds_gpu_s: str = field(
            default=THRESHOLDS_GPU_S, metadata={"help": THRESHOLDS_HELP}
        )

    def __init__(self, params: Any, context: PolicyContext) -> None:
        super().__init__(params, context)
        self.thresholds = parse_thresholds(params.queue_thresholds_gpu_s)
        self.topology = DallyLayout(context.layout)
        self.model = LevelModel(context.step_time, self.topology.racks)
        self.placement = context.placement
        self.restore_s = context.rounds.checkpoint_restore_s
        self.gamma = 1.0
        self.theta = math.inf
        self.tuner: AutoTuner | None = None
        self.evictions: list[tuple[float, int, tuple[int, ...]]] = []
        self._round_index = -1

    def queue(self, job: JobState) -> int:
        """The job's LAS queue (0 = least attained GPU-seconds); call on synced jobs."""
        return bisect_right(self.thresholds, job.attained_service_gpu_s)

    def allowed_level(self, job: JobState, now_s: float) -> int:
        """Worst consolidation level the job accepts now (hook; default: any)."""
        return NETWORK

    def locality_blind(self, job: JobState) -> bool:
        """Whether the job is placed first fit, ignoring locality (hook; default: no)."""
        return False

    def allocate(self, state: SchedulerState) -> Decision:
        """Every call is a full decision (``replans_on_events``): running jobs keep their
        grants unless evicted; waiting jobs start in LAS order where their level allows. Jobs
        held back for a better level are named in the decision, which wakes the engine when
        the first of their delay timers expires."""
        now = state.now_s
        tick = state.round_index != self._round_index
        self._round_index = state.round_index
        node_free = list(state.node_free_gpus[:])  # one read of the engine's live view
        if self.tuner is not None:
            self.tuner.arrived(state.arrived)
            self.gamma = self.tuner.retune(now, self.gamma, state.waiting, state.running, node_free)
        board = Board(self.topology, node_free, self.placement)
        allocation: Allocation = {j.index: j.grant for j in state.running if j.grant is not None}
        waiting = sorted(state.waiting, key=lambda j: (self.queue(j), j.arrival_s, j.index))
        evictor = None
        if tick and self.theta < math.inf:
            evictor = Evictor(
                state.running, board, self.model, now, self.restore_s, self.queue, waiting
            )
        held = self._serve(deque(waiting), board, evictor, allocation, now)
        wake_at_s = min(
            (self.next_timer_s(j, now) for j in waiting if j.index in held), default=math.inf
        )
        return Decision(allocation, wake_at_s, frozenset(held))

    def next_timer_s(self, job: JobState, now_s: float) -> float:
        """When a held-back job's allowed level next widens (hook; default: never)."""
        return math.inf

    def _serve(
        self,
        pending: deque[JobState],
        board: Board,
        evictor: Evictor | None,
        allocation: Allocation,
        now_s: float,
    ) -> set[int]:
        """Starts pending jobs in order where their level allows (evicting for sensitive ones
        when ``evictor`` is given); returns the jobs held back for a better level."""
        held: set[int] = set()
        while pending:
            job = pending.popleft()
            room = any(board.type_free[wt] >= job.scale_factor for wt in self._fitting(job))
            sensitive = evictor is not None and job.network_sensitivity >= self.theta
            if not (room or sensitive):
                continue  # no GPUs for it and no eviction to try: skip it cheaply
            allowed = self.allowed_level(job, now_s)
            option = self._pick(job, board, allowed, now_s) if room else None
            if option is None and evictor is not None and sensitive:
                option = self._evict(job, allowed, board, evictor, allocation, pending, now_s)
            if option is not None:
                board.take(option)
                allocation[job.index] = grant_of(option)
            elif room and allowed < NETWORK and self._pick(job, board, NETWORK, now_s) is not None:
                held.add(job.index)  # a worse level is free: held back for consolidation
        return held

    def _fitting(self, job: JobState) -> list[str]:
        return self.topology.fitting_types(job)

    def _pick(self, job: JobState, board: Board, allowed: int, now_s: float) -> Option | None:
        """Fastest placement at a level <= ``allowed`` (first fit on the type with the most
        free GPUs for a locality-blind job)."""
        n = job.scale_factor
        types = [wt for wt in self._fitting(job) if board.type_free[wt] >= n]
        if not types:
            return None
        if self.locality_blind(job):
            widest = max(types, key=lambda wt: board.type_free[wt])
            return board.place(widest, n, first_fit)
        best, best_rate = None, 0.0
        for wt in types:
            option = board.find(wt, n, allowed)
            if option is None:
                continue
            rate = job.steps_per_s[wt] / self.model.slowdowns(job, wt, now_s)[option.level]
            if rate > best_rate:
                best, best_rate = option, rate
        return best

    def _evict(
        self,
        job: JobState,
        allowed: int,
        board: Board,
        evictor: Evictor,
        allocation: Allocation,
        pending: deque[JobState],
        now_s: float,
    ) -> Option | None:
        """Opens a consolidated slot for a sensitive job if it pays (see dally.preempt)."""
        alt = self._pick(job, board, NETWORK, now_s)
        if alt is not None:
            alt_s = self.model.runtime_s(job, alt.worker_type, alt.level, now_s)
        else:
            alt_s = min(self.model.runtime_s(job, wt, NETWORK, now_s) for wt in self._fitting(job))
        plan = evictor.plan(job, allowed, alt_s)
        if plan is None:
            return None
        for victim in plan.victims:
            placement = victim.placement
            assert placement is not None
            del allocation[victim.index]
            evictor.evicted(victim)
            board.give(placement.worker_type, placement.nodes, placement.counts)
            pending.append(victim)
        self.evictions.append((now_s, job.index, tuple(v.index for v in plan.victims)))
        return plan.option

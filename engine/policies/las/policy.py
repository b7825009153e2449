"""Tiresias LAS: discretized two-dimensional least attained service, re-decided every round.

Gu, Chowdhury, Shin, Zhu, Jeon, Qian, Liu, Guo, "Tiresias: A GPU Cluster Manager for Distributed
Deep Learning", NSDI 2019. Attained service is two-dimensional: GPUs x time, in GPU-seconds.
Jobs sit in priority queues by attained service; queue 0 holds the least served.

Reconstructions [R]:

- Queues: thresholds in GPU-seconds (default one threshold, 3600 GPU-s, so two queues; Tiresias
  reports two queues capture most of the benefit). A job is in queue ``q`` when its attained
  service since its last promotion has passed ``q`` thresholds.
- Inside a queue, FIFO by arrival. Jobs are served in queue order; a job that finds no room
  is skipped and later jobs may pass it (no head-of-line blocking).
- ``requeue`` (off by default) orders a queue as the code of Tiresias' and Muri's testbeds does
  (Rivendile/Muri ``cluster_exp/run.py``, ``dlas_sim_jobs``): a job enters at the back of a
  queue when it arrives or is demoted into it, and after every full decision the waiting jobs
  move to the back of their queue (order kept), behind the running ones. So a preempted job
  queues behind those that waited before it, and running jobs of a queue are not preempted by
  waiting jobs of the same queue.
- Starvation (Tiresias's STARVELIMIT): a waiting job that has waited at least ``promote_knob``
  x the length of its last run goes back to queue 0 (its attained service is counted afresh
  from there). ``promote_knob = 0`` disables promotion. Checked at round boundaries.
- Leases: the allocation is recomputed every round, so preemptions happen at round boundaries;
  mid-round, running jobs keep their GPUs and waiting jobs may start on free GPUs (the policy
  then returns only those starts).
- Worker type (heterogeneity-agnostic, as Tiresias): the job's current type if it still has
  room, else the fitting type with the most free GPUs in this allocation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

from engine.errors import ConfigError
from engine.policies.base import (
    POLICIES,
    Allocation,
    Decision,
    Policy,
    PolicyContext,
    SchedulerState,
)
from engine.policies.las.books import Book, TypeSlot
from engine.policies.las.explain import LasExplanation
from engine.policies.las.fill import fill_admit, fill_round
from engine.policies.las.keys import THRESHOLDS_GPU_S, THRESHOLDS_HELP, parse_thresholds, queue_of
from engine.policies.las.promotion import PromotionChecks, promotion_due_s
from engine.policies.las.queues import WaitingQueues
from engine.policies.las.running import RunningBooks
from engine.state import JobState


@dataclass(frozen=True)
class LasParams:
    """Tiresias LAS's knobs (:attr:`TiresiasLas.Params`)."""

    queue_thresholds_gpu_s: str = field(
        default=THRESHOLDS_GPU_S, metadata={"help": THRESHOLDS_HELP}
    )
    promote_knob: float = field(
        default=2.0,
        metadata={"help": "Promote a job waiting > knob x its last run time (0 = never)"},
    )
    requeue: bool = field(
        default=False,
        metadata={
            "help": "Waiting jobs move to the back of their queue after each decision, behind "
            "the running ones, as Tiresias' and Muri's testbed code does (off: FIFO by arrival)"
        },
    )


_LAS_DOC = """Tiresias discretized 2D-LAS: least attained GPU-seconds first, in queues, with
promotion.

Gu et al., NSDI 2019. Non-clairvoyant and heterogeneity-agnostic; preempts at round
boundaries (leases).
"""


class TiresiasLas(Policy):
    cost_s_per_job: ClassVar[float] = 0.000205  # run order: bench_select_all.py
    # Compiled with mypyc: ClassVar attributes, registered after its body with its docstring
    # (_LAS_DOC), as engine.policies.base's module docstring says.
    display_name: ClassVar[str] = "Tiresias LAS"
    group: ClassVar[str] = "Baselines"

    preemptive: ClassVar[bool] = True
    uses_rounds: ClassVar[bool] = True
    needs_sync: ClassVar[bool] = False  # reads running jobs' service itself (las.keys)
    models_failures: ClassVar[bool] = True
    honours_quotas: ClassVar[bool] = True

    Params: ClassVar[type[LasParams]] = LasParams
    explanation: ClassVar[type[LasExplanation]] = LasExplanation

    def __init__(self, params: LasParams, context: PolicyContext) -> None:
        super().__init__(params, context)
        thresholds = parse_thresholds(params.queue_thresholds_gpu_s)
        self._thresholds = thresholds
        if params.promote_knob < 0:
            raise ConfigError("las: promote_knob must be >= 0")
        self.promote_knob: float = params.promote_knob
        self._round_index = -1
        self._books: dict[int, Book] = {}
        self._waiting = WaitingQueues(thresholds, params.requeue)
        self._running = RunningBooks(
            self._books, self._waiting, _KEEP_RUNNING_ORDER, _KEY_MARGIN_GPU_S
        )
        self._checks = PromotionChecks(context.rounds.round_duration_s * _BUCKET_ROUNDS)
        # The worker types' slots, in the cluster's order (built at the first decision from
        # its capacity), which the fill grants from (engine.policies.las.fill).
        self._slots: list[TypeSlot] = []
        self._slot_of: dict[str, TypeSlot] = {}

    def quota_order_key(self, job: JobState) -> float:
        """Under quotas, a ClusterQueue's jobs by LAS queue: the number of thresholds its
        attained GPU-seconds have passed (ties: arrival)."""
        return float(queue_of(self._thresholds, job.attained_service_gpu_s))

    def allocate(self, state: SchedulerState) -> Allocation | Decision:
        """Round boundary: the whole allocation. Mid-round: new starts on free GPUs only."""
        now_s = state.now_s
        books = self._books
        if not self._slots:
            self._slots = [TypeSlot(name, gpus) for name, gpus in state.capacity.items()]
            self._slot_of = {slot.worker_type: slot for slot in self._slots}
        for job in state.arrived:
            book = books[job.index] = Book(job)
            self._waiting.arrive(book, now_s)
        if state.stopped:  # by a failed node (engine.faults): they wait again, as if preempted
            stopped = [books[job.index] for job in state.stopped]
            self._running.stop(stopped)
            self._preempted_from(stopped, now_s)
        if state.round_index == self._round_index:
            return self._admit(state)
        self._round_index = state.round_index
        self._promote(now_s)
        return self._full_round(state)

    def _admit(self, state: SchedulerState) -> Allocation:
        """Mid-round: waiting jobs in queue order onto free GPUs."""
        for slot in self._slots:
            slot.free = 0
        slot_of = self._slot_of
        for worker_type, free in state.free_gpus.items():
            slot_of[worker_type].free = free
        started: list[Book] = []
        allocation = fill_admit(self._waiting.lists, self._slots, self._running.held, started)
        self._waiting.start(started, state.now_s)
        self._running.add_started(started)
        return allocation

    def _full_round(self, state: SchedulerState) -> Allocation | Decision:
        """Round boundary: running and waiting jobs merged in queue order onto every GPU (the
        live capacity: less failed nodes when failures are on)."""
        now_s, capacity = state.now_s, state.capacity
        for slot in self._slots:
            slot.capacity = capacity[slot.worker_type]
        waiting, running = self._waiting, self._running
        in_order = running.in_order(state.running, now_s, self._slot_of)
        granted: list[Book] = []
        started: list[Book] = []
        preempted: list[Book] = []
        lists = (granted, started, preempted)
        fill_round(in_order, waiting.lists, self._slots, running.held, lists)
        waiting.start(started, now_s)  # (first: they leave their queues by their waiting keys)
        if preempted:  # the engine preempts them
            self._preempted_from(preempted, now_s)
        if waiting.requeue:
            waiting.requeue_all()
        running.books = granted
        if waiting.requeued:  # a demotion or promotion: an event for a relaunching testbed
            waiting.requeued = False
            return Decision(running.held, requeued=True)
        return running.held  # the engine reads it before the next decision (see base's contract)

    def _preempted_from(self, preempted: list[Book], now_s: float) -> None:
        """Bookkeeping of the running jobs left without a grant: the engine preempts them."""
        knob = self.promote_knob
        for book in preempted:
            job = book.job
            run_start_s = book.run_start_s
            if math.isnan(run_start_s):  # a run the policy did not start
                run_start_s = job.segment_start_s
            last_run = now_s - run_start_s
            book.run_start_s = math.nan
            book.last_run_s = last_run
            book.since_s = now_s
            if last_run > 0 and knob > 0:
                self._checks.file(book, now_s, promotion_due_s(now_s, last_run, knob))
            self._waiting.enqueue(book, now_s)

    def _promote(self, now_s: float) -> None:
        """Sends starved preempted jobs back to queue 0 (Tiresias's STARVELIMIT; the checks
        falling due, :class:`~engine.policies.las.promotion.PromotionChecks`). The order of
        promotions does not matter: each touches only its own job's entries."""
        for book in self._checks.starved(now_s, self.promote_knob):
            self._waiting.promote(book)


POLICIES.register("las", TiresiasLas, doc=_LAS_DOC)

_KEY_MARGIN_GPU_S = 1.0  # service short of a threshold at which a cached key is recomputed
"""Not Final, so a test can set it to infinity: every key recomputed at every look."""
_BUCKET_ROUNDS = 1.0  # width of a bucket of promotion checks, in rounds
"""Not Final, so a test can set it to infinity: one bucket, every pending check at every round."""
_KEEP_RUNNING_ORDER = True  # the running jobs' order carried from the last decision
"""Not Final, so a test can set it to False: the running jobs looked up and sorted afresh."""

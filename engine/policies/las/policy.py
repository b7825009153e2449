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
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from engine.errors import ConfigError
from engine.policies.base import (
    Allocation,
    Decision,
    Grant,
    Policy,
    PolicyContext,
    SchedulerState,
    register_policy,
)
from engine.policies.las.books import (
    Book,
    TypeSlot,
    book_key,
    insert_by_key,
    position,
)
from engine.policies.las.fill import fill_admit, fill_round, held_grants
from engine.policies.las.keys import KEY_BITS, queue_key, running_key
from engine.policies.las.promotion import PromotionChecks
from engine.state import JobState


def parse_thresholds(text: str) -> tuple[float, ...]:
    """``"3600, 36000"`` -> ``(3600.0, 36000.0)``; empty text means a single queue.

    Raises:
        ConfigError: if a value is not a positive number or the values do not increase.
    """
    try:
        values = tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError as exc:
        raise ConfigError(f"las: queue_thresholds_gpu_s {text!r} is not a list of numbers") from exc
    if any(v <= 0 for v in values) or list(values) != sorted(set(values)):
        raise ConfigError(f"las: queue_thresholds_gpu_s {text!r} must be positive and increasing")
    return values


@dataclass(frozen=True)
class LasParams:
    """Tiresias LAS's knobs (:attr:`TiresiasLas.Params`)."""

    queue_thresholds_gpu_s: str = field(
        default="3600",
        metadata={"help": "Comma-separated queue thresholds in GPU-seconds, increasing"},
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
    # Compiled with mypyc: ClassVar attributes, registered after its body with its docstring
    # (_LAS_DOC), as engine.policies.base's module docstring says.
    display_name: ClassVar[str] = "Tiresias LAS"
    group: ClassVar[str] = "Baselines"

    preemptive: ClassVar[bool] = True
    uses_rounds: ClassVar[bool] = True
    needs_sync: ClassVar[bool] = False  # reads service of running jobs through queue(job, now_s)
    models_failures: ClassVar[bool] = True

    Params: ClassVar[type[LasParams]] = LasParams

    def __init__(self, params: LasParams, context: PolicyContext) -> None:
        super().__init__(params, context)
        self.thresholds: tuple[float, ...] = parse_thresholds(params.queue_thresholds_gpu_s)
        if params.promote_knob < 0:
            raise ConfigError("las: promote_knob must be >= 0")
        self.promote_knob: float = params.promote_knob
        self.requeue: bool = params.requeue
        self._next_order = 0  # the next requeue stamp (under requeue)
        self._requeued = False  # a job changed queues since the last full decision
        self._round_index = -1
        self._books: dict[int, Book] = {}
        # Promotion checks of preempted jobs (engine.policies.las.promotion)
        self._checks = PromotionChecks(context.rounds.round_duration_s * _BUCKET_ROUNDS)
        # Waiting jobs' books, one list per queue, by key (queue << 40 | index; job indices
        # follow arrival order) descending: the jobs served first sit at the list's end, where
        # starts remove them and promotions (old jobs) insert them, so a list shifts few
        # entries (on the full Philly trace queue 0 holds ~2,000 waiting jobs). A waiting
        # job's service is frozen, so its key changes only on promotion.
        self._waiting: list[list[Book]] = [[] for _ in range(len(self.thresholds) + 1)]
        # The running jobs as of the last decision, in key order: the last round boundary's
        # grants (which the fill makes in key order), with the jobs started mid-round among
        # them by their waiting keys.
        self._running_books: list[Book] = []
        self._keep_order: bool = _KEEP_RUNNING_ORDER
        self._key_margin_gpu_s: float = _KEY_MARGIN_GPU_S
        # The running jobs' grants (job index -> grant), which the fill edits into the next
        # allocation (engine.policies.las.fill), and the worker types' slots, in the cluster's
        # order (built at the first decision from its capacity).
        self._held: dict[int, Grant] = {}
        self._slots: list[TypeSlot] = []
        self._slot_of: dict[str, TypeSlot] = {}

    def queue(self, job: JobState, now_s: float) -> int:
        """The job's queue at ``now_s``: 0 = least attained service since its last promotion."""
        return self._queue_key(job, now_s) >> KEY_BITS

    def _queue_key(self, job: JobState, now_s: float) -> int:
        """The job's key at ``now_s``: its queue << :data:`KEY_BITS` | its order (its index,
        or its requeue stamp)."""
        book = self._books.get(job.index)
        order = job.index if book is None else book.order
        return queue_key(self.thresholds, job, self._offset_gpu_s(job), now_s, order)

    def _offset_gpu_s(self, job: JobState) -> float:
        """The job's attained service at its last promotion (0 if never promoted)."""
        book = self._books.get(job.index)
        return 0.0 if book is None else book.offset_gpu_s

    def allocate(self, state: SchedulerState) -> Allocation | Decision:
        """Round boundary: the whole allocation. Mid-round: new starts on free GPUs only."""
        now_s = state.now_s
        books = self._books
        if not self._slots:
            self._slots = [TypeSlot(name, gpus) for name, gpus in state.capacity.items()]
            self._slot_of = {slot.worker_type: slot for slot in self._slots}
        for job in state.arrived:
            book = Book(job)
            if self.requeue:  # at the back of queue 0
                book.order = self._stamp()
            books[job.index] = book
            self._enqueue(book, now_s)
        if state.stopped:
            self._stopped(state.stopped, now_s)
        if state.round_index == self._round_index:
            return self._admit(state)
        self._round_index = state.round_index
        self._promote(now_s)
        return self._full_round(state)

    def _stamp(self) -> int:
        """The next requeue stamp: later than every order given so far."""
        order = self._next_order
        self._next_order = order + 1
        return order

    def _enqueue(self, book: Book, now_s: float) -> None:
        book.key = key = queue_key(self.thresholds, book.job, book.offset_gpu_s, now_s, book.order)
        waiting = self._waiting[key >> KEY_BITS]
        waiting.insert(position(waiting, key), book)

    def _admit(self, state: SchedulerState) -> Allocation:
        """Mid-round: waiting jobs in queue order onto free GPUs."""
        for slot in self._slots:
            slot.free = 0
        slot_of = self._slot_of
        for worker_type, free in state.free_gpus.items():
            slot_of[worker_type].free = free
        started: list[Book] = []
        allocation = fill_admit(self._waiting, self._slots, self._held, started)
        self._started(started, state.now_s)
        running = self._running_books
        for book in started:  # by their waiting keys, which mostly stay their running keys
            insert_by_key(running, book)
        return allocation

    def _stopped(self, stopped: Sequence[JobState], now_s: float) -> None:
        """Jobs a failed node stopped (engine.faults) wait again as if preempted now."""
        books = [self._books[job.index] for job in stopped]
        for book in books:
            self._held.pop(book.index, None)
        gone = {job.index for job in stopped}
        self._running_books = [book for book in self._running_books if book.index not in gone]
        self._preempted_from(books, now_s)

    def _full_round(self, state: SchedulerState) -> Allocation | Decision:
        """Round boundary: running and waiting jobs merged in queue order onto every GPU (the
        live capacity: less failed nodes when failures are on)."""
        now = state.now_s
        capacity = state.capacity
        for slot in self._slots:
            slot.capacity = capacity[slot.worker_type]
        running = self._running_in_order(state.running, now)
        granted: list[Book] = []
        started: list[Book] = []
        preempted: list[Book] = []
        fill_round(running, self._waiting, self._slots, self._held, (granted, started, preempted))
        self._started(started, now)  # (first: it pops the started books at the fill's positions)
        if preempted:  # the engine preempts them
            self._preempted_from(preempted, now)
        if self.requeue:
            self._requeue_waiting()
        self._running_books = granted
        if self._requeued:  # a demotion or promotion: an event for a relaunching testbed
            self._requeued = False
            return Decision(self._held, requeued=True)
        return self._held  # the engine reads it before the next decision (see base's contract)

    def _requeue_waiting(self) -> None:
        """``requeue``: every waiting job to the back of its queue, their order kept (new stamps
        in key order; each list, by key descending, stays sorted)."""
        for waiting in self._waiting:
            for at in range(len(waiting) - 1, -1, -1):
                book = waiting[at]
                book.order = self._stamp()
                book.key = ((book.key >> KEY_BITS) << KEY_BITS) | book.order

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
                self._checks.file(book, now_s, now_s + knob * last_run)
            self._enqueue(book, now_s)

    def _running_in_order(self, running: Collection[JobState], now_s: float) -> list[Book]:
        """The books of the running jobs, sorted by key.

        They are the last decision's running books still placed (a completed job has left:
        the engine clears its placement), checked against the engine's count of running jobs
        (else every running job's book is looked up). A running job's key changes only when
        its service crosses a threshold, so each key is kept with a time before which it
        cannot change (:func:`~engine.policies.las.keys.running_key`) and recomputed exactly
        after it. Mid-round starts sit among them by their waiting keys. The books whose key
        changed or breaks the order are bisected into the others, which are in order already
        (a sort with a key function calls out per book).
        """
        if self._keep_order:
            in_order, moved = self._carried_in_order(now_s)
            if len(in_order) + len(moved) == len(running):
                for book in moved:  # each bisected into place (keys are unique)
                    insert_by_key(in_order, book)
                return in_order
        by_index, thresholds, margin = self._books, self.thresholds, self._key_margin_gpu_s
        books = [by_index[job.index] for job in running]
        self._held = held_grants(books, self._slot_of)
        for book in books:
            if now_s >= book.until_s:
                self._rekey_running(book, now_s, thresholds, margin)
        books.sort(key=book_key)
        return books

    def _carried_in_order(self, now_s: float) -> tuple[list[Book], list[Book]]:
        """The last decision's running books still placed, keys brought up to date: those in
        the carried order, and those whose key changed or breaks it. The grants of the books
        no longer placed leave ``_held``."""
        held, thresholds, previous = self._held, self.thresholds, -1
        margin = self._key_margin_gpu_s
        in_order: list[Book] = []
        moved: list[Book] = []
        for book in self._running_books:
            job = book.job
            if job.placement is None:  # completed (or never placed): its grant is gone
                held.pop(book.index, None)
                continue
            key = book.key
            if now_s >= book.until_s:
                self._rekey_running(book, now_s, thresholds, margin)
            if book.key != key or key < previous:
                moved.append(book)
            else:
                in_order.append(book)
                previous = key
        return in_order, moved

    def _rekey_running(
        self, book: Book, now_s: float, thresholds: tuple[float, ...], margin: float
    ) -> None:
        """A running book's key and until_s brought up to ``now_s``; under ``requeue`` a job
        demoted into another queue enters it at the back (a new stamp)."""
        key = book.key
        book.key, book.until_s = running_key(
            thresholds, book.job, book.offset_gpu_s, now_s, margin, book.order
        )
        if book.key >> KEY_BITS != key >> KEY_BITS:
            self._requeued = True
            if self.requeue:
                book.order = self._stamp()
                book.key = ((book.key >> KEY_BITS) << KEY_BITS) | book.order

    def _running_key(self, job: JobState, now_s: float) -> tuple[int, float]:
        """A running job's key and a time before which it cannot change
        (:func:`~engine.policies.las.keys.running_key`)."""
        book = self._books.get(job.index)
        order = job.index if book is None else book.order
        offset_gpu_s = self._offset_gpu_s(job)
        return running_key(self.thresholds, job, offset_gpu_s, now_s, self._key_margin_gpu_s, order)

    def _started(self, started: list[Book], now_s: float) -> None:
        """Bookkeeping of the waiting jobs the allocation starts (each touches only its own
        entries). They leave their queues at the positions the fill found them at, which hold
        while they are popped in the fill's order (from each list's end; else bisected)."""
        queues = self._waiting
        for book in started:
            key = book.key  # out of the waiting queue
            waiting = queues[key >> KEY_BITS]
            at = book.at
            if not (0 <= at < len(waiting) and waiting[at] is book):
                at = position(waiting, key)
            waiting.pop(at)
            book.run_start_s = now_s
            book.since_s = math.nan
            book.until_s = -math.inf  # its key is computed at the next round boundary

    def _promote(self, now_s: float) -> None:
        """Sends starved preempted jobs back to queue 0 (Tiresias's STARVELIMIT; the checks
        falling due, :class:`~engine.policies.las.promotion.PromotionChecks`). The order of
        promotions does not matter: each touches only its own job's entries."""
        queues = self._waiting
        for book in self._checks.starved(now_s, self.promote_knob):
            # out of its queue and into queue 0: it holds no GPUs and its service counts
            # afresh (attained - offset = 0, below every threshold; _enqueue would agree)
            key = book.key
            waiting = queues[key >> KEY_BITS]
            waiting.pop(position(waiting, key))
            self._requeued = True
            if self.requeue:  # at the back of queue 0
                book.order = self._stamp()
            book.key = key = book.order
            waiting = queues[0]
            waiting.insert(position(waiting, key), book)


register_policy("las", doc=_LAS_DOC)(TiresiasLas)

_KEY_MARGIN_GPU_S = 1.0  # service short of a threshold at which a cached key is recomputed
"""Not Final, so a test can set it to infinity: every key recomputed at every look."""
_BUCKET_ROUNDS = 1.0  # width of a bucket of promotion checks, in rounds
"""Not Final, so a test can set it to infinity: one bucket, every pending check at every round."""
_KEEP_RUNNING_ORDER = True  # the running jobs' order carried from the last decision
"""Not Final, so a test can set it to False: the running jobs looked up and sorted afresh."""

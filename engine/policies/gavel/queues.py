"""Gavel's own round mechanism, as its simulator runs it (used under ``RoundConfig.gavel_rules``).

Narayanan et al., OSDI 2020; the rules are those of ``_update_priorities``,
``_reset_time_run_so_far`` and ``_schedule_jobs_on_workers`` in stanford-futuredata/gavel
(``scheduler/scheduler.py``, commit c4fa400, MIT), modelled in our own code:

- *Solves.* The allocation ``X`` is recomputed at a round boundary only when the job set changed
  since the last solve and ``reallocation_interval_s`` (Gavel: 1920 s) has passed since it, or
  while the last solve was at time 0 (Gavel's "never reset" sentinel). Jobs that arrived since
  the last solve have no row in ``X``.
- *Time received.* Per job and worker type, the time it ran since the last solve, starting at
  half a round; per worker type, the sum over jobs (counting those half rounds of the jobs
  present at the solve). Each granted micro-task adds its running time.
- *Deficits.* At every solve, each job's deficit on each type grows by ``X_old x elapsed`` minus
  the time it received since the previous solve.
- *Priority* on a type: ``X / (time received / type's total)``; 0 when ``X`` is 0, the job does
  not run there, or it has no row in ``X``.
- *Queues.* One queue per worker type, sorted by (priority, deficit, X), largest first, ties in
  arrival order. The types are walked in turn: v100, p100, k80 (then any other type, in cluster
  order) for the heterogeneity-aware policies, a fresh random order each round for the agnostic
  ones. A job takes the first type whose queue reaches it with ``scale_factor`` GPUs left.
- *Late arrivals.* A job with no row in ``X`` can be picked (and uses up its GPUs for the round)
  but is not started: its GPUs stay idle until the next round.
- FIFO (``skip_zero_priority``) never picks a zero-priority pair.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from engine.policies.base import Allocation, SchedulerState
from engine.policies.gavel.book import RoundBook
from engine.policies.gavel.priority import GrantTable, active_in_order
from engine.state import JobState

GAVEL_TYPE_ORDER = ("v100", "p100", "k80")  # Gavel's fill order for the _perf policies
_NEVER_RUN_PRIORITY = 1e9  # Gavel's "infinite" priority scale when no time was received

SolveFn = Callable[[float, list[JobState], np.ndarray], np.ndarray]
"""The policy's LP: time (s), active jobs, their rows in the book -> X (n, K)."""


class QueueRow:
    """One job's state in Gavel's queues: lists with one float per worker type (s, steps/s).

    Attributes:
        throughputs: steps/s on each type at the job's scale factor (0 where it cannot run;
            the book's row, :attr:`RoundBook.throughput_rows`).
        job_time: time received on each type since the last solve (s), from half a round.
        deficit: Gavel's deficit on each type (s).
        shares: the job's row of the last ``X``; None when it was not in the last solve.
    """

    def __init__(self, throughputs: list[float], initial_s: float) -> None:
        self.throughputs = throughputs
        self.job_time = [initial_s] * len(throughputs)
        self.deficit = [0.0] * len(throughputs)
        self.shares: list[float] | None = None


class GavelQueues:
    """Per-job time received, deficits and the last ``X``; one object per policy run.

    One :class:`QueueRow` of Python lists per job in the system: a round touches a few dozen
    jobs one at a time, where numpy's per-call cost would dominate; the arithmetic per element
    is Gavel's per-job update. Compiled with mypyc (:mod:`engine.native`).

    Args:
        worker_types: the cluster's worker types, in cluster order (columns of ``X``).
        capacity: (K,) GPUs per type.
        round_s: round length (s); jobs start each solve with half a round received.
        interval_s: least time between solves (s).
        aware: walk the types in Gavel's fixed order (else a random order per round).
        rng: the run's generator (random type order).
        skip_zero_priority: Gavel's FIFO rule.
        book: the policy's rows (static job data the LP reads).
        solve: the policy's LP (:data:`SolveFn`).
    """

    def __init__(
        self,
        worker_types: Sequence[str],
        capacity: np.ndarray,
        round_s: float,
        interval_s: float,
        aware: bool,
        rng: np.random.Generator,
        skip_zero_priority: bool,
        book: RoundBook,
        solve: SolveFn,
    ) -> None:
        self.book = book
        self.solve = solve
        self.worker_types: list[str] = list(worker_types)
        self.capacity: list[int] = np.asarray(capacity).astype(int).tolist()
        self.round_s = float(round_s)
        self.interval_s = float(interval_s)
        self.aware = aware
        self.rng = rng
        self.skip_zero_priority = skip_zero_priority
        self.initial_s = self.round_s / 2.0
        self.worker_time = [0.0] * len(self.worker_types)  # per type, since the last solve (s)
        self.rows: dict[int, QueueRow] = {}  # job index -> row, for the jobs of the last round
        self.solved: frozenset[int] | None = None
        self.last_solve_s = 0.0
        fixed = [wt for wt in GAVEL_TYPE_ORDER if wt in self.worker_types]
        rest = [wt for wt in self.worker_types if wt not in fixed]
        self.fixed_order: list[int] = [self.worker_types.index(wt) for wt in fixed + rest]
        self._grants = GrantTable(self.worker_types)

    def force_reallocation(self) -> None:
        """Gavel's reset when nothing runs and nothing arrives: the next round re-solves."""
        self.last_solve_s = 0.0

    def allocate(self, state: SchedulerState) -> Allocation:
        """One round (Gavel's loop calls the policy at round boundaries only): re-solve if
        due, then walk the queues."""
        jobs, indices = active_in_order(state.waiting, state.running)
        self.book.register(indices, jobs)  # jobs seen first get their static rows
        return self.decide(state.now_s, jobs, indices)

    def decide(self, now_s: float, jobs: list[JobState], indices: list[int]) -> Allocation:
        """:meth:`allocate` of the active jobs ``jobs`` (arrival order) and their indices."""
        rows = self._track(jobs)
        due = now_s - self.last_solve_s >= self.interval_s or self.last_solve_s == 0.0
        if due:
            active = frozenset([job.index for job in jobs])
            if active != self.solved:
                self._reset(now_s, rows)
                if jobs:
                    rows_x = np.array(indices, dtype=np.int64)
                    solved: list[list[float]] = self.solve(now_s, jobs, rows_x).tolist()
                    for row, shares in zip(rows, solved, strict=True):
                        row.shares = shares
                self.solved = active
                self.last_solve_s = now_s
        if not jobs:
            return {}
        return self._walk(jobs, rows)

    def _track(self, jobs: list[JobState]) -> list[QueueRow]:
        """The jobs' rows: new jobs get one (half a round received, no deficit, no row in
        ``X``); the rows of jobs gone since the last round are dropped."""
        known = self.rows
        rows: list[QueueRow] = []
        for job in jobs:
            row = known.get(job.index)
            if row is None:
                row = QueueRow(self.book.throughput_rows[job.index], self.initial_s)
                known[job.index] = row
            rows.append(row)
        if len(known) != len(jobs):
            current = {job.index for job in jobs}
            for index in [index for index in known if index not in current]:
                del known[index]
        return rows

    def _reset(self, now_s: float, rows: list[QueueRow]) -> None:
        """Deficits grow by what each job should have had minus what it had; times restart;
        every job's row of ``X`` goes (the solve that follows gives the new ones)."""
        elapsed_s = now_s - self.last_solve_s
        initial_s = self.initial_s
        num_types = len(self.worker_types)
        for row in rows:
            received, deficit, shares = row.job_time, row.deficit, row.shares
            for k in range(num_types):
                owed = shares[k] * elapsed_s if shares is not None else 0.0
                deficit[k] += owed - (received[k] - initial_s)
            row.job_time = [initial_s] * num_types
            row.shares = None
        self.worker_time = [initial_s * len(rows)] * num_types

    def _type_order(self) -> list[int]:
        if self.aware:
            return self.fixed_order
        order = list(range(len(self.worker_types)))
        self.rng.shuffle(order)  # the draws of rng.permutation: the same Fisher-Yates pass
        return order

    def _walk(self, jobs: list[JobState], rows: list[QueueRow]) -> Allocation:
        """The per-type queues, walked type after type (module docstring). A type's queue
        holds only the jobs it could still take (not picked, runnable there, a gang that fits
        the GPUs left, a positive priority under FIFO): the rest would be passed over.

        A type's priorities are computed when its queue is walked: booking a micro-task
        changes only the times of the type being walked, so they are those of the round's
        start."""
        left = list(self.capacity)
        picked = [False] * len(jobs)
        allocation: Allocation = {}
        for col in self._type_order():
            if left[col] <= 0:
                continue
            for i in self._candidates(jobs, rows, picked, col, left[col]):
                if left[col] <= 0:
                    break
                job = jobs[i]
                if job.scale_factor > left[col]:
                    continue
                left[col] -= job.scale_factor
                picked[i] = True
                row = rows[i]
                if row.shares is not None:
                    allocation[job.index] = self._grants.of(col, job.scale_factor)
                    self._book(job, row, col)
        return allocation

    def _candidates(
        self, jobs: list[JobState], rows: list[QueueRow], picked: list[bool], col: int, room: int
    ) -> list[int]:
        """Positions of the jobs type column ``col`` could take, in its queue's order: by
        (priority, deficit, X), largest first, ties in arrival (position) order."""
        skip_zero = self.skip_zero_priority
        total = self.worker_time[col]
        keyed: list[tuple[float, float, float, int]] = []
        for i in range(len(rows)):
            if picked[i]:
                continue
            row = rows[i]
            if row.throughputs[col] <= 0 or jobs[i].scale_factor > room:
                continue
            shares = row.shares
            share = shares[col] if shares is not None else 0.0
            priority = 0.0
            if share > 0:  # then the job has a row in X and runs on the type
                fraction = row.job_time[col] / total if total > 0 else 0.0
                priority = share / fraction if fraction > 0 else share * _NEVER_RUN_PRIORITY
            if skip_zero and priority <= 0:
                continue
            keyed.append((-priority, -row.deficit[col], -share, i))
        keyed.sort()  # the queue's keys, then position: a stable sort by the keys
        return [key[3] for key in keyed]

    def _book(self, job: JobState, row: QueueRow, col: int) -> None:
        """Adds the running time of the job's coming micro-task (Gavel books it at its end):
        ``min(floor(steps/s x round), remaining) / steps/s``."""
        steps_per_s = row.throughputs[col]
        floor_steps = float(math.floor(steps_per_s * self.round_s))  # exact: a float's floor
        remaining = job.remaining_steps
        steps = floor_steps if floor_steps <= remaining else remaining  # min(), as Gavel
        run_s = steps / steps_per_s
        row.job_time[col] += run_s
        self.worker_time[col] += run_s

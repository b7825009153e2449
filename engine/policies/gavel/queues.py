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

from engine.policies.base import Allocation, Grant
from engine.state import JobState

GAVEL_TYPE_ORDER = ("v100", "p100", "k80")  # Gavel's fill order for the _perf policies
_NEVER_RUN_PRIORITY = 1e9  # Gavel's "infinite" priority scale when no time was received
_LISTS_UP_TO = 16  # jobs up to which a round's queues are ranked in Python lists

SolveFn = Callable[[list[JobState]], np.ndarray]


class GavelQueues:
    """Per-job time received, deficits and the last ``X``; one object per policy run.

    Kept as arrays with one row per job index (grown on demand), so a round gathers them with
    one fancy index each; the arithmetic per element is the same as Gavel's per-job updates.

    Args:
        worker_types: the cluster's worker types, in cluster order (columns of ``X``).
        capacity: (K,) GPUs per type.
        round_s: round length (s); jobs start each solve with half a round received.
        interval_s: least time between solves (s).
        aware: walk the types in Gavel's fixed order (else a random order per round).
        rng: the run's generator (random type order).
        skip_zero_priority: Gavel's FIFO rule.
    """

    job_time: np.ndarray  # (rows, K) time received on each type since the last solve (s)
    deficit: np.ndarray  # (rows, K) Gavel's deficits (s)
    shares: np.ndarray  # (rows, K) the last X (0 for jobs outside the last solve)
    has_share: np.ndarray  # (rows,) in the last solve

    def __init__(
        self,
        worker_types: Sequence[str],
        capacity: np.ndarray,
        round_s: float,
        interval_s: float,
        aware: bool,
        rng: np.random.Generator,
        skip_zero_priority: bool = False,
    ) -> None:
        self.worker_types = list(worker_types)
        self.capacity = capacity
        self.round_s = round_s
        self.interval_s = interval_s
        self.aware = aware
        self.rng = rng
        self.skip_zero_priority = skip_zero_priority
        self.initial_s = round_s / 2.0
        self.worker_time = [0.0] * len(self.worker_types)  # per type, since the last solve (s)
        self._present: set[int] = set()  # job indices in the system at the last round
        self._grow(0)
        self.solved: frozenset[int] | None = None
        self.last_solve_s = 0.0
        fixed = [wt for wt in GAVEL_TYPE_ORDER if wt in self.worker_types]
        rest = [wt for wt in self.worker_types if wt not in fixed]
        self.fixed_order = [self.worker_types.index(wt) for wt in fixed + rest]
        self._grants: dict[tuple[int, int], Grant] = {}

    def _grow(self, size: int) -> None:
        """Arrays for job indices below ``size`` (at least twice the old size)."""
        num_types = len(self.worker_types)
        old = self.has_share.size if hasattr(self, "has_share") else 0
        size = max(size, 2 * old, 256)
        for name, dtype in (("job_time", float), ("deficit", float), ("shares", float)):
            array = np.zeros((size, num_types), dtype=dtype)
            if old:
                array[:old] = getattr(self, name)
            setattr(self, name, array)
        has_share = np.zeros(size, dtype=bool)
        if old:
            has_share[:old] = self.has_share
        self.has_share = has_share

    def force_reallocation(self) -> None:
        """Gavel's reset when nothing runs and nothing arrives: the next round re-solves."""
        self.last_solve_s = 0.0

    def decide(
        self,
        now_s: float,
        jobs: list[JobState],
        throughputs: np.ndarray,
        solve: SolveFn,
        rows: np.ndarray | None = None,
    ) -> Allocation:
        """One round: re-solve if due, then walk the queues.

        Args:
            jobs: active jobs in arrival order.
            throughputs: (len(jobs), K) steps/s at each job's scale factor.
            solve: returns ``X`` (len(jobs), K) for the jobs it is given.
            rows: (len(jobs),) the jobs' indices, if the caller has them.
        """
        if rows is None:
            rows = np.fromiter((job.index for job in jobs), dtype=np.int64, count=len(jobs))
        self._track(rows)
        active = frozenset(rows.tolist())
        due = now_s - self.last_solve_s >= self.interval_s or self.last_solve_s == 0.0
        if active != self.solved and due:
            self._reset(now_s, rows)
            shares = solve(jobs) if jobs else np.zeros((0, len(self.worker_types)))
            self.shares[self.has_share] = 0.0  # jobs left out of the solve have no row in X
            self.has_share[:] = False
            self.shares[rows], self.has_share[rows] = shares, True
            self.solved = active
            self.last_solve_s = now_s
        return self._walk(jobs, rows, throughputs)

    def _track(self, rows: np.ndarray) -> None:
        """Rows for new jobs (half a round received, no deficit); finished jobs are dropped."""
        indices = rows.tolist()
        if indices and max(indices) >= self.has_share.size:
            self._grow(max(indices) + 1)
        present = self._present
        new = [index for index in indices if index not in present]
        self._present = set(indices)
        if new:
            self.job_time[new] = self.initial_s
            self.deficit[new] = 0.0

    def _reset(self, now_s: float, rows: np.ndarray) -> None:
        """Deficits grow by what each job should have had minus what it had; times restart."""
        elapsed_s = now_s - self.last_solve_s
        received = self.job_time[rows]
        owed = np.where(self.has_share[rows, None], self.shares[rows] * elapsed_s, 0.0)
        self.deficit[rows] += owed - (received - self.initial_s)
        self.job_time[rows] = self.initial_s
        self.worker_time = [self.initial_s * rows.size] * len(self.worker_types)

    def _priorities(self, rows: np.ndarray, throughputs: np.ndarray) -> np.ndarray:
        """(len(rows), K) Gavel priorities (module docstring)."""
        shares, received = self.shares[rows], self.job_time[rows]
        worker_time = np.array(self.worker_time)
        fraction = np.divide(
            received, worker_time, out=np.zeros_like(received), where=worker_time > 0
        )
        priority = shares * _NEVER_RUN_PRIORITY  # where nothing was received yet
        np.divide(shares, fraction, out=priority, where=fraction > 0)
        usable = self.has_share[rows, None] & (shares > 0) & (throughputs > 0)
        return np.where(usable, priority, 0.0)

    def _priority_lists(
        self, rows: np.ndarray, throughputs: list[list[float]]
    ) -> tuple[list[list[float]], list[list[float]], list[list[float]]]:
        """(priority, deficit, X) rows of the jobs, as lists: :meth:`_priorities` with the same
        float operations, for a few jobs (numpy's per-call cost dominates there)."""
        shares, deficits = self.shares[rows].tolist(), self.deficit[rows].tolist()
        received, has_share = self.job_time[rows].tolist(), self.has_share[rows].tolist()
        worker_time = self.worker_time
        priorities = []
        for share_row, received_row, tput_row, has in zip(
            shares, received, throughputs, has_share, strict=True
        ):
            row = []
            for share, got, total, tput in zip(
                share_row, received_row, worker_time, tput_row, strict=True
            ):
                if not (has and share > 0 and tput > 0):
                    row.append(0.0)
                    continue
                fraction = got / total if total > 0 else 0.0
                row.append(share / fraction if fraction > 0 else share * _NEVER_RUN_PRIORITY)
            priorities.append(row)
        return priorities, deficits, shares

    def _type_order(self) -> list[int]:
        if self.aware:
            return self.fixed_order
        order = list(range(len(self.worker_types)))
        self.rng.shuffle(order)  # the draws of rng.permutation: the same Fisher-Yates pass
        return order

    def _queues(
        self, rows: np.ndarray, throughputs: np.ndarray
    ) -> tuple[list[list[float]], Callable[[int], list[int]]]:
        """(priority rows as lists, the queue of a type column): job positions by (priority,
        deficit, X) largest first, ties in arrival order; in Python lists up to
        :data:`_LISTS_UP_TO` jobs, else with numpy (the same keys and order)."""
        if rows.size <= _LISTS_UP_TO:
            priority, deficit, shares = self._priority_lists(rows, throughputs.tolist())
            positions = range(len(priority))

            def queue_lists(col: int) -> list[int]:  # sorted is stable, as lexsort
                return sorted(
                    positions, key=lambda i: (-priority[i][col], -deficit[i][col], -shares[i][col])
                )

            return priority, queue_lists
        share_array, deficit_array = self.shares[rows], self.deficit[rows]
        priority_array = self._priorities(rows, throughputs)

        def queue_numpy(col: int) -> list[int]:  # lexsort is stable: ties keep arrival order
            keys = (-share_array[:, col], -deficit_array[:, col], -priority_array[:, col])
            order: list[int] = np.lexsort(keys).tolist()
            return order

        return priority_array.tolist(), queue_numpy

    def _walk(self, jobs: list[JobState], rows: np.ndarray, throughputs: np.ndarray) -> Allocation:
        """The per-type queues, walked type after type (module docstring)."""
        if not jobs:
            return {}
        priority, queue = self._queues(rows, throughputs)
        tput = throughputs.tolist()
        has_share = self.has_share[rows].tolist()
        left = self.capacity.astype(int).tolist()
        picked = [False] * len(jobs)
        allocation: Allocation = {}
        for col in self._type_order():
            for i in queue(col):
                if left[col] <= 0:
                    break
                if picked[i] or tput[i][col] <= 0:
                    continue
                if self.skip_zero_priority and priority[i][col] <= 0:
                    continue
                job = jobs[i]
                if job.scale_factor > left[col]:
                    continue
                left[col] -= job.scale_factor
                picked[i] = True
                if has_share[i]:
                    allocation[job.index] = self._grant(col, job.scale_factor)
                    self._book(job, col, tput[i][col])
        return allocation

    def _grant(self, col: int, num_gpus: int) -> Grant:
        """The grant of ``num_gpus`` GPUs of type column ``col`` (one object per pair)."""
        grant = self._grants.get((col, num_gpus))
        if grant is None:
            grant = self._grants[col, num_gpus] = Grant(self.worker_types[col], num_gpus)
        return grant

    def _book(self, job: JobState, col: int, steps_per_s: float) -> None:
        """Adds the running time of the job's coming micro-task (Gavel books it at its end)."""
        steps = min(math.floor(steps_per_s * self.round_s), job.remaining_steps)
        run_s = steps / steps_per_s
        self.job_time[job.index, col] += run_s
        self.worker_time[col] += run_s

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

SolveFn = Callable[[list[JobState]], np.ndarray]


class GavelQueues:
    """Per-job time received, deficits and the last ``X``; one object per policy run.

    Args:
        worker_types: the cluster's worker types, in cluster order (columns of ``X``).
        capacity: (K,) GPUs per type.
        round_s: round length (s); jobs start each solve with half a round received.
        interval_s: least time between solves (s).
        aware: walk the types in Gavel's fixed order (else a random order per round).
        rng: the run's generator (random type order).
        skip_zero_priority: Gavel's FIFO rule.
    """

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
        num_types = len(self.worker_types)
        self.job_time: dict[int, np.ndarray] = {}
        self.deficit: dict[int, np.ndarray] = {}
        self.shares: dict[int, np.ndarray] = {}
        self.worker_time = np.zeros(num_types)
        self.solved: frozenset[int] | None = None
        self.last_solve_s = 0.0
        fixed = [wt for wt in GAVEL_TYPE_ORDER if wt in self.worker_types]
        rest = [wt for wt in self.worker_types if wt not in fixed]
        self.fixed_order = [self.worker_types.index(wt) for wt in fixed + rest]

    def force_reallocation(self) -> None:
        """Gavel's reset when nothing runs and nothing arrives: the next round re-solves."""
        self.last_solve_s = 0.0

    def decide(
        self, now_s: float, jobs: list[JobState], throughputs: np.ndarray, solve: SolveFn
    ) -> Allocation:
        """One round: re-solve if due, then walk the queues.

        Args:
            jobs: active jobs in arrival order.
            throughputs: (len(jobs), K) steps/s at each job's scale factor.
            solve: returns ``X`` (len(jobs), K) for the jobs it is given.
        """
        self._track(jobs)
        active = frozenset(job.index for job in jobs)
        due = now_s - self.last_solve_s >= self.interval_s or self.last_solve_s == 0.0
        if active != self.solved and due:
            self._reset(now_s)
            shares = solve(jobs) if jobs else np.zeros((0, len(self.worker_types)))
            self.shares = {job.index: shares[i] for i, job in enumerate(jobs)}
            self.solved = active
            self.last_solve_s = now_s
        return self._walk(jobs, throughputs)

    def _track(self, jobs: list[JobState]) -> None:
        """Adds rows for new jobs (half a round received) and drops finished ones."""
        num_types = len(self.worker_types)
        current = {job.index for job in jobs}
        for index in [i for i in self.job_time if i not in current]:
            del self.job_time[index], self.deficit[index]
        for job in jobs:
            if job.index not in self.job_time:
                self.job_time[job.index] = np.full(num_types, self.initial_s)
                self.deficit[job.index] = np.zeros(num_types)

    def _reset(self, now_s: float) -> None:
        """Deficits grow by what each job should have had minus what it had; times restart."""
        elapsed_s = now_s - self.last_solve_s
        for index, received in self.job_time.items():
            should = self.shares.get(index)
            owed = 0.0 if should is None else should * elapsed_s
            self.deficit[index] += owed - (received - self.initial_s)
            received[:] = self.initial_s
        self.worker_time[:] = self.initial_s * len(self.job_time)

    def _priorities(
        self, jobs: list[JobState], throughputs: np.ndarray, shares: np.ndarray
    ) -> np.ndarray:
        """(len(jobs), K) Gavel priorities (module docstring); ``shares`` is ``X`` per job."""
        known = np.array([job.index in self.shares for job in jobs])
        received = np.array([self.job_time[job.index] for job in jobs])
        fraction = np.divide(
            received, self.worker_time, out=np.zeros_like(received), where=self.worker_time > 0
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            priority = np.where(fraction > 0, shares / fraction, shares * _NEVER_RUN_PRIORITY)
        usable = known[:, None] & (shares > 0) & (throughputs > 0)
        return np.where(usable, priority, 0.0)

    def _type_order(self) -> list[int]:
        if self.aware:
            return self.fixed_order
        return [int(col) for col in self.rng.permutation(len(self.worker_types))]

    def _walk(self, jobs: list[JobState], throughputs: np.ndarray) -> Allocation:
        """The per-type queues, walked type after type (module docstring)."""
        if not jobs:
            return {}
        zeros = np.zeros(len(self.worker_types))
        shares = np.array([self.shares.get(job.index, zeros) for job in jobs])
        priority = self._priorities(jobs, throughputs, shares)
        deficit = np.array([self.deficit[job.index] for job in jobs])
        left = self.capacity.astype(int).tolist()
        picked: set[int] = set()
        allocation: Allocation = {}
        for col in self._type_order():
            # (priority, deficit, X) largest first; lexsort is stable: ties keep arrival order
            queue = np.lexsort((-shares[:, col], -deficit[:, col], -priority[:, col]))
            col_priority, col_tput = priority[:, col].tolist(), throughputs[:, col].tolist()
            for i in queue.tolist():
                job = jobs[i]
                if left[col] <= 0:
                    break
                if job.index in picked or col_tput[i] <= 0:
                    continue
                if self.skip_zero_priority and col_priority[i] <= 0:
                    continue
                if job.scale_factor > left[col]:
                    continue
                left[col] -= job.scale_factor
                picked.add(job.index)
                if job.index in self.shares:
                    allocation[job.index] = Grant(self.worker_types[col], job.scale_factor)
                    self._book(job, col, throughputs[i, col])
        return allocation

    def _book(self, job: JobState, col: int, steps_per_s: float) -> None:
        """Adds the running time of the job's coming micro-task (Gavel books it at its end)."""
        steps = min(math.floor(steps_per_s * self.round_s), job.remaining_steps)
        run_s = steps / steps_per_s
        self.job_time[job.index][col] += run_s
        self.worker_time[col] += run_s

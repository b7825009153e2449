"""Our round mechanism for Gavel's policies: time shares served round by round.

Narayanan et al., OSDI 2020, §5: each round, the (job, worker type) pairs are ranked by
``X[j, k] / received[j, k]`` and granted greedily (:mod:`engine.policies.gavel.priority`, the
one copy of that rule). Reconstructions [R] (see :mod:`engine.policies.gavel.max_min`):

- ``received[j, k]`` = rounds job ``j`` held type ``k`` / rounds it has been in the system, both
  counted from the job's arrival and never reset when the LP is re-solved.
- One LP solve serves until the active job set changes *and* ``reallocation_interval_s`` has
  passed; at once when no active job has a share left (the cluster would idle).
- Mid-round calls (admissions on free GPUs, when the scenario allows them) grant, in the round's
  priority order, the jobs the boundary left waiting, then (with ``work_conserving``) the jobs
  that arrived since the boundary; they return only those starts. A mid-round start counts as
  the rest of the round.

Compiled with mypyc (:mod:`engine.native`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from engine.config import RoundConfig
from engine.policies.base import Allocation, SchedulerState
from engine.policies.gavel.book import RoundBook
from engine.policies.gavel.priority import (
    ActiveJobs,
    GrantTable,
    grant_each,
    grant_in_order,
    is_waiting,
    ranked_pairs,
)
from engine.state import JobState

StoreShares = Callable[[float, list[JobState], list[int]], None]
"""Solves the policy's LP for the active jobs (and their indices) at a time (s) and stores the
shares in the book."""


class ShareRounds:
    """Our round mechanism (module docstring): one object per policy run.

    Args:
        book: the policy's rows (shares, rounds received).
        worker_types: the cluster's worker types (the book's columns).
        rounds: the scenario's round length and reallocation interval.
        work_conserving: grant jobs without a share the GPUs left after all shares.
        store_shares: the policy's LP solve (:data:`StoreShares`).
    """

    def __init__(
        self,
        book: RoundBook,
        worker_types: list[str],
        rounds: RoundConfig,
        work_conserving: bool,
        store_shares: StoreShares,
    ) -> None:
        self.book = book
        self.worker_types = worker_types
        self.round_s = float(rounds.round_duration_s)
        self.interval_s = float(rounds.reallocation_interval_s)
        self.work_conserving = work_conserving
        self.store_shares = store_shares
        self._solved_jobs: list[int] | None = None  # job indices of the last solve
        self._last_solve_s = -math.inf
        self._round_index = -1
        self._active = ActiveJobs()
        self._round_jobs: list[JobState] = []  # this round's active jobs
        self._round_indices: list[int] = []  # and their indices
        self._ranked: tuple[list[int], list[int]] = ([], [])  # this round's ranked pairs
        self._waiting: list[bool] | None = None  # per round job: may a mid-round pass grant it
        self._recheck: list[int] = []  # positions granted by the last mid-round pass
        self._late: list[JobState] = []  # jobs that arrived since the round began
        self._grants = GrantTable(worker_types)

    def force_reallocation(self) -> None:
        """Nothing to do: this mechanism re-solves at once when no job has a share left."""

    def allocate(self, state: SchedulerState) -> Allocation:
        if state.round_index != self._round_index:
            return self._new_round(state)
        return self._mid_round(state)

    def _new_round(self, state: SchedulerState) -> Allocation:
        """Round boundary: re-solve if due, then grant in priority order and count the round."""
        self._round_index = state.round_index
        self._active.add_arrivals(state.arrived)
        jobs, indices = self._active.at_boundary(state.waiting, state.running)
        self._late = []
        self._waiting = None
        self._recheck = []
        self._round_jobs, self._round_indices = jobs, indices
        self._ranked = ([], [])
        if not jobs:
            return {}
        book = self.book
        book.register(indices, jobs)
        self._maybe_solve(state.now_s, jobs, indices)
        # the pairs with a share in priority order; each job's round in the system counted
        ranked_pos, ranked_cols = ranked_pairs(book, indices, True)
        self._ranked = (ranked_pos, ranked_cols)
        free = [state.capacity[wt] for wt in self.worker_types]
        granted_pos, granted_cols = grant_in_order(
            book, indices, ranked_pos, ranked_cols, self.work_conserving, free
        )
        return grant_each(jobs, granted_pos, granted_cols, 1.0, book.round_cells, self._grants)

    def _mid_round(self, state: SchedulerState) -> Allocation:
        """Free GPUs mid-round: the jobs the boundary left waiting in this round's priority
        order, then late arrivals. Returns only the new starts; the engine keeps running jobs
        until the round ends."""
        self._late.extend(state.arrived)  # arrivals since the boundary (engine contract)
        self._active.add_arrivals(state.arrived)
        if not any(state.free_gpus.values()):
            return {}
        book, round_s = self.book, self.round_s
        left = 1.0 - (state.now_s - state.round_index * round_s) / round_s
        free = [state.free_gpus[wt] for wt in self.worker_types]
        allocation: Allocation = {}
        jobs = self._round_jobs
        if jobs:  # jobs the boundary left waiting, in its order
            waiting = self._still_waiting()
            ranked_pos, ranked_cols = self._ranked
            granted_pos, granted_cols = grant_in_order(
                book, self._round_indices, ranked_pos, ranked_cols, self.work_conserving, free,
                waiting,
            )  # fmt: skip
            self._recheck = granted_pos
            allocation = grant_each(
                jobs, granted_pos, granted_cols, left, book.round_cells, self._grants
            )
        # jobs started or finished leave the list for good (nothing preempts mid-round)
        late = [job for job in self._late if is_waiting(job)]
        self._late = late
        if late and self.work_conserving and sum(free) > 0:
            indices = [job.index for job in late]
            book.register(indices, late)
            ranked_pos, ranked_cols = ranked_pairs(book, indices, False)
            granted_pos, granted_cols = grant_in_order(
                book, indices, ranked_pos, ranked_cols, True, free
            )
            late_grants = grant_each(
                late, granted_pos, granted_cols, left, book.round_cells, self._grants
            )
            allocation.update(late_grants)
        return allocation

    def _still_waiting(self) -> list[bool]:
        """Per job of the round, whether a mid-round pass may grant it: the jobs waiting at the
        round's first mid-round pass, less those granted since and placed. Only the jobs this
        mechanism granted mid-round can stop waiting (nothing else starts a job mid-round, and
        running jobs are preempted only at boundaries), so only those are checked again."""
        waiting = self._waiting
        if waiting is None:
            waiting = self._waiting = [is_waiting(job) for job in self._round_jobs]
        jobs = self._round_jobs
        for p in self._recheck:
            waiting[p] = is_waiting(jobs[p])
        self._recheck = []
        return waiting

    def _maybe_solve(self, now_s: float, active: list[JobState], indices: list[int]) -> None:
        """Re-solves the allocation when the job set changed and the interval has passed, or
        at once when no active job has a share left (the cluster would idle); ``indices``
        are the active jobs' indices (their rows in the book)."""
        if indices == self._solved_jobs:
            return
        if now_s - self._last_solve_s < self.interval_s and self.book.any_share(indices):
            return
        self.store_shares(now_s, active, indices)
        self._solved_jobs = indices
        self._last_solve_s = now_s

"""Hare's offline fast heuristic: weighted shortest work first, tasks to the earliest finish.

Chen, Li, Wu, Guo, "Hare: Exploiting Inter-job and Intra-job Parallelism of Distributed Machine
Learning on Heterogeneous GPUs", IEEE TCC 12(4), 2024, doi 10.1109/TCC.2024.3414440 (HPDC 2022).
[P] A clairvoyant heuristic for average JCT over jobs with relaxed fixed-scale synchronization
(``scale_factor`` tasks per training round, on any GPUs, at any times).

Reconstructions [R] (shared/docs/schedulers.md, section B):

- Online use of an offline rule: job sizes are known on arrival, future arrivals are not. The
  plan is recomputed from scratch at every arrival and completion (preempting and moving jobs);
  between events it stands.
- Order: weighted shortest processing time, ``priority_weight / work`` largest first, where work
  is the remaining steps (one task each) x the task time on the job's fastest type, in
  GPU-seconds (task times: :mod:`engine.policies.hare.tasks`); ties by arrival.
- Placement: each job in turn takes up to ``scale_factor`` free GPUs, fastest first, keeping
  those that get a task of its round. With ``wait_for_faster``, GPUs already given to
  higher-priority jobs in this plan count as busy until those jobs' expected finish
  (``remaining_steps / rate``, plus the switch cost if they move; the rate is the engine's for a
  job that keeps its grant, else that of its round's compute without the sync). The round's
  tasks go one by one to the GPU where they finish earliest, and a free GPU that loses all its
  tasks to a busy faster one that frees up soon enough is left to later jobs (a job that loses
  them all waits for the next event). A waiting job reserves nothing, so later jobs may count
  the same busy GPUs.
- Stability: a running job keeps its grant when those GPUs are still free in the pass and its
  round would not be faster on the fresh pick.
- Switch cost: ``switch_cost_s`` (default 0.5 s) replaces the scenario's checkpoint-restore cost.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import ClassVar

from engine.errors import ConfigError
from engine.policies.base import (
    POLICIES,
    Allocation,
    Policy,
    PolicyContext,
    SchedulerState,
)
from engine.policies.explain import Explanation
from engine.policies.hare.tasks import (
    TaskTimes,
    choose,
    eft_task_counts,
    relaxed_grant,
    round_s,
    task_times,
)
from engine.state import JobState


class HareOfflineExplanation(Explanation):
    """Hare's offline rule (its task times are not in the run's records)."""

    rule: ClassVar[str] = (
        "Hare's offline heuristic serves the largest priority weight over remaining work "
        "first, each task on the GPU where it finishes earliest."
    )


class HareOffline(Policy):
    """Hare's clairvoyant heuristic: weighted shortest work first, tasks on earliest-finish GPUs.

    Chen et al., IEEE TCC 2024 (HPDC 2022). Knows job sizes; re-plans at every arrival and
    completion; jobs hold relaxed-synchronization grants of up to scale_factor GPUs.
    """

    explanation: ClassVar[type[Explanation]] = HareOfflineExplanation

    cost_s_per_job: ClassVar[float] = 0.001175  # run order: bench_select_all.py

    display_name = "Hare offline"
    group = "Seed papers"

    preemptive = True
    uses_rounds = False

    @dataclass(frozen=True)
    class Params:
        wait_for_faster: bool = field(
            default=True,
            metadata={"help": "Let a task wait for a busy faster GPU that frees up soon enough"},
        )
        switch_cost_s: float = field(
            default=0.5, metadata={"help": "Seconds lost when a job's GPUs change (task switch)"}
        )

    def __init__(self, params: Params, context: PolicyContext) -> None:
        super().__init__(params, context)
        if params.switch_cost_s < 0:
            raise ConfigError("hare_offline: switch_cost_s must be >= 0")
        self.switch_cost_s = params.switch_cost_s
        self.matrix = context.matrix
        self._times: dict[int, TaskTimes] = {}
        self._fastest_s: dict[int, float] = {}  # seconds of one task on the job's fastest type

    def times(self, job: JobState) -> TaskTimes:
        """The job's task times (cached, with the fastest one)."""
        times = self._times.get(job.index)
        if times is None:
            times = self._times[job.index] = task_times(job, self.matrix)
            self._fastest_s[job.index] = next(iter(times.values()))
        return times

    def priority(self, job: JobState) -> tuple[float, float, int]:
        """Sort key, smallest first: (-weight / remaining work in GPU-s, arrival, index)."""
        fastest_s = self._fastest_s.get(job.index)
        if fastest_s is None:
            self.times(job)
            fastest_s = self._fastest_s[job.index]
        work_s = job.remaining_steps * fastest_s
        ratio = job.priority_weight / work_s if work_s > 0 else math.inf
        return (-ratio, job.arrival_s, job.index)

    def allocate(self, state: SchedulerState) -> Allocation:
        jobs = [*state.waiting, *state.running]
        jobs.sort(key=self.priority)
        free = dict(state.capacity)
        busy: dict[str, list[float]] = {wt: [] for wt in free}  # release times, ascending
        allocation: Allocation = {}
        left = sum(free.values())
        for job in jobs:
            if left <= 0:
                break
            times = self.times(job)
            counts, kept = choose(job, times, free)
            if counts and not kept and self.params.wait_for_faster:
                counts = self._skip_slow(job, counts, times, busy, state.now_s)
            if not counts:
                continue
            grant = job.grant if kept and job.grant is not None else relaxed_grant(counts, times)
            allocation[job.index] = grant
            finish_s = self._finish_s(job, counts, kept, times, state.now_s)
            for worker_type, count in counts.items():
                free[worker_type] -= count
                releases = busy[worker_type]  # count copies where insort would put each
                at = bisect_right(releases, finish_s)
                releases[at:at] = [finish_s] * count
            left -= grant.num_gpus
        return allocation

    def _skip_slow(
        self,
        job: JobState,
        counts: dict[str, int],
        times: TaskTimes,
        busy: dict[str, list[float]],
        now_s: float,
    ) -> dict[str, int]:
        """The free GPUs of ``counts`` that keep a task when busy GPUs join the round's
        earliest-finish-time schedule at their release times."""
        tasks = job.scale_factor
        horizon_s = now_s + round_s(counts, times, tasks)  # when the free-only round ends
        free_types = [wt for wt in times for _ in range(counts.get(wt, 0))]
        ready = [now_s] * len(free_types)
        task_s = [times[wt] for wt in free_types]
        for worker_type, seconds in times.items():
            for release_s in busy.get(worker_type, [])[:tasks]:
                if release_s + seconds >= horizon_s:
                    break
                ready.append(release_s)
                task_s.append(seconds)
        if len(ready) == len(free_types):
            return counts
        kept: dict[str, int] = {}
        for worker_type, n in zip(free_types, eft_task_counts(ready, task_s, tasks), strict=False):
            if n > 0:
                kept[worker_type] = kept.get(worker_type, 0) + 1
        return kept

    def _finish_s(
        self, job: JobState, counts: dict[str, int], kept: bool, times: TaskTimes, now_s: float
    ) -> float:
        """Expected completion of ``job`` on ``counts`` if nothing changes."""
        if kept and job.rate > 0:
            return job.finish_time_s(now_s)
        rate = job.scale_factor / round_s(counts, times, job.scale_factor)
        switch_s = self.params.switch_cost_s if job.first_start_s is not None else 0.0
        return now_s + switch_s + job.remaining_steps / rate


POLICIES.register("hare_offline", HareOffline)

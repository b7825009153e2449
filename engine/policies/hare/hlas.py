"""Hare HLAS: heterogeneity-aware least attained service over relaxed-synchronization jobs.

Chen, Li, Wu, Guo, "Hare: Exploiting Inter-job and Intra-job Parallelism of Distributed Machine
Learning on Heterogeneous GPUs", IEEE TCC 12(4), 2024, doi 10.1109/TCC.2024.3414440 (HPDC 2022).
[P] Online and non-clairvoyant; jobs use relaxed fixed-scale synchronization: ``scale_factor``
tasks per training round that may run on any GPUs, at different times, on different types.

Reconstructions [R] (shared/docs/schedulers.md, section B):

- Priority: least attained service in reference-GPU-seconds
  (:attr:`~engine.state.JobState.attained_service_ref_gpu_s`: held time x one-GPU speed relative
  to the slowest type the job fits), ties by arrival. With queue thresholds (Tiresias-style,
  in reference-GPU-seconds) a job's queue replaces its service and jobs are FIFO inside a
  queue; no starvation promotion.
- Dispatch: jobs in priority order each take up to ``scale_factor`` GPUs, the fastest free ones
  for that job first, keeping only GPUs that get a task of the round (see
  :mod:`engine.policies.hare.tasks`). A job may hold fewer GPUs than tasks (they run in
  sequence); a job with no fitting free GPU waits while later jobs pass it.
- Stability: a running job keeps its grant when those GPUs are still free in the pass and its
  round would not be faster on the fresh pick, so unchanged jobs pay no switch cost.
- When: the paper dispatches at every idle-GPU event (task granularity). Here the whole
  allocation is recomputed at every arrival and completion (``replans_on_events``) and at every
  round boundary (``round_duration_s``), preempting and moving jobs; between those events a
  job's GPUs stay fixed (the engine's fluid model has no per-task events).
- Switch cost: a job whose GPUs change loses ``switch_cost_s`` (default 0.5 s) instead of the
  scenario's checkpoint-restore cost (Hare switches tasks, not checkpoints).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar

from engine.errors import ConfigError
from engine.policies.base import (
    POLICIES,
    Allocation,
    Grant,
    Policy,
    PolicyContext,
    SchedulerState,
)
from engine.policies.explain import Explanation
from engine.policies.hare.tasks import TaskTimes, choose, relaxed_grant, task_times
from engine.policies.las.keys import parse_thresholds
from engine.state import JobState


class HlasExplanation(Explanation):
    """HLAS's rule (its reference-GPU service is not in the run's records)."""

    rule: ClassVar[str] = (
        "Hare's HLAS serves the least attained service first (time held × each GPU's speed "
        "relative to the slowest type the job fits), arrival order within a queue."
    )


class HareHlas(Policy):
    """Hare HLAS: least attained reference-GPU-seconds first, fastest GPUs to the neediest jobs.

    Chen et al., IEEE TCC 2024 (HPDC 2022). Online, non-clairvoyant, heterogeneity-aware; jobs
    hold relaxed-synchronization grants of up to scale_factor GPUs of any types.
    """

    explanation: ClassVar[type[Explanation]] = HlasExplanation

    cost_s_per_job: ClassVar[float] = 0.00092  # run order: bench_select_all.py

    display_name = "Hare HLAS"
    group = "Seed papers"

    preemptive = True
    uses_rounds = True
    replans_on_events = True
    needs_sync = False  # service of running jobs is read through service_ref_gpu_s()

    @dataclass(frozen=True)
    class Params:
        queue_thresholds_ref_gpu_s: str = field(
            default="",
            metadata={
                "help": "Comma-separated queue thresholds in reference-GPU-seconds, increasing "
                "(empty = plain least attained service)"
            },
        )
        switch_cost_s: float = field(
            default=0.5, metadata={"help": "Seconds lost when a job's GPUs change (task switch)"}
        )

    def __init__(self, params: Params, context: PolicyContext) -> None:
        super().__init__(params, context)
        try:
            self.thresholds = parse_thresholds(params.queue_thresholds_ref_gpu_s)
        except ConfigError as exc:
            raise ConfigError(
                f"hare_hlas: queue_thresholds_ref_gpu_s {params.queue_thresholds_ref_gpu_s!r} "
                "must be positive numbers, increasing, separated by commas"
            ) from exc
        if params.switch_cost_s < 0:
            raise ConfigError("hare_hlas: switch_cost_s must be >= 0")
        self.switch_cost_s = params.switch_cost_s
        self.matrix = context.matrix
        self._times: dict[int, TaskTimes] = {}
        self._last: tuple[list[int], Allocation] = ([], {})
        """The previous decision's job order and allocation."""

    def service_ref_gpu_s(self, job: JobState, now_s: float) -> float:
        """Attained service (reference-GPU-seconds) at ``now_s``, unsynced time included."""
        held = now_s - job.last_update_s if job.placement is not None else 0.0
        return job.attained_service_ref_gpu_s + max(0.0, held) * job.ref_gpus

    def priority(self, job: JobState, now_s: float) -> tuple[float, float, int]:
        """Sort key, smallest first: (service or queue, arrival, index)."""
        service = self.service_ref_gpu_s(job, now_s)
        if self.thresholds:
            service = float(bisect_right(self.thresholds, service))
        return (service, job.arrival_s, job.index)

    def allocate(self, state: SchedulerState) -> Allocation:
        """The whole allocation (every call is a full decision: ``replans_on_events``).

        The dispatch is a function of the jobs in priority order and their current grants only
        (free GPUs start at capacity), so when both equal the previous decision's order and
        output, the previous allocation is returned without dispatching again (at most round
        boundaries where no job overtakes another).
        """
        jobs = [*state.waiting, *state.running]
        jobs.sort(key=lambda j: self.priority(j, state.now_s))
        order = [job.index for job in jobs]
        last_order, last = self._last
        if order == last_order and all(job.grant == last.get(job.index) for job in jobs):
            return dict(last)
        allocation = self._dispatch(jobs, dict(state.capacity))
        self._last = (order, allocation)
        return dict(allocation)

    def _dispatch(self, jobs: Iterable[JobState], free: dict[str, int]) -> Allocation:
        """Grants jobs in order from ``free`` (decremented) until no GPU is left."""
        allocation: Allocation = {}
        left = sum(free.values())
        for job in jobs:
            if left <= 0:
                break
            grant = self._grant(job, free)
            if grant is None:
                continue
            allocation[job.index] = grant
            for part in grant.pieces():
                free[part.worker_type] -= part.num_gpus
            left -= grant.num_gpus
        return allocation

    def _grant(self, job: JobState, free: dict[str, int]) -> Grant | None:
        """The job's current grant if it still fits and is as fast, else the fastest pick."""
        times = self._times.get(job.index)
        if times is None:
            times = self._times[job.index] = task_times(job, self.matrix)
        counts, kept = choose(job, times, free)
        if kept:
            return job.grant
        return relaxed_grant(counts, times) if counts else None


POLICIES.register("hare_hlas", HareHlas)

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

from bisect import bisect_right
from dataclasses import dataclass, field

from engine.errors import ConfigError
from engine.policies.base import (
    Allocation,
    Grant,
    Policy,
    PolicyContext,
    SchedulerState,
    register_policy,
)
from engine.policies.fifo import most_free_type
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


@register_policy("las")
class TiresiasLas(Policy):
    """Tiresias discretized 2D-LAS: least attained GPU-seconds first, in queues, with promotion.

    Gu et al., NSDI 2019. Non-clairvoyant and heterogeneity-agnostic; preempts at round
    boundaries (leases).
    """

    preemptive = True
    uses_rounds = True

    @dataclass(frozen=True)
    class Params:
        queue_thresholds_gpu_s: str = field(
            default="3600",
            metadata={"help": "Comma-separated queue thresholds in GPU-seconds, increasing"},
        )
        promote_knob: float = field(
            default=2.0,
            metadata={"help": "Promote a job waiting > knob x its last run time (0 = never)"},
        )

    def __init__(self, params: Params, context: PolicyContext) -> None:
        super().__init__(params, context)
        self.thresholds = parse_thresholds(params.queue_thresholds_gpu_s)
        if params.promote_knob < 0:
            raise ConfigError("las: promote_knob must be >= 0")
        self._round_index = -1
        self._run_start_s: dict[int, float] = {}
        self._last_run_s: dict[int, float] = {}
        self._wait_since_s: dict[int, float] = {}
        self._service_offset: dict[int, float] = {}

    def queue(self, job: JobState) -> int:
        """The job's queue: 0 = least attained service since its last promotion."""
        service = job.attained_service_gpu_s - self._service_offset.get(job.index, 0.0)
        return bisect_right(self.thresholds, service)

    def allocate(self, state: SchedulerState) -> Allocation:
        """Round boundary: the whole allocation. Mid-round: new starts on free GPUs only."""
        new_round = state.round_index != self._round_index
        if new_round:
            self._round_index = state.round_index
            self._promote(state)
            jobs = [*state.waiting, *state.running]
            free = dict(state.capacity)
        else:
            free = dict(state.free_gpus)
            if not any(free.values()):
                return {}
            jobs = list(state.waiting)
        jobs.sort(key=lambda j: (self.queue(j), j.arrival_s, j.index))
        allocation: Allocation = {}
        self._fill(jobs, free, allocation)
        self._track(state, allocation, new_round)
        return allocation

    def _fill(self, jobs: list[JobState], free: dict[str, int], allocation: Allocation) -> None:
        """Grants jobs in order while GPUs remain; skips jobs already granted or without room."""
        total_free = sum(free.values())
        for job in jobs:
            if total_free <= 0:
                return
            if job.index in allocation:
                continue
            current = job.worker_type
            if current is not None and free[current] >= job.scale_factor:
                worker_type: str | None = current
            else:
                worker_type = most_free_type(job, free)
            if worker_type is None:
                continue
            allocation[job.index] = Grant(worker_type, job.scale_factor)
            free[worker_type] -= job.scale_factor
            total_free -= job.scale_factor

    def _track(self, state: SchedulerState, allocation: Allocation, new_round: bool) -> None:
        """Records run starts, and at round boundaries the preemptions the allocation causes."""
        now = state.now_s
        if new_round:
            for job in state.running:
                if job.index not in allocation:
                    start = self._run_start_s.pop(job.index, job.segment_start_s)
                    self._last_run_s[job.index] = now - start
                    self._wait_since_s[job.index] = now
        for job in state.waiting:
            if job.index in allocation:
                self._run_start_s[job.index] = now
                self._wait_since_s.pop(job.index, None)

    def _promote(self, state: SchedulerState) -> None:
        """Sends starved waiting jobs back to queue 0 (Tiresias's STARVELIMIT)."""
        knob = self.params.promote_knob
        if knob <= 0:
            return
        for job in state.waiting:
            since = self._wait_since_s.get(job.index)
            last_run = self._last_run_s.get(job.index, 0.0)
            if since is not None and last_run > 0 and state.now_s - since >= knob * last_run:
                self._service_offset[job.index] = job.attained_service_gpu_s
                del self._last_run_s[job.index]

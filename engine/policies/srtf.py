"""SRTF: shortest remaining time first, clairvoyant and preemptive.

The classic single-server rule (Schrage, "A proof of the optimality of the shortest remaining
processing time discipline", Operations Research 16(3), 1968) used as a clairvoyant baseline in
the GPU-scheduling literature (e.g. Gavel, Narayanan et al., OSDI 2020; Tiresias, Gu et al.,
NSDI 2019). On a cluster of gang-scheduled jobs it has no canonical form; ours is [R]:

- A job's remaining time is ``remaining_steps / best steps/s`` over the worker types it fits
  and the cluster has enough GPUs of (the time it would need on its best type).
- At every arrival and completion, jobs are taken in increasing remaining time (ties: arrival,
  then index) and each gets ``scale_factor`` GPUs: of its current type if that still has room
  (no needless migration), else of the fastest type with room; a job no type has room for
  waits and later jobs may pass it.
- Remaining time ignores the checkpoint-restore cost and the communication penalty of a spread
  placement (the engine charges both).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.policies.base import (
    Allocation,
    Grant,
    Policy,
    PolicyContext,
    SchedulerState,
    register_policy,
)
from engine.state import JobState


@register_policy("srtf")
class Srtf(Policy):
    """Shortest remaining time first: clairvoyant and preemptive, re-decided at every event.

    Baseline of Gavel's and Tiresias's evaluations; remaining time is measured on the job's
    fastest fitting worker type.
    """

    display_name = "SRTF"
    group = "Baselines"

    preemptive = True
    uses_rounds = False

    @dataclass(frozen=True)
    class Params:
        pass

    def __init__(self, params: Params, context: PolicyContext) -> None:
        super().__init__(params, context)
        self.capacity = context.cluster.capacity()
        self._types_by_speed: dict[int, tuple[list[str], float]] = {}
        self._best_rate: dict[int, float] = {}

    def _speed(self, job: JobState) -> tuple[list[str], float]:
        """The job's fitting worker types, fastest first, and its best steps/s (cached)."""
        cached = self._types_by_speed.get(job.index)
        if cached is None:
            rates = job.steps_per_s
            types = [
                wt
                for wt, cap in self.capacity.items()
                if cap >= job.scale_factor and rates.get(wt, 0.0) > 0
            ]
            types.sort(key=lambda wt: -rates[wt])
            cached = (types, rates[types[0]] if types else 0.0)
            self._types_by_speed[job.index] = cached
            self._best_rate[job.index] = cached[1]
        return cached

    def remaining_time_s(self, job: JobState) -> float:
        """Seconds the job still needs on its fastest fitting type (inf if it fits nowhere)."""
        best = self._speed(job)[1]
        return job.remaining_steps / best if best > 0 else float("inf")

    def allocate(self, state: SchedulerState) -> Allocation:
        # (remaining time, arrival, index, job): remaining_time_s inlined, as it runs for
        # every job at every decision; indices are distinct, so jobs are never compared
        best = self._best_rate
        keyed = []
        for job in (*state.waiting, *state.running):
            rate = best.get(job.index)
            if rate is None:
                rate = self._speed(job)[1]
            remaining = job.total_steps - job.steps_done
            remaining = remaining if remaining > 0.0 else 0.0  # job.remaining_steps
            time_s = remaining / rate if rate > 0 else float("inf")
            keyed.append((time_s, job.arrival_s, job.index, job))
        keyed.sort()
        free = dict(state.capacity)
        total_free = sum(free.values())
        allocation: Allocation = {}
        types_by_speed = self._types_by_speed
        for entry in keyed:
            if total_free <= 0:
                break
            job = entry[3]
            need = job.scale_factor
            # its current type if that has room (no needless migration), else the fastest
            # type with room, else it waits
            worker_type = job.worker_type
            if worker_type is None or free.get(worker_type, 0) < need:
                worker_type = next(
                    (wt for wt in types_by_speed[job.index][0] if free[wt] >= need), None
                )
                if worker_type is None:
                    continue
            grant, current = Grant(worker_type, need), job.grant
            # an unchanged grant is passed on as it is (the engine does not re-check it)
            allocation[job.index] = current if current is not None and current == grant else grant
            free[worker_type] -= need
            total_free -= need
        return allocation

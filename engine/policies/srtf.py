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

SRSF (shortest remaining service first) is the same rule on remaining time x GPUs (the job's
scale factor), the two-dimensional variant of Tiresias' evaluation (Gu et al., NSDI 2019) and
Muri's testbed (``shortest-gpu``: ``remaining_time * num_gpu``, Rivendile/Muri
``cluster_exp/run.py``).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable, Iterator, Sized
from typing import ClassVar

from engine.allocation.grants import gang_grant
from engine.policies.base import (
    POLICIES,
    Allocation,
    NoParams,
    Policy,
    PolicyContext,
    SchedulerState,
)
from engine.policies.explain import Explanation, RemainingGpuWork, RemainingWork
from engine.state import JobState

_SRTF_DOC = """Shortest remaining time first: clairvoyant and preemptive, re-decided at every
event.

Baseline of Gavel's and Tiresias's evaluations; remaining time is measured on the job's
fastest fitting worker type.
"""


class Srtf(Policy):
    cost_s_per_job: ClassVar[float] = 0.000485  # run order: bench_select_all.py
    # Compiled with mypyc: ClassVar attributes, registered after its body with its docstring
    # (_SRTF_DOC), as engine.policies.base's module docstring says.
    display_name: ClassVar[str] = "SRTF"
    group: ClassVar[str] = "Baselines"

    preemptive: ClassVar[bool] = True
    uses_rounds: ClassVar[bool] = False
    by_service: ClassVar[bool] = False  # SRSF: the key is remaining time x GPUs
    explanation: ClassVar[type[Explanation]] = RemainingWork
    models_failures: ClassVar[bool] = True
    honours_quotas: ClassVar[bool] = True

    def __init__(self, params: NoParams, context: PolicyContext) -> None:
        super().__init__(params, context)
        self.capacity = context.cluster.capacity()
        self._types_by_speed: dict[int, tuple[list[str], float]] = {}
        self._best_rate: dict[int, float] = {}
        # waiting jobs: index -> (key, job), and the keys sorted (a waiting job's key is fixed)
        self._waiting: dict[int, tuple[tuple[float, float, int], JobState]] = {}
        self._waiting_keys: list[tuple[float, float, int]] = []

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

    def quota_order_key(self, job: JobState) -> float:
        """Under quotas, a ClusterQueue's jobs by remaining time (SRSF: x GPUs)."""
        return self._key(job)[0]

    def allocate(self, state: SchedulerState) -> Allocation:
        """Running jobs keyed afresh (they progressed) and merged with the waiting jobs, whose
        keys cannot change while they wait (kept sorted between decisions)."""
        for job in state.arrived:
            self._wait(self._key(job), job)
        for job in state.stopped:  # stopped by a failed node (engine.faults)
            self._wait(self._key(job), job)
        waiting = self._waiting
        if not isinstance(state.waiting, Sized) or len(waiting) != len(state.waiting):
            # not (or perhaps not) the jobs this policy left waiting
            self._rebuild_waiting(state.waiting)
        best = self._best_rate
        by_service = self.by_service
        running = []  # (remaining time, arrival, index, job): _key inlined, same arithmetic
        for job in state.running:
            rate = best.get(job.index)
            if rate is None:
                rate = self._speed(job)[1]
            remaining = job.total_steps - job.steps_done
            remaining = remaining if remaining > 0.0 else 0.0  # job.remaining_steps
            time_s = remaining / rate if rate > 0 else float("inf")
            if by_service:
                time_s *= job.scale_factor
            running.append((time_s, job.arrival_s, job.index, job))
        running.sort()  # indices are distinct, so jobs are never compared
        free = dict(state.capacity)
        total_free = sum(free.values())
        allocation: Allocation = {}
        types_by_speed = self._types_by_speed
        for job in self._in_order(running):
            if total_free <= 0:
                break
            need = job.scale_factor
            # its current type if that has room (no needless migration), else the fastest
            # type with room, else it waits
            placement = job.placement
            if placement is not None and free.get(placement.worker_type, 0) >= need:
                worker_type = placement.worker_type
                # its own grant, a gang of worker_type already: the engine sees it unchanged
                grant = job.grant or gang_grant(worker_type, need)
            else:
                fastest = _first_with_room(types_by_speed[job.index][0], free, need)
                if fastest is None:
                    continue
                worker_type, grant = fastest, gang_grant(fastest, need)
            allocation[job.index] = grant
            free[worker_type] -= need
            total_free -= need
        self._update_waiting(allocation, running)
        return allocation

    def _key(self, job: JobState) -> tuple[float, float, int]:
        """(remaining time, arrival, index): :meth:`remaining_time_s` inlined; under SRSF the
        remaining time x GPUs."""
        rate = self._best_rate.get(job.index)
        if rate is None:
            rate = self._speed(job)[1]
        remaining = job.total_steps - job.steps_done
        remaining = remaining if remaining > 0.0 else 0.0  # job.remaining_steps
        time_s = remaining / rate if rate > 0 else float("inf")
        if self.by_service:
            time_s *= job.scale_factor
        return (time_s, job.arrival_s, job.index)

    def _wait(self, key: tuple[float, float, int], job: JobState) -> None:
        insort(self._waiting_keys, key)
        self._waiting[job.index] = (key, job)

    def _rebuild_waiting(self, waiting: Iterable[JobState]) -> None:
        self._waiting = {job.index: (self._key(job), job) for job in waiting}
        self._waiting_keys = sorted(key for key, _ in self._waiting.values())

    def _in_order(self, running: list[tuple[float, float, int, JobState]]) -> Iterator[JobState]:
        """Running and waiting jobs merged in key order (the order of sorting them together)."""
        waiting, at, end = self._waiting, 0, len(running)
        for key in self._waiting_keys:
            while at < end and running[at] < key:
                yield running[at][3]
                at += 1
            yield waiting[key[2]][1]
        for entry in running[at:]:
            yield entry[3]

    def _update_waiting(
        self, allocation: Allocation, running: list[tuple[float, float, int, JobState]]
    ) -> None:
        """The engine starts every grant and preempts every running job without one."""
        waiting, keys = self._waiting, self._waiting_keys
        for index in allocation.keys() & waiting.keys():
            del keys[bisect_left(keys, waiting.pop(index)[0])]
        for entry in running:
            if entry[2] not in allocation:
                self._wait(entry[:3], entry[3])


POLICIES.register("srtf", Srtf, doc=_SRTF_DOC)

_SRSF_DOC = """Shortest remaining service first: remaining time x GPUs, clairvoyant and preemptive,
re-decided at every event.

Baseline of Tiresias's and Muri's evaluations (Muri's ``shortest-gpu``); remaining time is
measured on the job's fastest fitting worker type, as SRTF's.
"""


class Srsf(Srtf):
    # Compiled with mypyc with Srtf, which it extends (the key, see the module docstring).
    display_name: ClassVar[str] = "SRSF"
    group: ClassVar[str] = "Baselines"
    by_service: ClassVar[bool] = True
    explanation: ClassVar[type[Explanation]] = RemainingGpuWork


POLICIES.register("srsf", Srsf, doc=_SRSF_DOC)


def _first_with_room(types: list[str], free: dict[str, int], need: int) -> str | None:
    """The first of ``types`` with at least ``need`` free GPUs, or None."""
    for worker_type in types:
        if free[worker_type] >= need:
            return worker_type
    return None

"""One GPU per job: every job runs on exactly one GPU, first in, first out.

A baseline of the doubling heuristic (Capes, Raheja, Kemertas, Mohomed, arXiv:1908.08082,
2019), where it is the smallest size every elastic job can run at: the most jobs run at once,
none of them fast. [R] Non-preemptive; jobs start in arrival order, each on the worker type
where one GPU runs it fastest among those with a free GPU; the queue blocks at the first job no
type has a free GPU for. The static-size baseline of the same paper (each job on its requested
``scale_factor``, first in, first out) is the ``fifo`` policy without backfilling.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.policies.base import POLICIES, Allocation, Grant, Policy, SchedulerState
from engine.policies.doubling import fastest_types
from engine.policies.explain import ArrivalOrder, Explanation, RunRecords


class OneGpuExplanation(ArrivalOrder):
    """Arrival order; the queue blocks at the first job no type has a free GPU for."""

    def __init__(self, params: object, records: RunRecords) -> None:
        super().__init__(params, records)
        self.blocking = "One GPU per job starts no job behind the head of the queue"


class OneGpuPerJob(Policy):
    """Every job gets exactly one GPU, in arrival order, and keeps it until it completes.

    Baseline of the doubling heuristic (Capes et al., arXiv 2019); non-preemptive.
    """

    explanation: ClassVar[type[Explanation]] = OneGpuExplanation

    cost_s_per_job: ClassVar[float] = 6.5e-05  # run order: bench_select_all.py

    display_name = "One GPU per job"
    group = "Baselines"

    preemptive = False
    uses_rounds = False

    @dataclass(frozen=True)
    class Params:
        pass

    def allocate(self, state: SchedulerState) -> Allocation:
        free = dict(state.free_gpus)
        allocation: Allocation = {}
        for job in state.waiting:
            worker_type = next((wt for wt in fastest_types(job, free) if free[wt] > 0), None)
            if worker_type is None:
                break
            allocation[job.index] = Grant(worker_type, 1)
            free[worker_type] -= 1
        return allocation


POLICIES.register("one_gpu_per_job", OneGpuPerJob)

"""FIFO: gang scheduling in arrival order, with and without backfilling (stands in for YARN-CS).

Heterogeneity-agnostic: a job takes the worker type with the most free GPUs among those it can
run on (ties: the type listed first in the GPU mix) [R: YARN-CS picks no type on purpose; most
free balances load without using speed information]. Without backfill the queue blocks at the
first job that does not fit; with backfill later jobs may start on GPUs the head cannot use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from engine.allocation.grants import gang_grant
from engine.policies.agnostic import most_free_type
from engine.policies.base import (
    POLICIES,
    Allocation,
    Policy,
    PolicyContext,
    SchedulerState,
)
from engine.policies.explain import ArrivalOrder, Explanation, RunRecords
from engine.state import JobState


@dataclass(frozen=True)
class FifoParams:
    """FIFO's knobs (:attr:`Fifo.Params`)."""

    backfill: bool = field(
        default=False,
        metadata={"help": "Let later jobs start on GPUs the head of the queue cannot use"},
    )


class FifoExplanation(ArrivalOrder):
    """FIFO ranks by arrival; without backfill it blocks behind the head of the queue."""

    def __init__(self, params: FifoParams, records: RunRecords) -> None:
        super().__init__(params, records)
        if not params.backfill:
            self.blocking = "FIFO without backfill starts no job behind the head of the queue"


class Fifo(Policy):
    """First in, first out, gang-scheduled, non-preemptive; optional backfilling.

    Baseline of every seed paper (YARN-CS in Hadar's evaluation).
    """

    cost_s_per_job: ClassVar[float] = 7e-05  # run order: bench_select_all.py

    # Not compiled (tests subclass it, and an interpreted class cannot inherit from a compiled
    # one); its per-job rule, most_free_type, is (engine.policies.agnostic).
    display_name: ClassVar[str] = "FIFO"
    group: ClassVar[str] = "Baselines"

    preemptive: ClassVar[bool] = False
    uses_rounds: ClassVar[bool] = False
    models_failures: ClassVar[bool] = True  # reads the waiting jobs and free GPUs afresh
    honours_quotas: ClassVar[bool] = True  # Kueue's own order: priority, then arrival

    Params: ClassVar[type[FifoParams]] = FifoParams
    explanation: ClassVar[type[Explanation]] = FifoExplanation

    def __init__(self, params: FifoParams, context: PolicyContext) -> None:
        super().__init__(params, context)
        self.backfill: bool = params.backfill
        # Without backfill the answer is empty while the same head finds the same free GPUs.
        self._blocked: tuple[JobState, dict[str, int]] | None = None

    def allocate(self, state: SchedulerState) -> Allocation:
        if not self.backfill and self._blocked is not None:
            head, free_then = self._blocked
            if next(iter(state.waiting), None) is head and state.free_gpus == free_then:
                return {}
        free = dict(state.free_gpus)
        free_total = sum(free.values())  # never negative: a grant takes free GPUs only
        allocation: Allocation = {}
        for job in state.waiting:
            if free_total <= 0:
                break
            worker_type = most_free_type(job, free)
            if worker_type is None:
                if self.backfill:
                    continue
                if not allocation:
                    self._blocked = (job, free)
                break
            allocation[job.index] = gang_grant(worker_type, job.scale_factor)
            free[worker_type] -= job.scale_factor
            free_total -= job.scale_factor
        return allocation


POLICIES.register("fifo", Fifo)

"""Gavel's FIFO baselines: arrival order, one worker type per job, run through Gavel's rounds.

Narayanan et al., OSDI 2020 (policies ``fifo`` and ``fifo_perf`` of stanford-futuredata/gavel,
``scheduler/policies/fifo.py``, commit c4fa400, MIT), modelled in our own code. Each allocation
``X`` gives a job share 1 on one worker type, and the round mechanism grants GPUs to those pairs
only (a job without a type waits; GPUs nobody was assigned stay idle until the next solve). The
allocation is recomputed when Gavel recomputes any allocation (under the Gavel-compatible preset:
on a changed job set, at most every 1920 s).

- ``gavel_fifo_perf``: the assignment restarts at every solve; jobs in arrival order take the
  fastest type with ``scale_factor`` GPUs unassigned, until no type has room for the next job.
- ``gavel_fifo``: a job keeps its type until it completes. At a solve, each completed job's type
  first goes to the queue head if the head fits there; then jobs in arrival order take a type,
  as Gavel's code actually behaves (traced, not as its comment intends): the random draw among
  the types with room does not choose the type, the job takes the alphabetically last type
  with a free GPU even if its gang does not fit (so V100s are over-assigned and time-shared by
  the rounds), and the draw decides which type leaves the list when a count reaches exactly 0.
  [R] One deviation: a gang larger than that type's whole GPU count (which Gavel would leave
  waiting forever) takes the drawn type instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from engine.policies.base import POLICIES, PolicyContext
from engine.policies.gavel.explain import GavelArrival
from engine.policies.gavel.max_min import GavelMaxMin
from engine.state import JobState


class GavelFifo(GavelMaxMin):
    """Gavel's FIFO: each job's share is 1 on one worker type (module docstring)."""

    skips_zero_priority = True
    fastest_type: ClassVar[bool] = False
    explanation = GavelArrival
    solves_by_class = False  # its own LP (_solve), job by job

    @dataclass(frozen=True)
    class Params:
        work_conserving: bool = field(
            default=False,
            metadata={
                "help": "Give GPUs nobody was assigned to jobs assigned elsewhere "
                "(not under Gavel's simulator rules)"
            },
        )

    def __init__(self, params: Params, context: PolicyContext) -> None:
        super().__init__(params, context)
        self._types: dict[int, tuple[int, int]] = {}  # job index -> (type column, GPUs)
        self._by_name = sorted(range(len(self.worker_types)), key=self.worker_types.__getitem__)

    def _solve_gavel(self, now_s: float, active: list[JobState], rows: np.ndarray) -> np.ndarray:
        """Gavel's FIFO solves as ours does (:meth:`_solve`)."""
        return self._solve(now_s, active, rows)

    def _solve(self, now_s: float, active: list[JobState], rows: np.ndarray) -> np.ndarray:
        """X: 1 on the job's assigned type, else 0."""
        throughputs = self.book.throughputs(rows)
        position = {job.index: i for i, job in enumerate(active)}
        if self.fastest_type:
            self._types = {}
        available = self.capacity.astype(int).tolist()
        queue = [job for job in active if job.index not in self._types]
        self._refill(position, throughputs, queue, available)
        self._assign(position, throughputs, queue, available)
        shares = np.zeros((len(active), len(self.worker_types)))
        for index, (col, _) in self._types.items():
            shares[position[index], col] = 1.0
        return shares

    def _refill(
        self,
        position: dict[int, int],
        throughputs: np.ndarray,
        queue: list[JobState],
        available: list[int],
    ) -> None:
        """Kept types count against the room; a completed job's type goes to the queue head."""
        for index in sorted(self._types):
            col, gpus = self._types[index]
            if index in position:
                available[col] -= gpus
                continue
            del self._types[index]
            if queue and queue[0].scale_factor <= available[col]:
                head = queue[0]
                if throughputs[position[head.index], col] > 0:
                    queue.pop(0)
                    self._types[head.index] = (col, head.scale_factor)
                    available[col] -= head.scale_factor

    def _assign(
        self,
        position: dict[int, int],
        throughputs: np.ndarray,
        queue: list[JobState],
        available: list[int],
    ) -> None:
        """Jobs in arrival order take a type while some type has room (module docstring)."""
        open_types = [col for col in self._by_name if available[col] > 0]
        while queue and open_types:
            head = queue.pop(0)
            row = throughputs[position[head.index]]
            fitting = [k for k, col in enumerate(open_types) if available[col] >= head.scale_factor]
            if not fitting:
                break
            if self.fastest_type:
                pick = max(range(len(fitting)), key=lambda k: (row[open_types[fitting[k]]], -k))
                col = open_types[fitting[pick]]
            else:
                pick = int(self.context.rng.integers(len(fitting)))
                col = open_types[-1]  # the traced behaviour, see the module docstring
                if head.scale_factor > self.capacity[col]:  # [R] never runnable there
                    col = open_types[fitting[pick]]
            if row[col] > 0:
                self._types[head.index] = (col, head.scale_factor)
                available[col] -= head.scale_factor
                if available[col] == 0:
                    open_types.pop(fitting[pick])


class GavelFifoRandom(GavelFifo):
    """Gavel's FIFO: arrival order; a job gets a worker type with room and keeps it.

    Narayanan et al., OSDI 2020 (Gavel's ``fifo`` baseline, heterogeneity-agnostic); reproduces
    how Gavel's code actually picks the type (see the module docstring).
    """

    cost_s_per_job: ClassVar[float] = 0.00033  # run order: bench_select_all.py

    display_name = "Gavel FIFO (random type)"
    group = "Gavel"

    heterogeneity_aware = False


POLICIES.register("gavel_fifo", GavelFifoRandom)


class GavelFifoFastest(GavelFifo):
    """Gavel's FIFO, heterogeneity-aware: arrival order, each job on the fastest type with room.

    Narayanan et al., OSDI 2020 (Gavel's ``fifo_perf`` baseline).
    """

    cost_s_per_job: ClassVar[float] = 0.000275  # run order: bench_select_all.py

    display_name = "Gavel FIFO (fastest type)"
    group = "Gavel"

    heterogeneity_aware = True
    fastest_type = True


POLICIES.register("gavel_fifo_perf", GavelFifoFastest)

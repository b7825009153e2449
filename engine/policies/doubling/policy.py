"""Doubling heuristic: elastic re-sizing of ring all-reduce jobs at every arrival and completion.

Capes, Raheja, Kemertas, Mohomed, "Dynamic Scheduling of MPI-based Distributed Deep Learning
Training Jobs", arXiv:1908.08082, 2019. [P] Horovod (ring all-reduce) jobs can be stopped and
restarted cheaply; re-sizing the running jobs is an NP-hard, non-convex integer program, solved
by a doubling heuristic that more than halved the average job time in simulation on some
workloads. Everything below the abstract is a reconstruction [R] (shared/docs/schedulers.md, C):

- Speed on n GPUs (weak scaling: fixed per-GPU batch, so the global batch grows with n):
  Gavel's consolidated measurement at n (linear beyond the largest measured n, as
  :meth:`ThroughputMatrix.steps_per_s`), plus the ring all-reduce time the network adds over a
  node-local ring when n exceeds one node (level "rack") or one rack (level "network") of the
  type (the engine's step-time model, :mod:`engine.step_time.estimator`), times the statistical
  efficiency of a global batch ``n / scale_factor`` times the one the job asked for (Pollux,
  Qiao et al., OSDI 2021; knob ``noise_scale_ratio``, see
  :func:`engine.step_time.progress.statistical_efficiency`): with the default, a job grown far past
  its
  request progresses at most twice as fast as at its request. See
  :class:`engine.policies.doubling.speed.RingSpeed`. This is the engine's own model for a
  consolidated placement.
- At every arrival and completion, every job in the system (running or waiting) is taken in
  arrival order and gets 1 GPU while GPUs remain. Then the heuristic repeatedly doubles the job
  whose doubling m -> 2m saves the most remaining time per extra GPU,
  ``(T(m) - T(2m)) / m`` with ``T(n) = restart(n) + remaining_steps / speed(n)``, where
  ``restart(n)`` is the restart cost when a grant of n GPUs differs from the one the job runs
  under (or when a preempted job starts again); it stops when no doubling saves time or no
  doubling fits the free GPUs. Greedy and myopic as in the paper: a job whose first doubling
  does not pay for the restart is not doubled twice.
- Sizes are powers of two. A job's largest useful size on a worker type is the largest power
  of two within the type's GPUs and ``max_gpus_per_job``; a job type Gavel measured only on one
  GPU (not data-parallel there: A3C, CycleGAN, Recommendation) is not grown past its own
  ``scale_factor``; a size at which the matrix gives 0 steps/s is never granted.
- Worker type (the paper's cluster is homogeneous): a running job keeps its type while it has a
  free GPU; otherwise a job takes the type with a free GPU where one GPU runs it fastest.
- Placement: the grants are returned largest first and the scenario's placement strategy puts
  them on nodes; the "consolidated" strategy packs each job onto as few nodes as possible, as
  the paper does. Departures: no look-ahead past one doubling, one worker type per job, no
  per-job-type restart costs (the scenario's checkpoint-restore cost applies to every job).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
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
from engine.policies.doubling.speed import RingSpeed, fastest_types
from engine.policies.explain import Explanation
from engine.state import JobState
from engine.step_time.progress import NOISE_SCALE_RATIO


class DoublingExplanation(Explanation):
    """The doubling heuristic's rule (its time savings are not in the run's records)."""

    rule: ClassVar[str] = (
        "Doubling gives every job one GPU in arrival order, then doubles the job whose "
        "doubling saves the most remaining time per extra GPU."
    )


class Doubling(Policy):
    """Doubling heuristic: every job gets 1 GPU in arrival order, then the job whose doubling
    saves the most remaining time per extra GPU (net of restart cost) doubles, until none helps.

    Capes, Raheja, Kemertas, Mohomed, arXiv:1908.08082, 2019: elastic ring all-reduce jobs,
    re-sized at every arrival and completion; sizes are powers of two.
    """

    explanation: ClassVar[type[Explanation]] = DoublingExplanation

    cost_s_per_job: ClassVar[float] = 0.001225  # run order: bench_select_all.py

    display_name = "Doubling (elastic)"
    group = "Seed papers"

    preemptive = True
    uses_rounds = False

    @dataclass(frozen=True)
    class Params:
        restart_cost_s: float = field(
            default=-1.0,
            metadata={
                "help": "Restart cost (s) the heuristic weighs against a re-size; -1 uses the "
                "scenario's checkpoint-restore cost, which the engine charges in any case"
            },
        )
        max_gpus_per_job: int = field(
            default=0,
            metadata={"help": "Largest size of a job in GPUs (0 = only the cluster limits it)"},
        )
        noise_scale_ratio: float = field(
            default=NOISE_SCALE_RATIO,
            metadata={
                "help": "Gradient noise scale over a job's batch (Pollux); a job grown past its "
                "request progresses at most (1 + ratio)x as fast as at its request"
            },
        )

    def __init__(self, params: Params, context: PolicyContext) -> None:
        super().__init__(params, context)
        if params.noise_scale_ratio < 0:
            raise ConfigError("doubling: noise_scale_ratio must be >= 0")
        self.noise_scale_ratio = params.noise_scale_ratio
        self.capacity = context.cluster.capacity()
        cost = params.restart_cost_s
        self.restart_cost_s = context.rounds.checkpoint_restore_s if cost < 0 else cost
        self.speed = RingSpeed(context, params.noise_scale_ratio)
        self._limits: dict[tuple[int, str], int] = {}
        self._usable: dict[int, list[str]] = {}

    def allocate(self, state: SchedulerState) -> Allocation:
        jobs = state.active()
        free = dict(state.capacity)
        sizes: dict[int, tuple[str, int]] = {}
        remaining = sum(free.values())
        for job in jobs:
            if remaining <= 0:
                break
            worker_type = self._one_gpu_type(job, free)
            if worker_type is not None:
                sizes[job.index] = (worker_type, 1)
                free[worker_type] -= 1
                remaining -= 1
        by_index = {job.index: job for job in jobs}
        self._double(by_index, sizes, free, state.now_s)
        order = sorted(sizes, key=lambda i: -sizes[i][1])  # largest first packs best
        allocation: Allocation = {}
        for i in order:
            worker_type, num_gpus = sizes[i]
            grant, current = Grant(worker_type, num_gpus), by_index[i].grant
            # an unchanged grant is passed on as it is (the engine does not re-check it)
            allocation[i] = current if current is not None and current == grant else grant
        return allocation

    def _one_gpu_type(self, job: JobState, free: dict[str, int]) -> str | None:
        """The job's current type if it has a free GPU, else its fastest type with one."""
        usable = self._usable.get(job.index)
        if usable is None:  # the types it runs on (max_gpus > 0), fastest first; fixed per job
            usable = [wt for wt in fastest_types(job, self.capacity) if self.max_gpus(job, wt)]
            self._usable[job.index] = usable
        placement = job.placement
        current = placement.worker_type if placement is not None else None
        if current is not None and free.get(current, 0) > 0 and current in usable:
            return current
        return next((wt for wt in usable if free[wt] > 0), None)

    def _double(
        self, by_index: dict[int, JobState], sizes: dict[int, tuple[str, int]],
        free: dict[str, int], now_s: float,
    ) -> None:  # fmt: skip
        """Greedy doubling (see the module docstring); updates ``sizes`` and ``free``.

        The heap holds at most one entry per job, so its keys ``(-gain, index)`` are distinct
        and the pop order does not depend on how the heap was built."""
        saving = self._savings_at(now_s)
        limits = self._limits
        heap: list[tuple[float, int]] = []
        for index, (worker_type, num_gpus) in sizes.items():
            if free[worker_type] < num_gpus:
                continue  # free GPUs only shrink: this job cannot double (nor its saving count)
            job = by_index[index]
            limit = limits.get((index, worker_type))
            if 2 * num_gpus <= (self.max_gpus(job, worker_type) if limit is None else limit):
                gain = saving(job, worker_type, num_gpus)
                if gain > 0:
                    heap.append((-gain, index))
        heapq.heapify(heap)
        total_free = sum(free.values())
        while heap and total_free > 0:
            _, index = heapq.heappop(heap)
            worker_type, num_gpus = sizes[index]
            if free[worker_type] < num_gpus:
                continue  # as above
            free[worker_type] -= num_gpus
            total_free -= num_gpus
            sizes[index] = (worker_type, 2 * num_gpus)
            num_gpus *= 2  # its next doubling, if allowed, possible and it saves time
            if 2 * num_gpus <= limits[(index, worker_type)] and free[worker_type] >= num_gpus:
                gain = saving(by_index[index], worker_type, num_gpus)
                if gain > 0:
                    heapq.heappush(heap, (-gain, index))

    def saving_per_gpu_s(
        self, job: JobState, worker_type: str, num_gpus: int, now_s: float
    ) -> float:
        """Seconds of the job's remaining time saved per extra GPU by doubling ``num_gpus``
        (restart costs included); <= 0 when the doubling does not help or cannot run."""
        return self._savings_at(now_s)(job, worker_type, num_gpus)

    def _savings_at(self, now_s: float) -> Callable[[JobState, str, int], float]:
        """:meth:`saving_per_gpu_s` at ``now_s`` as one function: it runs for every doubling
        of every decision, so the speed cache and the restart rule are inlined."""
        rates = self.speed.cache_at(now_s)[0]
        estimate, restart_cost_s = self.speed.steps_per_s, self.restart_cost_s

        def saving(job: JobState, worker_type: str, num_gpus: int) -> float:
            bigger = rates.get((job.job_type, job.scale_factor, worker_type, 2 * num_gpus))
            if bigger is None:
                bigger = estimate(job, worker_type, 2 * num_gpus, now_s)
            if bigger <= 0:
                return 0.0
            current = rates.get((job.job_type, job.scale_factor, worker_type, num_gpus))
            if current is None:
                current = estimate(job, worker_type, num_gpus, now_s)
            if current <= 0:
                return 0.0
            remaining = job.total_steps - job.steps_done
            remaining = remaining if remaining > 0.0 else 0.0  # job.remaining_steps
            grant = job.grant  # _restart_s for both sizes
            if grant is None:
                restart_s = 0.0 if job.first_start_s is None else restart_cost_s
                restart_now_s = restart_doubled_s = restart_s
            else:
                restart_now_s = restart_doubled_s = restart_cost_s
                # grant == Grant(worker_type, num_gpus) or Grant(worker_type, 2 * num_gpus)
                if grant[0] == worker_type and grant[2] == () and grant[3] == "gang":
                    if grant[1] == num_gpus:
                        restart_now_s = max(0.0, job.restore_until_s - now_s)
                    elif grant[1] == 2 * num_gpus:
                        restart_doubled_s = max(0.0, job.restore_until_s - now_s)
            time_now_s = restart_now_s + remaining / current
            time_doubled_s = restart_doubled_s + remaining / bigger
            return (time_now_s - time_doubled_s) / num_gpus

        return saving

    def _restart_s(self, job: JobState, worker_type: str, num_gpus: int, now_s: float) -> float:
        """Seconds lost before the job progresses under a grant of ``num_gpus`` GPUs (the rule
        :meth:`_savings_at` inlines)."""
        if job.grant is not None and job.grant == Grant(worker_type, num_gpus):
            return max(0.0, job.restore_until_s - now_s)  # keeps its GPUs
        if job.grant is None and job.first_start_s is None:
            return 0.0  # a first start costs nothing
        return self.restart_cost_s

    def max_gpus(self, job: JobState, worker_type: str) -> int:
        """The job's largest useful size on the type (0 if it cannot run there; cached)."""
        key = (job.index, worker_type)
        limit = self._limits.get(key)
        if limit is None:
            limit = self._max_gpus(job, worker_type)
            self._limits[key] = limit
        return limit

    def _max_gpus(self, job: JobState, worker_type: str) -> int:
        capacity = self.capacity.get(worker_type, 0)
        return self.speed.size_limit(job, worker_type, capacity, self.params.max_gpus_per_job)


POLICIES.register("doubling", Doubling)

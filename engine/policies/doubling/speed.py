"""The doubling heuristic's speed and size rules (Capes et al., arXiv:1908.08082, 2019) [R].

Speed on n GPUs is the engine's step-time model for a consolidated gang of one type
(:meth:`engine.step_time.estimator.StepTimeModel.at_level`): Gavel's measurement at n, plus the ring
all-reduce the network adds over a node-local ring at the best level n GPUs of the type could
reach (the placement layer's :meth:`engine.placement.levels.TypeLayout.best_level`), times the
statistical efficiency of the grown batch. Sizes are powers of two, bounded as the policy's
module docstring says (:func:`size_limit`).
"""

from __future__ import annotations

from engine.placement.levels import TypeLayout
from engine.policies.base import PolicyContext
from engine.state import JobState
from engine.step_time.network import LEVELS, congestion_factor
from engine.step_time.progress import NOISE_SCALE_RATIO

SpeedKey = tuple[str, int, str, int]
"""(job type, scale factor, worker type, GPUs) of a cached speed."""


def largest_power_of_two(n: int) -> int:
    """Largest power of two <= ``n`` (0 when ``n < 1``)."""
    return 1 << (n.bit_length() - 1) if n >= 1 else 0


def fastest_types(job: JobState, capacity: dict[str, int]) -> list[str]:
    """Worker types of the cluster that run the job on one GPU, fastest first (ties: GPU-mix
    order), by its one-GPU speed relative to the slowest type (:attr:`JobState.ref_speed`)."""
    types = [wt for wt in capacity if job.ref_speed.get(wt, 0.0) > 0]
    return sorted(types, key=lambda wt: -job.ref_speed[wt])


class RingSpeed:
    """Steps/s of a job on n consolidated GPUs of one type, as the engine will compute them.

    Training progress at the statistical efficiency of the grown batch, from the scenario's
    step-time model (:attr:`PolicyContext.step_time`). For a job type the matrix lacks on a
    worker type, the consolidated throughput is linear in n from the job's rate at its scale
    factor (:attr:`JobState.steps_per_s`), and the job is not grown past that scale factor.
    The level is the best one n GPUs of the type reach on the empty cluster; rack-specific
    congestion episodes are not counted.
    """

    def __init__(self, context: PolicyContext, noise_scale_ratio: float = NOISE_SCALE_RATIO):
        self.step_time = context.step_time
        self.matrix = context.matrix
        self.noise_scale_ratio = noise_scale_ratio
        self.layout = TypeLayout(context.layout)
        self._caches: dict[tuple[float, float], dict[SpeedKey, float]] = {}
        self._factors_at_s = float("nan")
        self._factors = (1.0, 1.0)

    def knows(self, job_type: str, worker_type: str) -> bool:
        """Whether the matrix has the job type on the worker type."""
        return worker_type in self.matrix.table.get(job_type, {})

    def measured_sizes(self, job_type: str, worker_type: str) -> list[int]:
        """Scale factors the matrix has for the job type on the worker type."""
        return sorted(self.matrix.table.get(job_type, {}).get(worker_type, {}))

    def steps_per_s(self, job: JobState, worker_type: str, num_gpus: int, now_s: float) -> float:
        """Estimated steps/s (0 if the job cannot run on ``num_gpus`` GPUs of the type); cached
        per job type, scale factor, size and congestion in force."""
        cache = self.cache_at(now_s)[0]
        key = (job.job_type, job.scale_factor, worker_type, num_gpus)
        speed = cache.get(key)
        if speed is None:
            speed = self._estimate(job, worker_type, num_gpus, now_s)
            cache[key] = speed
        return speed

    def cache_at(self, now_s: float) -> tuple[dict[SpeedKey, float], tuple[float, float]]:
        """The speed cache for the (rack, cross-rack) congestion factors in force at ``now_s``,
        and those factors (computed once per moment: a decision asks many times at one
        moment). The cache is keyed by :data:`SpeedKey`."""
        if now_s != self._factors_at_s:
            congestion = self.step_time.network.congestion
            self._factors = (
                congestion_factor(congestion, now_s, "rack", ()),
                congestion_factor(congestion, now_s, "cross_rack", ()),
            )
            self._factors_at_s = now_s
        cache = self._caches.get(self._factors)
        if cache is None:
            cache = self._caches[self._factors] = {}
        return cache, self._factors

    def _estimate(self, job: JobState, worker_type: str, num_gpus: int, now_s: float) -> float:
        if self.knows(job.job_type, worker_type):
            measured = self.matrix.steps_per_s(job.job_type, worker_type, num_gpus)
        else:
            measured = job.steps_per_s.get(worker_type, 0.0) / job.scale_factor * num_gpus
        if measured <= 0:
            return 0.0
        level = LEVELS[self.layout.best_level(worker_type, num_gpus)]
        return self.step_time.at_level(
            job, worker_type, num_gpus, level, now_s, (), measured, self.noise_scale_ratio
        ).steps_per_s

    def size_limit(self, job: JobState, worker_type: str, capacity: int, cap: int) -> int:
        """The job's largest useful size on the type: a power of two within the type's
        ``capacity`` and ``cap`` (0: none), the scale factor for a type the matrix measured only
        on one GPU or lacks; 0 if the job cannot run there."""
        if job.ref_speed.get(worker_type, 0.0) <= 0:
            return 0
        limit = min(capacity, cap) if cap > 0 else capacity
        if self.knows(job.job_type, worker_type):
            if self.measured_sizes(job.job_type, worker_type) == [1]:
                limit = min(limit, job.scale_factor)  # not data-parallel in Gavel's table
        elif job.steps_per_s.get(worker_type, 0.0) > 0:
            limit = min(limit, job.scale_factor)  # sizes the scenario's matrix vouches for
        else:
            limit = 1
        return largest_power_of_two(limit)

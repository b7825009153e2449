"""The rate a placed job runs at: steps/s and communication share, as the engine sets them.

One-type gangs (the common case, and every restart under a preemptive policy) are memoized: their
rate is a pure function of (job type, worker type, GPUs, scale factor, gradient bytes, bandwidth,
noise scale ratio), and a run meets few such keys; each job also remembers its recent gangs'
rates (:class:`engine.state.GangRate`), which a restart on one of them reuses without building
the key. Every other grant goes through :func:`engine.step_time.progress.progress_rate`. The models
are those
of :mod:`engine.step_time.progress` and :mod:`engine.step_time.network`; this module only decides
which to call and
remembers the answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.errors import AllocationError
from engine.state import GANG_RATES_MAX, GangRate, JobState
from engine.step_time.network import StepModel, step_model_at
from engine.step_time.progress import (
    JobModel,
    consolidation_s,
    progress_rate,
    statistical_efficiency,
)

if TYPE_CHECKING:
    from engine.cluster import Placement
    from engine.config import NetworkConfig
    from engine.policies.base import Policy
    from engine.step_time.throughput import ThroughputMatrix


class JobRates:
    """Rates of placed jobs for one run.

    Args:
        matrix: the scenario's throughput matrix.
        network: bandwidths and congestion.
        round_s: the round length (s), for modes that consolidate every round.
        policy: the run's policy; its ``noise_scale_ratio`` and ``consolidation_fixed_s`` are
            read at every call (a policy sets them when it is built).
    """

    def __init__(
        self, matrix: ThroughputMatrix, network: NetworkConfig, round_s: float, policy: Policy
    ) -> None:
        self.matrix = matrix
        self.network = network
        self.round_s = round_s
        self.policy = policy
        self._gang_models: dict[tuple[Any, ...], StepModel] = {}

    def of(
        self, job: JobState, placement: Placement, bandwidth_gbps: float, now_s: float
    ) -> StepModel:
        """Steps/s and communication share of ``job`` on ``placement`` whose bottleneck link
        gives it ``bandwidth_gbps``.

        Raises:
            AllocationError: the job makes no progress there.
        """
        if placement.combine == "gang" and not placement.node_types:
            worker_type, num_gpus = placement.worker_type, placement.num_gpus
            noise = self.policy.noise_scale_ratio
            head = memo = job.gang_rate
            while memo is not None:  # the job's recent gangs (the common restart): no key
                if (
                    memo.num_gpus == num_gpus
                    and memo.bandwidth_gbps == bandwidth_gbps
                    and memo.worker_type == worker_type
                    and memo.noise_scale_ratio == noise
                ):
                    return memo.model
                memo = memo.next
            key = (job.job_type, worker_type, num_gpus, job.scale_factor,
                   job.gradient_bytes, bandwidth_gbps, noise)  # fmt: skip
            model = self._gang_models.get(key) or self._gang_model(key, job)
            if model.steps_per_s > 0:
                if head is not None and head.depth >= GANG_RATES_MAX:
                    head = None  # a full chain starts anew
                job.gang_rate = GangRate(worker_type, num_gpus, bandwidth_gbps, noise, model, head)
        else:
            model = progress_rate(
                JobModel(job.job_type, job.scale_factor, job.gradient_bytes), placement,
                self.matrix, self.network, now_s, self.round_s,
                self.policy.consolidation_fixed_s, bandwidth_gbps, self.policy.noise_scale_ratio,
            )  # fmt: skip
        if model.steps_per_s <= 0:
            raise AllocationError(
                f"{self.policy.name}: job {job.job_id} makes no progress on {placement}"
            )
        return model

    def final_s(self, job: JobState, placement: Placement, bandwidth_gbps: float) -> float:
        """The model consolidation a ``copies`` grant pays after its last step (s)."""
        model = JobModel(job.job_type, job.scale_factor, job.gradient_bytes)
        return consolidation_s(model, placement, bandwidth_gbps, self.policy.consolidation_fixed_s)

    def _gang_model(self, key: tuple[Any, ...], job: JobState) -> StepModel:
        _, worker_type, num_gpus, scale_factor, gradient_bytes, bandwidth_gbps, noise = key
        if num_gpus == scale_factor:  # measured at the job's scale factor, precomputed
            measured = job.steps_per_s[worker_type]
        else:
            measured = self.matrix.steps_per_s(job.job_type, worker_type, num_gpus)
        steps_per_s, comm_share = step_model_at(
            measured, num_gpus, gradient_bytes, bandwidth_gbps, self.network
        )
        efficiency = statistical_efficiency(num_gpus / scale_factor, noise)
        model = self._gang_models[key] = StepModel(steps_per_s * efficiency, comm_share)
        return model

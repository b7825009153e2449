"""The one step-time estimator: how fast a job would run on some GPUs, as the engine runs it.

Policies ask "how fast would this job run here" through :class:`StepTimeModel` (on
:attr:`engine.policies.base.PolicyContext.step_time`, built once per run). It calls the very
functions the engine calls when it sets a running job's rate
(:class:`engine.step_time.rates.JobRates`):
:func:`engine.step_time.network.step_model_at` times
:func:`engine.step_time.progress.statistical_efficiency` for a
gang of one worker type, :func:`engine.step_time.progress.progress_rate` for every other combine
mode
(mixed gangs, proportional, relaxed, HadarE's copies). Nothing here re-derives the ring model.

The one input a policy cannot know exactly is the placement's bottleneck bandwidth: the engine
gives a running job its share of each link it crosses
(:class:`engine.step_time.topology.LinkLoad`), which
depends on the jobs placed around it. The estimator uses the nominal bandwidth of the
placement's level under the congestion in force (:func:`engine.step_time.network.bottleneck_gbps`);
for a
job alone on its links with the default network (no background load, uplinks not
oversubscribed) that is the engine's figure exactly (tests/engine/test_step_time.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from engine.cluster import Placement
from engine.config import NetworkConfig
from engine.step_time.network import LEVELS, bottleneck_gbps, step_model_at
from engine.step_time.progress import (
    NOISE_SCALE_RATIO,
    JobModel,
    progress_rate,
    statistical_efficiency,
)
from engine.step_time.throughput import ThroughputMatrix

if TYPE_CHECKING:
    from engine.allocation import NodeInfo, Part
    from engine.state import JobState


class StepTime(NamedTuple):
    """Speed of a job on some GPUs.

    Attributes:
        steps_per_s: training progress in the throughput matrix's steps (summed over workers),
            at the statistical efficiency of the batch the GPUs process (0: cannot run there).
        comm_share: share of the time spent communicating (all-reduce or consolidation), 0..1.
    """

    steps_per_s: float
    comm_share: float

    @property
    def step_s(self) -> float:
        """Seconds per step of progress (inf when the job cannot run)."""
        return 1 / self.steps_per_s if self.steps_per_s > 0 else float("inf")

    @property
    def comm_s(self) -> float:
        """Seconds of communication per step of progress."""
        return self.comm_share * self.step_s if self.steps_per_s > 0 else 0.0

    @property
    def compute_s(self) -> float:
        """Seconds of computation per step of progress (the rest of :attr:`step_s`)."""
        return self.step_s - self.comm_s


class StepTimeModel:
    """The engine's step-time model for policies (module docstring).

    Args:
        nodes: the cluster's nodes in GPU-mix order (:attr:`PolicyContext.nodes`).
        network: bandwidths and congestion.
        matrix: the scenario's throughput matrix.
        round_s: the round length (a ``copies`` placement consolidates once per round).
    """

    def __init__(
        self,
        nodes: Sequence[NodeInfo],
        network: NetworkConfig,
        matrix: ThroughputMatrix,
        round_s: float,
    ) -> None:
        self.nodes = tuple(nodes)
        self.network = network
        self.matrix = matrix
        self.round_s = round_s
        self.rack_names = sorted({node.rack for node in self.nodes})

    def measured_steps_per_s(self, job: JobState, worker_type: str, num_gpus: int) -> float:
        """Matrix throughput of a consolidated gang, as the engine reads it (the job's
        precomputed rate at its scale factor, else the matrix at ``num_gpus``)."""
        if num_gpus == job.scale_factor:
            return job.steps_per_s.get(worker_type, 0.0)
        return self.matrix.steps_per_s(job.job_type, worker_type, num_gpus)

    def on(
        self,
        job: JobState,
        placement: Placement,
        now_s: float,
        noise_scale_ratio: float = NOISE_SCALE_RATIO,
        consolidation_fixed_s: float = 0.0,
        bandwidth_gbps: float | None = None,
    ) -> StepTime:
        """Speed of ``job`` on ``placement`` at ``now_s``, by the engine's own rate rule.

        Args:
            noise_scale_ratio, consolidation_fixed_s: the policy's (:class:`Policy` attributes).
            bandwidth_gbps: the placement's bottleneck bandwidth; None uses
                :meth:`bandwidth_gbps` (the nominal one, module docstring).
        """
        if bandwidth_gbps is None:
            bandwidth_gbps = self.bandwidth_gbps(placement, now_s)
        net = self.network
        if placement.combine == "gang" and not placement.node_types:
            n = placement.num_gpus
            measured = self.measured_steps_per_s(job, placement.worker_type, n)
            if measured <= 0:
                return StepTime(0.0, 0.0)
            steps_per_s, comm_share = step_model_at(
                measured, n, job.gradient_bytes, bandwidth_gbps, net
            )
            efficiency = statistical_efficiency(n / job.scale_factor, noise_scale_ratio)
            return StepTime(steps_per_s * efficiency, comm_share)
        model = progress_rate(
            JobModel(job.job_type, job.scale_factor, job.gradient_bytes), placement, self.matrix,
            net, now_s, self.round_s, consolidation_fixed_s, bandwidth_gbps, noise_scale_ratio,
        )  # fmt: skip
        return StepTime(*model)

    def bandwidth_gbps(self, placement: Placement, now_s: float) -> float:
        """Nominal bottleneck of ``placement`` (intra-node on one node, as the engine)."""
        if len(placement.nodes) == 1:
            return self.network.intra_node_gbps
        return bottleneck_gbps(self.network, placement.level, placement.racks, now_s)

    def at_level(
        self,
        job: JobState,
        worker_type: str,
        num_gpus: int,
        level: str,
        now_s: float,
        racks: tuple[str, ...] = (),
        measured_steps_per_s: float | None = None,
        noise_scale_ratio: float = NOISE_SCALE_RATIO,
    ) -> StepTime:
        """Speed of a gang of ``num_gpus`` GPUs of one type at a consolidation ``level`` (one of
        :data:`engine.step_time.network.LEVELS`) touching ``racks``, before the nodes are known.

        Args:
            racks: the racks whose congestion counts (``()``: only episodes on every link).
            measured_steps_per_s: the consolidated throughput to start from (default: the
                engine's, :meth:`measured_steps_per_s`).
        """
        measured = measured_steps_per_s
        if measured is None:
            measured = self.measured_steps_per_s(job, worker_type, num_gpus)
        if measured <= 0:
            return StepTime(0.0, 0.0)
        if level == LEVELS[0]:
            bandwidth = self.network.intra_node_gbps
        else:
            bandwidth = bottleneck_gbps(self.network, level, racks, now_s)
        steps_per_s, comm_share = step_model_at(
            measured, num_gpus, job.gradient_bytes, bandwidth, self.network
        )
        efficiency = statistical_efficiency(num_gpus / job.scale_factor, noise_scale_ratio)
        return StepTime(steps_per_s * efficiency, comm_share)

    def placement_of(self, parts: Sequence[Part], combine: str = "gang") -> Placement:
        """The placement the engine records for node-pinned ``parts`` (each ``part.node`` >= 0),
        as :meth:`engine.cluster.ClusterState.place_parts` builds it."""
        counts: dict[int, int] = {}
        for part in parts:
            counts[part.node] = counts.get(part.node, 0) + part.num_gpus
        nodes = sorted(counts)
        racks = tuple(sorted({self.nodes[n].rack for n in nodes}))
        level = LEVELS[0] if len(nodes) == 1 else LEVELS[1] if len(racks) == 1 else LEVELS[2]
        by_type: dict[str, int] = {}
        for node in nodes:
            worker_type = self.nodes[node].worker_type
            by_type[worker_type] = by_type.get(worker_type, 0) + counts[node]
        main = max(by_type, key=lambda wt: (by_type[wt], wt))
        node_types = tuple(self.nodes[n].worker_type for n in nodes) if len(by_type) > 1 else ()
        return Placement(main, tuple(nodes), tuple(counts[n] for n in nodes), racks, level,
                         sum(counts.values()), node_types, combine)  # fmt: skip

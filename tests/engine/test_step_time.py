"""The step-time estimator policies use is the rate the engine gives a running job.

Each case runs one job alone through the engine and reads its rate off the result (total steps
over the time it trained), then asks the estimator (``PolicyContext.step_time``) about the same
placement. ResNet-50 (batch size 64) on V100s; default network (25 Gb/s within a rack, 10 Gb/s
across racks, no background load), so a job alone on its links gets the nominal bottleneck.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.allocation import NodeLayout
from engine.cluster import ClusterState
from engine.config import (
    ClusterSpec,
    CongestionEpisode,
    NetworkConfig,
    PolicySpec,
    RoundConfig,
    ScenarioConfig,
)
from engine.placement import get_placement
from engine.policies.base import (
    Allocation,
    Grant,
    Part,
    Policy,
    PolicyContext,
    SchedulerState,
)
from engine.simulator import simulate
from engine.state import JobState
from engine.step_time.network import ring_comm_s
from engine.step_time.progress import JobModel, consolidation_s
from engine.step_time.throughput import gradient_bytes, load_matrix
from tests.engine.helpers import RESNET50, cluster, jobs_frame, use_policy

MATRIX = load_matrix()
STEPS = 20_000.0
TWO_RACKS = cluster(("v100", 1, 4, "r0"), ("v100", 1, 4, "r1"))
ONE_RACK = cluster(("v100", 2, 4, "r0"))
CROSS_RACK_SLOW = NetworkConfig(congestion=(CongestionEpisode(0.0, 1e9, 4.0, "cross_rack"),))


def _job(scale_factor: int) -> JobState:
    rates = {"v100": MATRIX.steps_per_s(RESNET50, "v100", scale_factor)}
    return JobState(0, "A", 0.0, RESNET50, scale_factor, STEPS, 1.0, rates,
                    gradient_bytes(RESNET50))  # fmt: skip


def _context(spec: ClusterSpec, network: NetworkConfig | None = None) -> PolicyContext:
    network = network or NetworkConfig()
    return PolicyContext(spec, RoundConfig(), np.random.default_rng(0), network, MATRIX)


def _engine_rate(spec: ClusterSpec, scale_factor: int, network: NetworkConfig) -> float:
    jobs = jobs_frame(("A", 0.0, RESNET50, scale_factor, STEPS))
    config = ScenarioConfig(cluster=spec, network=network)
    result = simulate(jobs, config, PolicySpec("fifo"), MATRIX)
    return STEPS / float(result.jobs["jct_s"].iloc[0])


@pytest.mark.parametrize(
    ("spec", "scale_factor", "network", "nodes"),
    [
        (ONE_RACK, 4, NetworkConfig(), (Part("v100", 4, 0),)),
        (ONE_RACK, 8, NetworkConfig(), (Part("v100", 4, 0), Part("v100", 4, 1))),
        (TWO_RACKS, 8, NetworkConfig(), (Part("v100", 4, 0), Part("v100", 4, 1))),
        (TWO_RACKS, 8, CROSS_RACK_SLOW, (Part("v100", 4, 0), Part("v100", 4, 1))),
    ],
    ids=["node", "rack", "network", "network-congested"],
)
def test_the_estimate_is_the_rate_the_engine_sets(
    spec: ClusterSpec, scale_factor: int, network: NetworkConfig, nodes: tuple[Part, ...]
) -> None:
    estimator = _context(spec, network).step_time
    placement = estimator.placement_of(nodes)
    estimate = estimator.on(_job(scale_factor), placement, 0.0)
    assert estimate.steps_per_s == pytest.approx(_engine_rate(spec, scale_factor, network), 1e-9)
    level = estimator.at_level(_job(scale_factor), "v100", scale_factor, placement.level, 0.0)
    assert level == estimate  # before the nodes are known, the level's figure is the same


def test_the_rack_estimate_adds_the_ring_over_the_nic_to_the_measured_step() -> None:
    """8 GPUs on two nodes of a rack: a step takes 8 / r8 s measured (node-local ring) plus
    what a ring at 25 Gb/s takes over one at 100 Gb/s."""
    job = _job(8)
    estimator = _context(ONE_RACK).step_time
    estimate = estimator.on(job, estimator.placement_of((Part("v100", 8, 0),)), 0.0)
    rack = estimator.at_level(job, "v100", 8, "rack", 0.0)
    grad, latency = job.gradient_bytes, 5e-6
    extra_s = ring_comm_s(8, grad, 25.0, latency) - ring_comm_s(8, grad, 100.0, latency)
    iteration_s = 8 / MATRIX.steps_per_s(RESNET50, "v100", 8) + extra_s
    assert rack.steps_per_s == pytest.approx(8 / iteration_s)
    assert rack.comm_share == pytest.approx(ring_comm_s(8, grad, 25.0, latency) / iteration_s)
    assert rack.compute_s + rack.comm_s == pytest.approx(rack.step_s)
    assert estimate.steps_per_s == pytest.approx(MATRIX.steps_per_s(RESNET50, "v100", 8))


MIXED = cluster(("v100", 2, 2, "r0"), ("p100", 2, 2, "r0"), ("k80", 1, 4, "r1"))


class _Pinned(Policy):
    """Starts every waiting job under ``GRANT`` (a test policy, registered per test)."""

    GRANT = Grant("v100", 1)

    def allocate(self, state: SchedulerState) -> Allocation:
        return {job.index: self.GRANT for job in state.waiting}


@pytest.mark.parametrize(
    ("combine", "parts", "scale_factor"),
    [
        ("gang", (Part("v100", 2, 0), Part("p100", 2, 2)), 4),
        ("proportional", (Part("v100", 2, 0), Part("k80", 2, 4)), 4),
        ("relaxed", (Part("v100", 1, 1), Part("p100", 2, 3)), 4),
        ("copies", (Part("v100", 2, 0), Part("k80", 4, 4)), 2),
    ],
)
def test_every_combine_mode_is_estimated_as_the_engine_runs_it(
    monkeypatch: pytest.MonkeyPatch, combine: str, parts: tuple[Part, ...], scale_factor: int
) -> None:
    """Node-pinned grants of mixed types: the job trains at the estimate (a ``copies`` job then
    holds its GPUs through one final consolidation, 10 s fixed in this test's policy)."""
    policy = type("Pinned", (_Pinned,), {"GRANT": Grant.of_parts(parts, combine)})
    policy.__init__ = _with_fixed_s  # type: ignore[method-assign]
    use_policy(monkeypatch, "test_pinned", policy)
    jobs = jobs_frame(("A", 0.0, RESNET50, scale_factor, STEPS))
    result = simulate(jobs, ScenarioConfig(cluster=MIXED), PolicySpec("test_pinned"), MATRIX)
    estimator = _context(MIXED).step_time
    placement = estimator.placement_of(parts, combine)
    job = _job(scale_factor)
    estimate = estimator.on(job, placement, 0.0, consolidation_fixed_s=10.0)
    bandwidth = estimator.bandwidth_gbps(placement, 0.0)
    model = JobModel(RESNET50, scale_factor, job.gradient_bytes)
    final_s = consolidation_s(model, placement, bandwidth, 10.0) if combine == "copies" else 0.0
    assert float(result.jobs["jct_s"].iloc[0]) == pytest.approx(
        STEPS / estimate.steps_per_s + final_s, 1e-9
    )


def _with_fixed_s(self: Policy, params: object, context: PolicyContext) -> None:
    Policy.__init__(self, params, context)
    self.consolidation_fixed_s = 10.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(1, 2)), min_size=1, max_size=4))
def test_placement_of_pinned_parts_is_the_engines(picks: list[tuple[int, int]]) -> None:
    """For any node-pinned parts that fit, the estimator's placement is the one the cluster
    records when the engine places them (nodes, counts, racks, level, types, combine)."""
    context = _context(MIXED)
    nodes = context.nodes
    parts = [Part(nodes[n].worker_type, count, n) for n, count in picks]
    state = ClusterState(NodeLayout.of(MIXED), get_placement("consolidated"))
    for combine in ("gang", "copies"):
        placed = state.place_parts(parts, combine)
        if placed is None:
            return  # more GPUs pinned to a node than it has
        assert context.step_time.placement_of(parts, combine) == placed
        state.release(placed)

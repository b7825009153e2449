"""Hand-computed schedules: every expected number is derived in the test from the model's
formulas and the throughput matrix, never read back from the simulator."""

from __future__ import annotations

import dataclasses

import pytest

from engine.config import CongestionEpisode, NetworkConfig, PolicySpec, RoundConfig, ScenarioConfig
from engine.errors import AllocationError
from engine.simulator import simulate
from engine.step_time.network import ring_comm_s
from engine.step_time.throughput import gradient_bytes, load_matrix
from tests.engine.helpers import RESNET50, cluster, jobs_frame

MATRIX = load_matrix()
TRANSFORMER = "Transformer (batch size 64)"


def one_gpu_scenario(**rounds: object) -> ScenarioConfig:
    return ScenarioConfig(
        cluster=cluster(("v100", 1, 1, "r0")),
        rounds=RoundConfig(**rounds),  # type: ignore[arg-type]
    )


def test_one_job_alone_runs_at_its_measured_throughput() -> None:
    """JCT = total_steps / steps_per_s(ResNet-50 bs64, v100, 1) = 1000 / 4.3948 = 227.54 s."""
    result = simulate(
        jobs_frame(("a", 0, RESNET50, 1, 1000)), one_gpu_scenario(), PolicySpec("fifo"), MATRIX
    )
    expected = 1000 / MATRIX.steps_per_s(RESNET50, "v100", 1)
    assert result.jobs.loc[0, "jct_s"] == pytest.approx(expected, rel=1e-12)
    assert result.jobs.loc[0, "queueing_delay_s"] == 0
    assert result.summary["makespan_s"] == pytest.approx(expected)


def test_one_job_spread_over_two_nodes_pays_the_extra_ring_time() -> None:
    """4 GPUs on two 2-GPU nodes of one rack: the bottleneck is the 25 Gb/s rack link.

    Iteration time = 4 / tput(4) + ring(4, G, 25 Gb/s) - ring(4, G, 100 Gb/s) (the measured
    throughput already includes node-local all-reduce); rate = 4 / iteration time.
    """
    config = ScenarioConfig(cluster=cluster(("v100", 2, 2, "r0")))
    steps = 5000.0
    result = simulate(
        jobs_frame(("a", 0, TRANSFORMER, 4, steps)), config, PolicySpec("fifo"), MATRIX
    )
    grad = gradient_bytes(TRANSFORMER)  # 65e6 params x 4 bytes
    extra_s = ring_comm_s(4, grad, 25.0, 5e-6) - ring_comm_s(4, grad, 100.0, 5e-6)
    iteration_s = 4 / MATRIX.steps_per_s(TRANSFORMER, "v100", 4) + extra_s
    assert extra_s == pytest.approx(2 * 3 / 4 * 260e6 * 8 * (1 / 25e9 - 1 / 100e9))
    assert result.jobs.loc[0, "jct_s"] == pytest.approx(steps / (4 / iteration_s), rel=1e-9)
    segment = result.segments.iloc[0]
    assert (segment["level"], segment["nodes"], segment["num_gpus"]) == ("rack", "n0,n1", 4)


def test_two_jobs_one_gpu_fifo_runs_them_back_to_back() -> None:
    """a (1000 steps, t=0) runs first; b (500 steps, t=10) waits until a finishes.

    JCT_a = 1000/r; JCT_b = 1000/r - 10 + 500/r with r = 4.3948 steps/s.
    """
    jobs = jobs_frame(("a", 0, RESNET50, 1, 1000), ("b", 10, RESNET50, 1, 500))
    result = simulate(jobs, one_gpu_scenario(), PolicySpec("fifo"), MATRIX)
    r = MATRIX.steps_per_s(RESNET50, "v100", 1)
    jct = result.jobs.set_index("job_id")["jct_s"]
    assert jct["a"] == pytest.approx(1000 / r)
    assert jct["b"] == pytest.approx(1000 / r - 10 + 500 / r)
    assert result.summary["queueing_delay_mean_s"] == pytest.approx((1000 / r - 10) / 2)


def test_fifo_without_backfill_blocks_behind_a_big_job() -> None:
    """2 GPUs; a (1 GPU) runs; big (2 GPUs) waits; small (1 GPU) arrives after big.

    Without backfill small waits until big has run (big starts when a ends, at 1000/r1, and
    runs 100/r2 s); with backfill small takes the idle GPU at once, at t=2.
    """
    jobs = jobs_frame(
        ("a", 0, RESNET50, 1, 1000), ("big", 1, RESNET50, 2, 100), ("small", 2, RESNET50, 1, 10)
    )
    config = ScenarioConfig(cluster=cluster(("v100", 1, 2, "r0")))
    plain = simulate(jobs, config, PolicySpec("fifo"), MATRIX).jobs.set_index("job_id")
    backfill = simulate(jobs, config, PolicySpec("fifo", {"backfill": True}), MATRIX)
    backfill_jobs = backfill.jobs.set_index("job_id")
    r1 = MATRIX.steps_per_s(RESNET50, "v100", 1)
    r2 = MATRIX.steps_per_s(RESNET50, "v100", 2)
    assert plain.loc["small", "first_start_s"] == pytest.approx(1000 / r1 + 100 / r2)
    assert backfill_jobs.loc["small", "first_start_s"] == 2.0


def test_congestion_slows_a_cross_rack_job_but_not_a_node_local_one() -> None:
    """Two racks of one 2-GPU node. 'local' (2 GPUs) fits one node; 'spread' (4 GPUs) spans racks.

    With a x4 inter-node congestion for the whole run, the spread job's bottleneck drops from
    10 Gb/s (cross-rack) to 2.5 Gb/s while the node-local job is untouched.
    """
    jobs_local = jobs_frame(("local", 0, TRANSFORMER, 2, 3000))
    jobs_spread = jobs_frame(("spread", 0, TRANSFORMER, 4, 3000))
    calm = ScenarioConfig(cluster=cluster(("v100", 1, 2, "r0"), ("v100", 1, 2, "r1")))
    congested = dataclasses.replace(
        calm, network=NetworkConfig(congestion=(CongestionEpisode(0, 1e9, 4.0),))
    )

    def jct(jobs, config):  # type: ignore[no-untyped-def]
        return simulate(jobs, config, PolicySpec("fifo"), MATRIX).jobs.loc[0, "jct_s"]

    assert jct(jobs_local, congested) == jct(jobs_local, calm)
    grad = gradient_bytes(TRANSFORMER)
    base_s = 4 / MATRIX.steps_per_s(TRANSFORMER, "v100", 4) - ring_comm_s(4, grad, 100, 5e-6)
    for config, bandwidth in ((calm, 10.0), (congested, 2.5)):
        iteration_s = base_s + ring_comm_s(4, grad, bandwidth, 5e-6)
        assert jct(jobs_spread, config) == pytest.approx(3000 * iteration_s / 4, rel=1e-9)


def test_congestion_episode_starting_mid_job() -> None:
    """Spread job; x4 congestion from t=100 s. Steps done by 100 s at the calm rate, the rest
    at the congested rate: JCT = 100 + (steps - 100 r_calm) / r_congested."""
    jobs = jobs_frame(("spread", 0, TRANSFORMER, 4, 3000))
    network = NetworkConfig(congestion=(CongestionEpisode(100.0, 1e9, 4.0, "cross_rack"),))
    config = ScenarioConfig(
        cluster=cluster(("v100", 1, 2, "r0"), ("v100", 1, 2, "r1")), network=network
    )
    grad = gradient_bytes(TRANSFORMER)
    base_s = 4 / MATRIX.steps_per_s(TRANSFORMER, "v100", 4) - ring_comm_s(4, grad, 100, 5e-6)
    r_calm = 4 / (base_s + ring_comm_s(4, grad, 10.0, 5e-6))
    r_congested = 4 / (base_s + ring_comm_s(4, grad, 2.5, 5e-6))
    result = simulate(jobs, config, PolicySpec("fifo"), MATRIX)
    assert result.jobs.loc[0, "jct_s"] == pytest.approx(100 + (3000 - 100 * r_calm) / r_congested)


def test_network_penalty_off_gives_measured_speed_anywhere() -> None:
    jobs = jobs_frame(("spread", 0, TRANSFORMER, 4, 3000))
    config = ScenarioConfig(
        cluster=cluster(("v100", 1, 2, "r0"), ("v100", 1, 2, "r1")),
        network=NetworkConfig(enabled=False),
    )
    result = simulate(jobs, config, PolicySpec("fifo"), MATRIX)
    assert result.jobs.loc[0, "jct_s"] == pytest.approx(
        3000 / MATRIX.steps_per_s(TRANSFORMER, "v100", 4)
    )


def test_a_policy_that_over_allocates_is_rejected() -> None:
    from engine.policies import base
    from engine.policies.fifo import Fifo

    class Greedy(Fifo):
        def allocate(self, state):  # type: ignore[no-untyped-def]
            return {j.index: base.Grant("v100", 2) for j in state.waiting}

    base.POLICIES.register("test_greedy", Greedy)
    try:
        with pytest.raises(AllocationError, match="granted 2 v100 GPUs"):
            simulate(
                jobs_frame(("a", 0, RESNET50, 1, 10)),
                one_gpu_scenario(),
                PolicySpec("test_greedy"),
                MATRIX,
            )
    finally:
        base.POLICIES.unregister("test_greedy")


@pytest.mark.parametrize(
    ("granted", "message"),
    [("future", "job b is not in the system"), ("running", "job a is already running")],
)
def test_grants_to_jobs_not_waiting_are_rejected(granted: str, message: str) -> None:
    """A grant to a job that has not arrived yet, or (non-preemptive policy) to a running job,
    stops the run with an error naming the job."""
    from engine.policies import base
    from engine.policies.fifo import Fifo

    class Wrong(Fifo):
        def allocate(self, state):  # type: ignore[no-untyped-def]
            if granted == "future":
                return {1: base.Grant("v100", 1)}  # job b arrives at t=100 s
            if state.running:
                return {j.index: base.Grant("v100", 1) for j in state.running}
            return {j.index: base.Grant("v100", 1) for j in state.waiting}

    base.POLICIES.register("test_wrong", Wrong)
    try:
        with pytest.raises(AllocationError, match=message):
            simulate(  # two GPUs: b's arrival finds one free, and the policy is asked
                jobs_frame(("a", 0, RESNET50, 1, 1000), ("b", 100, RESNET50, 1, 10)),
                ScenarioConfig(cluster=cluster(("v100", 1, 2, "r0"))),
                PolicySpec("test_wrong"),
                MATRIX,
            )
    finally:
        base.POLICIES.unregister("test_wrong")


def test_unmeasured_scale_factors_extrapolate_from_the_largest_measured_one() -> None:
    """Gavel measured 8 V100s for ResNet-50 bs64; 16 GPUs = 2 x the 8-GPU rate. ResNet-50 bs128
    measured 0 steps/s on 8 K80s (does not fit), so 16 K80s do not fit either."""
    assert MATRIX.steps_per_s(RESNET50, "v100", 16) == pytest.approx(
        2 * MATRIX.steps_per_s(RESNET50, "v100", 8)
    )
    assert MATRIX.steps_per_s("ResNet-50 (batch size 128)", "k80", 8) == 0
    assert MATRIX.steps_per_s("ResNet-50 (batch size 128)", "k80", 16) == 0

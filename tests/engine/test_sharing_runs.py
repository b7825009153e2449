"""Jobs that share GPUs in whole runs (issue 35): Muri-S and Muri-L on one GPU, against times
computed by hand from the sharing layer's rules (:mod:`engine.sharing`), and the layer off."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.allocation.grants import gang_grant, shared_grant
from engine.allocation.layout import NodeLayout
from engine.allocation.validation import validate_allocation
from engine.config import (
    ClusterSpec,
    NetworkConfig,
    NodeGroup,
    PolicySpec,
    RoundConfig,
    ScenarioConfig,
    SharingConfig,
    TraceSpec,
)
from engine.errors import AllocationError, ConfigError
from engine.jobs import job_states
from engine.policies.base import Allocation
from engine.presets import muri_testbed
from engine.scenario import run_scenario
from engine.sharing import MURI_K, SharingError
from engine.simulator import simulate
from tests.engine.helpers import jobs_frame
from tests.engine.test_properties import MATRIX, _max_concurrent_gpus, scenarios

HEADER = (
    "job_id,num_gpu,submit_time,iterations,model_name,batch_size,duration,interval,"
    "iteration_time,resource_time_0,resource_time_1,resource_time_2,priority"
)
# ms per iteration: data loading, GPU compute, communication; alone each takes 6 s an iteration
DATA_BOUND = "6000,4000,1000,1000"
COMM_BOUND = "6000,1000,1000,4000"
COMPUTE_BOUND = "6000,1000,4000,1000"


def trace(*jobs: tuple[str, int, str]) -> bytes:
    """A Muri trace of jobs (model, iterations, times) on one GPU, all submitted at 0."""
    rows = [f"{i},1,0,{its},{model},32,0,0,{times},0" for i, (model, its, times) in enumerate(jobs)]
    return "\n".join([HEADER, *rows]).encode()


def run(
    data: bytes, policy: str = "muri_s", k: int | None = None, sharing: SharingConfig | None = None
) -> pd.DataFrame:
    """The jobs table of ``policy`` (with sharing factor ``k`` when given) on one V100, no
    restore cost, no network penalty."""
    config = ScenarioConfig(
        trace=TraceSpec(source="upload:t.csv", assumed_worker_type="v100"),
        cluster=ClusterSpec((NodeGroup("v100", 1, 1, "r0"),)),
        network=NetworkConfig(enabled=False),
        rounds=RoundConfig(checkpoint_restore_s=0.0),
        policies=(PolicySpec(policy, {} if k is None else {"k": k}),),
        sharing=sharing,
    )
    result = run_scenario(config, upload=("t.csv", data))
    return result.results[0].jobs.set_index("job_id")


def test_complementary_jobs_share_a_gpu_at_full_speed() -> None:
    # Muri's cycle of (data-bound, comm-bound) is 6 s (tests/engine/test_sharing.py): each job
    # advances one iteration per 6 s, as alone, so both finish 100 iterations at 600 s.
    jobs = run(trace(("a", 100, DATA_BOUND), ("b", 100, COMM_BOUND)), k=2)
    assert jobs["completion_s"].tolist() == pytest.approx([600.0, 600.0])
    # exclusive GPUs: one after the other, 600 s and 1,200 s
    alone = run(trace(("a", 100, DATA_BOUND), ("b", 100, COMM_BOUND)))
    assert alone["completion_s"].tolist() == pytest.approx([600.0, 1200.0])


def test_jobs_with_the_same_bottleneck_share_slower() -> None:
    # two compute-bound jobs: a 9 s cycle, so 100 iterations each take 900 s
    jobs = run(trace(("c", 100, COMPUTE_BOUND), ("d", 100, COMPUTE_BOUND)), k=2)
    assert jobs["completion_s"].tolist() == pytest.approx([900.0, 900.0])


def test_time_slicing_divides_the_speed_by_the_group_and_the_efficiency() -> None:
    # each job at 0.8 / 2 of its speed: 100 x 6 s / 0.4 = 1,500 s
    sharing = SharingConfig(model="time_slicing", packing_efficiency=0.8)
    jobs = run(trace(("c", 100, COMPUTE_BOUND), ("d", 100, COMPUTE_BOUND)), k=2, sharing=sharing)
    assert jobs["completion_s"].tolist() == pytest.approx([1500.0, 1500.0])


def test_a_job_left_alone_in_its_group_runs_at_its_own_speed_again() -> None:
    # the group's 9 s cycle: job 0's 50 iterations end at 450 s, when job 1 has run 50 of its
    # 100; the next decision gives job 1 the GPU alone: 50 x 6 s more, 750 s
    data = trace(("c", 50, COMPUTE_BOUND), ("d", 100, COMPUTE_BOUND))
    for policy in ("muri_s", "muri_l"):
        jobs = run(data, policy, k=2)
        assert jobs["completion_s"].tolist() == pytest.approx([450.0, 750.0])


def test_k_1_gives_the_results_of_no_sharing_layer() -> None:
    data = trace(("a", 100, DATA_BOUND), ("b", 70, COMM_BOUND), ("c", 30, COMPUTE_BOUND))
    for policy in ("muri_s", "muri_l"):
        pd.testing.assert_frame_equal(run(data, policy, k=1), run(data, policy))
    for policy in ("muri_s", "fifo", "las"):  # the scenario's model changes nothing at k = 1
        pd.testing.assert_frame_equal(run(data, policy, sharing=SharingConfig()), run(data, policy))


def test_a_policy_that_does_not_share_refuses_k_above_1() -> None:
    with pytest.raises(ConfigError, match=r"policies\[1\] \(FIFO\): k = 2 but policy 'FIFO'"):
        run(trace(("a", 10, DATA_BOUND)), "fifo", k=2)


@pytest.mark.parametrize("policy", ["muri_s", "las_packing"])
def test_interleaving_needs_stage_times(policy: str) -> None:
    data = trace(("a", 10, DATA_BOUND)).replace(b",resource_time_2", b",other")
    if policy == "muri_s":  # packing LAS falls back to time slicing without stage columns
        with pytest.raises(SharingError, match="resource_time_0, resource_time_1, resource_time"):
            run(data, policy, k=2)
    for times, column in (
        ("6000,-1,1000,1000", "resource_time_0"),
        ("6000,1,,1", "resource_time_1"),
    ):
        with pytest.raises(SharingError, match=f"row 1 .*column {column}"):
            run(trace(("a", 10, times)), policy, k=2)
    # time slicing runs without them
    jobs = run(data, policy, k=2, sharing=SharingConfig(model="time_slicing"))
    assert jobs["completion_s"].tolist() == pytest.approx([60.0])


def test_sharing_config_reads_from_a_scenario_file() -> None:
    config = ScenarioConfig(sharing=SharingConfig(model="time_slicing", packing_efficiency=0.9))
    assert ScenarioConfig.from_dict(config.to_dict()) == config
    assert "sharing" not in ScenarioConfig().to_dict()  # off: the scenario hashes as before
    with pytest.raises(ConfigError, match="sharing.packing_efficiency"):
        ScenarioConfig.from_dict(
            {**ScenarioConfig().to_dict(), "sharing": {"packing_efficiency": 2}}
        )
    assert dataclasses.replace(config, sharing=None) == ScenarioConfig()


@pytest.mark.parametrize("policy", ["muri_s", "muri_l", "las_packing"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=scenarios(), k=st.integers(2, 4), efficiency=st.sampled_from([0.5, 1.0]))
def test_shared_runs_keep_the_invariants(
    policy: str, data: tuple[pd.DataFrame, ScenarioConfig], k: int, efficiency: float
) -> None:
    jobs, config = data
    sharing = SharingConfig(model="time_slicing", packing_efficiency=efficiency)
    config = dataclasses.replace(config, sharing=sharing)
    spec = PolicySpec(policy, {"k": k})
    result = simulate(jobs, config, spec, MATRIX)
    capacity = config.cluster.capacity()
    # at most k jobs on a GPU: each member's segment holds its host's GPUs
    for worker_type, peak in _max_concurrent_gpus(result.segments).items():
        assert peak <= k * capacity[worker_type]
    completed = result.segments[result.segments["end_reason"] == "completed"]
    assert sorted(completed.drop_duplicates("job_id")["job_id"]) == sorted(jobs["job_id"])
    assert (result.jobs["jct_s"] > 0).all()
    # the GPUs held (hosts' only) never exceed the cluster's
    assert result.utilization["utilization"].between(0, 1).all()
    again = simulate(jobs, config, spec, MATRIX)
    pd.testing.assert_frame_equal(result.jobs, again.jobs)


def test_the_muri_testbed_preset_sets_muris_k_and_overheads() -> None:
    config = muri_testbed(ScenarioConfig(policies=(PolicySpec("muri_s"), PolicySpec("srtf"))))
    assert [spec.params for spec in config.policies] == [{"k": MURI_K}, {}]
    assert config.sharing is not None
    # a group of 2 runs 1.33 / 1.015 times its modelled time (Muri's simulator)
    assert config.sharing.overhead(2) == pytest.approx(1.33 / 1.015)
    assert config.sharing.overhead(1) == 1.0
    mine = muri_testbed(ScenarioConfig(policies=(PolicySpec("muri_l", {"k": 2}),)))
    assert mine.policies[0].params == {"k": 2}
    assert muri_testbed(ScenarioConfig(policies=(PolicySpec("las"),))).sharing is None


@pytest.mark.parametrize(
    ("grants", "message"),
    [
        ({1: shared_grant("v100", 1, 0, 1.0)}, "holds no GPUs of its own"),
        ({1: shared_grant("v100", 1, 0, 1.0), 0: gang_grant("v100", 1)}, "comes after it"),
        ({0: gang_grant("v100", 1), 1: shared_grant("v100", 2, 0, 1.0)}, "the host 1 x v100"),
        ({0: gang_grant("v100", 1), 1: shared_grant("v100", 1, 0, 0.0)}, "share_speed 0.0"),
    ],
)
def test_a_shared_grant_that_does_not_hold_is_refused(grants: Allocation, message: str) -> None:
    cluster = ClusterSpec((NodeGroup("v100", 1, 2, "r0"),))
    frame = jobs_frame(("a", 0.0, "A3C", 1, 100.0), ("b", 0.0, "A3C", 1, 100.0))
    jobs = job_states(frame, MATRIX, cluster.capacity(), NetworkConfig())
    with pytest.raises(AllocationError, match=message):
        validate_allocation(grants, jobs, NodeLayout.of(cluster), MATRIX, "muri_s", 0.0)
    # the same group in the right order, on one GPU: both count one GPU
    host, guest = gang_grant("v100", 1), shared_grant("v100", 1, 0, 0.5)
    validate_allocation({0: host, 1: guest}, jobs, NodeLayout.of(cluster), MATRIX, "muri_s", 0.0)

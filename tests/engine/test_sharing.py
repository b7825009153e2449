"""The sharing layer (issue 35): Muri's interleaving model, time slicing, Muri's grouping and
the validation of sharing input, against values computed by hand."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from engine.config import PolicySpec, ScenarioConfig
from engine.errors import ConfigError
from engine.policies.muri.policy import MuriS
from engine.sharing import (
    Candidate,
    SharingConfig,
    SharingError,
    StageTimes,
    check_policy_sharing,
    check_sharing_factor,
    group_iteration_time_s,
    muri_groups,
    sliced_iteration_time_s,
    utilisation,
)
from engine.sharing.interleave import check_stage_times
from engine.sharing.stages import stage_times_ms
from engine.step_time.throughput import load_matrix
from engine.validate import validate_config

# data loading, GPU compute, communication seconds per iteration, and the iteration time alone
DATA_BOUND = StageTimes(data_s=4.0, compute_s=1.0, comm_s=1.0, iteration_s=6.0)
COMM_BOUND = StageTimes(data_s=1.0, compute_s=1.0, comm_s=4.0, iteration_s=6.0)
COMPUTE_BOUND = StageTimes(data_s=1.0, compute_s=4.0, comm_s=1.0, iteration_s=6.0)


def test_complementary_pair_interleaves_fully() -> None:
    # Muri's 4-slot cycle, ordering (DATA, COMM): f1 = f0 + COMM.comm 4 = 4; f2 = f0 + DATA.data 4
    # = 4; f3 = max(f2 + DATA.compute 1, f1 + COMM.data 1) = 5; f4 = max(f3 + DATA.comm 1,
    # f3 + COMM.compute 1) = 6; f5 = f4 + COMM.comm 4 = 10; f5 - f1 = 6 = f4 - f0: a 6 s cycle.
    # The other ordering gives 9 s and the alternation max(4, 1 + 4) + max(1, 1 + 1) = 7 s: the
    # best is 6 s, each job as fast as alone.
    assert group_iteration_time_s([DATA_BOUND, COMM_BOUND]) == pytest.approx(6.0)
    assert group_iteration_time_s([COMM_BOUND, DATA_BOUND]) == pytest.approx(6.0)
    # utilisation: (6 + 6) s of stage work over 6 s x 4 resources
    assert utilisation([DATA_BOUND, COMM_BOUND]) == pytest.approx(0.5)


def test_same_bottleneck_pair_slows_down() -> None:
    # both compute-bound: f1 = f0 + comm 1 = 1; f2 = f0 + data 1 = 1; f3 = max(f2 + compute 4,
    # f1 + data 1) = 5; f4 = max(f3 + comm 1, f3 + compute 4) = 9; f5 = f4 + comm 1 = 10;
    # f5 - f1 = 9 = f4 - f0: 9 s; the alternation max(1, 4 + 1) + max(1, 4 + 1) = 10 s. Each job
    # runs 1.5x slower than alone (still faster than taking turns: 12 s).
    assert group_iteration_time_s([COMPUTE_BOUND, COMPUTE_BOUND]) == pytest.approx(9.0)
    assert utilisation([COMPUTE_BOUND, COMPUTE_BOUND]) == pytest.approx(12 / 36)


def test_one_job_runs_at_its_measured_time() -> None:
    alone = StageTimes(1.0, 1.0, 1.0, iteration_s=5.0)  # Muri: the trace's iteration_time
    assert group_iteration_time_s([alone]) == 5.0


def test_group_size_is_bounded_by_the_cycle() -> None:
    with pytest.raises(SharingError, match="1 to 4 jobs"):
        group_iteration_time_s([COMPUTE_BOUND] * 5)
    assert math.isfinite(
        group_iteration_time_s([COMPUTE_BOUND, DATA_BOUND, COMPUTE_BOUND, DATA_BOUND])
    )


@pytest.mark.parametrize("field,value", [("data_s", -1.0), ("comm_s", math.nan)])
def test_bad_stage_times_name_job_and_field(field: str, value: float) -> None:
    with pytest.raises(SharingError, match=f"job 7: {field}"):
        check_stage_times(7, COMPUTE_BOUND._replace(**{field: value}))


def test_time_slicing() -> None:
    # 3 jobs share: each at a third of its speed, over an efficiency of 0.8
    assert sliced_iteration_time_s(2.0, 3, 0.8) == pytest.approx(7.5)
    assert sliced_iteration_time_s(2.0, 1, 1.0) == 2.0
    with pytest.raises(SharingError, match="packing_efficiency"):
        sliced_iteration_time_s(2.0, 2, 0.0)


@pytest.mark.parametrize("k", [0, 1.5, -2, math.nan, True, "2"])
def test_bad_k_names_the_field(k: object) -> None:
    with pytest.raises(ValueError, match=r"^k \(jobs sharing the same GPUs\) must be a whole"):
        check_sharing_factor(k)
    for policy, name in (("muri_s", "Muri-S"), ("las_packing", "Packing LAS")):
        with pytest.raises(ConfigError, match=rf"policies\[1\] \({name}\): .*\bk\b"):
            config = ScenarioConfig(policies=(PolicySpec(policy, {"k": k}),))
            validate_config(config, load_matrix())


def test_config_defaults_are_off_and_checks_model() -> None:
    assert check_sharing_factor(4.0) == 4
    assert MuriS.Params().k == 1  # the layer is off unless a policy's k says otherwise
    with pytest.raises(SharingError, match="sharing.model"):
        SharingConfig(model="mps")
    with pytest.raises(SharingError, match="sharing.packing_efficiency"):
        SharingConfig(packing_efficiency=1.5)


def test_non_sharing_policy_refuses_k() -> None:
    check_policy_sharing("las", False, {})
    check_policy_sharing("muri_s", True, {"k": 4})
    with pytest.raises(ValueError, match="k = 2 but policy 'las' does not share GPUs"):
        check_policy_sharing("las", False, {"k": 2})
    # the scenario check names the policy, k, and the policies that do share
    config = ScenarioConfig(policies=(PolicySpec("srtf"), PolicySpec("themis", {"k": 2})))
    with pytest.raises(
        ConfigError,
        match=r"policies\[2\] \(Themis\): k = 2 .* pick a policy that shares GPUs "
        r"\(las_packing, muri_l, muri_s\)",
    ):
        validate_config(config, load_matrix())


def _jobs(*stages: StageTimes, num_gpus: int = 1) -> list[Candidate]:
    return [Candidate(i, num_gpus, s) for i, s in enumerate(stages)]


def _ids(groups: list[tuple[Candidate, ...]]) -> list[list[int]]:
    return sorted(sorted(c.job_id for c in group) for group in groups)


def test_matching_pairs_complementary_jobs() -> None:
    # jobs 0, 1 data-bound; 2, 3 compute-bound; 2 GPUs for 4 one-GPU jobs, k = 2. Pairing data
    # with compute weighs 0.5 + 0.5 = 1.0; data with data (0.5) and compute with compute (1/3)
    # only 0.83.
    jobs = _jobs(DATA_BOUND, DATA_BOUND, COMPUTE_BOUND, COMPUTE_BOUND)
    groups = muri_groups({1: jobs}, cluster_gpus=2, k=2)
    assert _ids(groups[1]) == [[0, 2], [1, 3]] or _ids(groups[1]) == [[0, 3], [1, 2]]


def test_matching_leaves_jobs_alone_when_they_fit() -> None:
    jobs = _jobs(DATA_BOUND, COMPUTE_BOUND)
    assert _ids(muri_groups({1: jobs}, cluster_gpus=2, k=4)[1]) == [[0], [1]]
    assert _ids(muri_groups({1: jobs}, cluster_gpus=1, k=1)[1]) == [[0], [1]]


def test_matching_pairs_pairs_up_to_k() -> None:
    # 4 one-GPU jobs on 1 GPU, k = 4: round 1 makes two pairs (4 -> 2 GPUs), round 2 one group
    jobs = _jobs(DATA_BOUND, COMPUTE_BOUND, DATA_BOUND, COMPUTE_BOUND)
    assert _ids(muri_groups({1: jobs}, cluster_gpus=1, k=4)[1]) == [[0, 1, 2, 3]]
    # only as many merges as the cluster needs: 4 jobs on 3 GPUs -> one pair
    assert sorted(len(g) for g in muri_groups({1: jobs}, cluster_gpus=3, k=4)[1]) == [1, 1, 2]


def test_matching_never_mixes_gang_sizes() -> None:
    groups = muri_groups(
        {1: _jobs(DATA_BOUND), 2: _jobs(COMPUTE_BOUND, num_gpus=2)}, cluster_gpus=1, k=4
    )
    assert [len(g) for g in groups[1]] == [1] and [len(g) for g in groups[2]] == [1]


def test_stage_times_from_a_muri_table() -> None:
    frame = pd.DataFrame(
        {"job_id": [3, 4], "iteration_time": [437, 107], "resource_time_0": [0.6, 117],
         "resource_time_1": [419, 68], "resource_time_2": [49, 0]}
    )  # fmt: skip
    stages = stage_times_ms(frame, "t.csv")
    assert stages["3"] == pytest.approx(StageTimes(0.0006, 0.419, 0.049, 0.437))
    assert stages["4"].comm_s == 0.0


@pytest.mark.parametrize("bad", [-1, None, "fast"])
def test_bad_stage_time_names_row_job_and_column(bad: object) -> None:
    frame = pd.DataFrame(
        {"job_id": [3, 4], "iteration_time": [437, 107], "resource_time_0": [0.6, 117],
         "resource_time_1": [419, bad], "resource_time_2": [49, 0]}
    )  # fmt: skip
    with pytest.raises(SharingError, match=r"t.csv: row 2 \(job 4\), column resource_time_1"):
        stage_times_ms(frame, "t.csv")


def test_missing_stage_columns_are_named() -> None:
    frame = pd.DataFrame({"job_id": [1], "iteration_time": [5.0], "resource_time_0": [1.0]})
    with pytest.raises(SharingError, match="resource_time_1, resource_time_2"):
        stage_times_ms(frame, "t.csv")

"""Metrics against hand-computed values."""

from __future__ import annotations

import pandas as pd
import pytest

from engine.config import PolicySpec, ScenarioConfig
from engine.metrics import active_span_s, jain_index, jct_cdf, summarize, utilization_by_type
from engine.simulator import simulate
from engine.step_time.throughput import load_matrix
from tests.engine.helpers import RESNET50, cluster, jobs_frame

MATRIX = load_matrix()


def test_jain_index_by_hand() -> None:
    assert jain_index([1.0, 1.0, 1.0]) == pytest.approx(1.0)
    assert jain_index([1.0, 0.0, 0.0]) == pytest.approx(1 / 3)
    assert jain_index([1.0, 2.0]) == pytest.approx(9 / 10)  # (1+2)^2 / (2 (1+4))


def test_a_job_alone_on_a_one_type_cluster_has_rho_one() -> None:
    """Alone (N = 1) on one V100: isolated JCT = steps / tput = actual JCT, so rho = 1."""
    config = ScenarioConfig(cluster=cluster(("v100", 1, 1, "r0")))
    result = simulate(jobs_frame(("a", 0, RESNET50, 1, 500)), config, PolicySpec("fifo"), MATRIX)
    assert result.jobs.loc[0, "ftf_rho"] == pytest.approx(1.0)
    assert result.summary["jain_index"] == pytest.approx(1.0)


def test_two_jobs_sharing_one_gpu_have_rho_by_hand() -> None:
    """a (t=0) and b (t=0), each T = 500/r alone, FIFO on one GPU. Both are in the system
    during [0, T] (N = 2), then b alone during [T, 2T]: b's time-averaged N = 1.5.
    rho_a = T / (2 T) = 0.5; rho_b = 2T / (1.5 T) = 4/3."""
    config = ScenarioConfig(cluster=cluster(("v100", 1, 1, "r0")))
    jobs = jobs_frame(("a", 0, RESNET50, 1, 500), ("b", 0, RESNET50, 1, 500))
    rho = simulate(jobs, config, PolicySpec("fifo"), MATRIX).jobs.set_index("job_id")["ftf_rho"]
    assert rho["a"] == pytest.approx(0.5)
    assert rho["b"] == pytest.approx(4 / 3)


def test_utilization_is_time_weighted() -> None:
    """4 GPUs: 2 busy for 10 s, then 4 busy for 30 s -> (20 + 120) / (4 x 40) = 0.875."""
    steps = pd.DataFrame(
        {"time_s": [0.0, 10.0], "worker_type": ["v100"] * 2, "busy_gpus": [2, 4],
         "capacity_gpus": [4, 4], "utilization": [0.5, 1.0]}
    )  # fmt: skip
    assert utilization_by_type(steps, 40.0)["v100"] == pytest.approx(0.875)


def test_jct_cdf_is_sorted_and_ends_at_one() -> None:
    cdf = jct_cdf(pd.DataFrame({"jct_s": [30.0, 10.0, 20.0, float("nan")]}))
    assert list(cdf["jct_s"]) == [10.0, 20.0, 30.0]
    assert list(cdf["fraction"]) == pytest.approx([1 / 3, 2 / 3, 1.0])


def test_utilization_while_jobs_wait_or_run_leaves_out_empty_gaps() -> None:
    """2 GPUs. Job a: 1 GPU over [0, 10]; job b arrives at 30, waits 5 s, 1 GPU over [35, 40].
    Busy 10 + 5 = 15 GPU-s. Makespan 40 s -> 15 / (2 x 40) = 0.1875. Jobs are in the system
    during [0, 10] and [30, 40], 20 s -> 15 / (2 x 20) = 0.375."""
    jobs = pd.DataFrame(
        {"job_id": ["a", "b"], "arrival_s": [0.0, 30.0], "completion_s": [10.0, 40.0],
         "jct_s": [10.0, 10.0], "queueing_delay_s": [0.0, 5.0], "ftf_rho": [1.0, 2.0],
         "comm_overhead": [0.0, 0.0], "num_preemptions": [0, 0],
         "attained_service_gpu_s": [10.0, 5.0]}
    )  # fmt: skip
    steps = pd.DataFrame(
        {"time_s": [0.0, 10.0, 35.0, 40.0], "worker_type": ["v100"] * 4,
         "busy_gpus": [1, 0, 1, 0], "capacity_gpus": [2] * 4}
    )  # fmt: skip
    summary = summarize(jobs, steps)
    assert span_s(jobs) == pytest.approx(20.0)
    assert summary["utilization_mean"] == pytest.approx(0.1875)
    assert summary["utilization_active"] == pytest.approx(0.375)
    assert summary["gpu_hours_used"] == pytest.approx(15 / 3600)


def span_s(jobs: pd.DataFrame) -> float:
    return active_span_s(jobs["arrival_s"].to_numpy(), jobs["completion_s"].to_numpy())


def test_overlapping_jobs_count_their_shared_time_once() -> None:
    jobs = pd.DataFrame({"arrival_s": [0.0, 5.0, 20.0], "completion_s": [10.0, 8.0, 30.0]})
    assert span_s(jobs) == pytest.approx(20.0)  # [0, 10] and [20, 30]

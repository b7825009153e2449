"""Metrics against hand-computed values."""

from __future__ import annotations

import pandas as pd
import pytest

from engine.config import PolicySpec, ScenarioConfig
from engine.metrics import jain_index, jct_cdf, utilization_by_type
from engine.simulator import simulate
from engine.throughput import load_matrix
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

"""Utilization while jobs arrive and the job that set the makespan (engine.metrics), by hand."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from engine.config import PolicySpec, ScenarioConfig, TraceSpec
from engine.metrics import arrival_utilization, makespan_tail
from engine.scenario import run_scenario

# 4 GPUs of one type: 2 busy on [0, 10), 4 on [10, 20), 0 from 20 to 100 (one job's tail
# runs on another type's single GPU until 100).
UTILIZATION = pd.DataFrame({
    "time_s": [0.0, 10.0, 20.0, 0.0, 100.0], "worker_type": ["a", "a", "a", "b", "b"],
    "busy_gpus": [2, 4, 0, 1, 0], "capacity_gpus": [4, 4, 4, 1, 1],
    "utilization": [0.5, 1.0, 0.0, 1.0, 0.0],
})  # fmt: skip
JOBS = pd.DataFrame({
    "job_id": [1, 2, 3], "arrival_s": [0.0, 5.0, 20.0], "completion_s": [20.0, 20.0, 100.0],
    "scale_factor": [2, 2, 1],
})  # fmt: skip


def test_utilization_while_jobs_arrive_by_hand() -> None:
    """Window [0, 20] on 5 GPUs: type a 2 x 10 + 4 x 10 = 60, type b 20 GPU-s: 80 / 100."""
    assert arrival_utilization(JOBS, UTILIZATION) == pytest.approx(0.8)
    at_once = JOBS.assign(arrival_s=0.0)
    assert math.isnan(arrival_utilization(at_once, UTILIZATION))  # no window


def test_the_job_alone_at_the_end_sets_the_makespan() -> None:
    """Job 3 ran alone from 20 (the others' last completion) to 100: 80 of 100 s."""
    assert makespan_tail(JOBS) == (3, 80.0, 100.0)
    shared_end = JOBS.assign(completion_s=[20.0, 90.0, 100.0])  # job 2 until 90: 10 s alone
    assert makespan_tail(shared_end) is None
    assert makespan_tail(JOBS.iloc[:1]) is None


def test_a_run_reports_it_in_the_kpi_table_within_zero_and_one() -> None:
    config = ScenarioConfig(
        trace=TraceSpec(source="sample:philly_2000.csv", max_jobs=200),
        policies=(PolicySpec("fifo"), PolicySpec("las")),
    )
    kpi = run_scenario(config).kpi_table()
    assert ((kpi["utilization_arrivals"] >= 0) & (kpi["utilization_arrivals"] <= 1)).all()
    assert (kpi["utilization_arrivals"] >= kpi["utilization_mean"]).all()  # this trace: no tail

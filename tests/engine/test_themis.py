"""Themis as Muri's testbed code runs it (issue 35, ``themis``): decisions computed by hand on
one V100 (no restore cost), 6-s iterations."""

from __future__ import annotations

import pytest

from engine.config import (
    ClusterSpec,
    NetworkConfig,
    NodeGroup,
    PolicySpec,
    RoundConfig,
    ScenarioConfig,
    TraceSpec,
)
from engine.policies.base import get_policy
from engine.scenario import run_scenario
from tests.engine.test_sharing_runs import COMPUTE_BOUND, HEADER, run


def test_a_job_that_has_not_run_goes_first() -> None:
    # job 0 (1,000 iterations) runs alone from 0; job 1 (10) arrives at 600 s (the trace: ms).
    # Both get a share > 0 from the program, and a job that has never run ranks by share x 1e9
    # against share / rounds received (Muri's sort_val), so job 1 preempts: it ends at 660 s,
    # job 0's 900 iterations left end at 660 + 5,400 = 6,060 s
    rows = [f"0,1,0,1000,c,32,0,0,{COMPUTE_BOUND},0", f"1,1,600000,10,c,32,0,0,{COMPUTE_BOUND},0"]
    jobs = run("\n".join([HEADER, *rows]).encode(), "themis")
    assert jobs["completion_s"].tolist() == pytest.approx([6060.0, 660.0])


def test_two_equal_jobs_run_one_after_the_other() -> None:
    # equal shares (0.5 each), equal deficits: the sort is stable, so arrival order
    rows = [f"{i},1,0,100,c,32,0,0,{COMPUTE_BOUND},0" for i in range(2)]
    jobs = run("\n".join([HEADER, *rows]).encode(), "themis")
    assert jobs["completion_s"].tolist() == pytest.approx([600.0, 1200.0])


def test_themis_gives_exclusive_gpus() -> None:
    cls = get_policy("themis")
    assert cls.group == "Baselines" and not cls.shares_gpus and cls.preemptive


def test_a_round_without_an_arrival_or_completion_leaves_jobs_running() -> None:
    # Rounds of 360 s, arrivals and freed GPUs wait for a boundary (the testbed's rule). Jobs 0
    # and 1 (100 iterations of 6 s) arrive at 0 and job 0 runs first (equal shares). At 360 s
    # nothing arrived or completed, so Muri's code does not re-plan: job 0 runs on to 600 s, and
    # job 1 starts at the next boundary, 720 s, and ends at 1,320 s. (A re-plan at 360 s would
    # rank job 1, never run, first: it would end at 960 s and job 0 at 1,320 s.)
    rows = [f"{i},1,0,100,c,32,0,0,{COMPUTE_BOUND},0" for i in range(2)]
    config = ScenarioConfig(
        trace=TraceSpec(source="upload:t.csv", assumed_worker_type="v100"),
        cluster=ClusterSpec((NodeGroup("v100", 1, 1, "r0"),)),
        network=NetworkConfig(enabled=False),
        rounds=RoundConfig(checkpoint_restore_s=0.0, admit_mid_round=False),
        policies=(PolicySpec("themis"),),
    )
    data = "\n".join([HEADER, *rows]).encode()
    jobs = run_scenario(config, upload=("t.csv", data)).results[0].jobs
    assert jobs["completion_s"].tolist() == pytest.approx([600.0, 1320.0])

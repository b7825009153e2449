"""Themis as Muri's testbed code runs it (issue 35, ``themis``): decisions computed by hand on
one V100 (no restore cost), 6-s iterations."""

from __future__ import annotations

import numpy as np
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
from engine.errors import ConfigError
from engine.policies.base import build_params, get_policy
from engine.policies.themis.knob import take_part
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


def _run_knob(rows: list[str], fairness_knob: float) -> list[float]:
    """Completion times (s) of Themis with ``fairness_knob`` on one V100, no restore cost."""
    config = ScenarioConfig(
        trace=TraceSpec(source="upload:t.csv", assumed_worker_type="v100"),
        cluster=ClusterSpec((NodeGroup("v100", 1, 1, "r0"),)),
        network=NetworkConfig(enabled=False),
        rounds=RoundConfig(checkpoint_restore_s=0.0),
        policies=(PolicySpec("themis", {"fairness_knob": fairness_knob}),),
    )
    data = "\n".join([HEADER, *rows]).encode()
    jobs = run_scenario(config, upload=("t.csv", data)).results[0].jobs
    return list(jobs["completion_s"])


def test_the_fairness_knob_lets_only_the_most_unfair_take_part() -> None:
    # Two jobs of 10 iterations arrive at 0 on one GPU: job 0 at 6 s an iteration, job 1 at
    # 12 s. f = 0 (Muri's run): both take part; with nothing elapsed and I_j = remaining_j
    # (share 1), rho_j = 1 / (tput_j x_j), so the program equalizes tput x: x_1 = 2 x_0, i.e.
    # 1/3 and 2/3, and job 1 (larger share, never run) goes first: 0-120 s, job 0 120-180 s.
    slow = "12000,2000,8000,2000"
    rows = [f"0,1,0,10,c,32,0,0,{COMPUTE_BOUND},0", f"1,1,0,10,d,32,0,0,{slow},0"]
    assert _run_knob(rows, 0.0) == pytest.approx([180.0, 120.0])
    # f = 0.5: max(floor(0.5 x 2), 1) = 1 job takes part, the largest rho; neither has run
    # (rho = inf), so the earlier (same arrival: the lower index), job 0, takes part alone and
    # runs 0-60 s; job 1 gets no leftover (one GPU) and runs 60-180 s.
    assert _run_knob(rows, 0.5) == pytest.approx([60.0, 180.0])


def test_the_knob_takes_the_largest_rho_at_least_one() -> None:
    rho = np.array([2.0, np.inf, 5.0, 1.0])
    assert take_part(rho, 0.5).tolist() == [False, True, True, False]  # floor(0.5 x 4) = 2
    assert take_part(rho, 0.0).all()
    assert take_part(rho, 0.99).tolist() == [False, True, False, False]  # at least 1
    # (1 - 0.8) x 10 is 1.9999999999999996 in floating point: still 2 jobs
    assert take_part(np.arange(10.0), 0.8).tolist() == [False] * 8 + [True, True]


@pytest.mark.parametrize("bad", [1.0, -0.1, 1.5])
def test_a_fairness_knob_outside_zero_one_is_refused_by_name(bad: float) -> None:
    with pytest.raises(ConfigError, match=r"fairness_knob must be in \[0, 1\)"):
        build_params(get_policy("themis"), {"fairness_knob": bad})


def test_the_knob_defaults_to_every_job_taking_part() -> None:
    assert build_params(get_policy("themis"), {}).fairness_knob == 0.0

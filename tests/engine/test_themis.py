"""Themis as Muri's testbed code runs it (issue 35, ``themis``): decisions computed by hand on
one V100 (no restore cost), 6-s iterations."""

from __future__ import annotations

import pytest

from engine.policies.base import get_policy
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

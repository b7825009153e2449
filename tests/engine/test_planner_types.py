"""GPU types that run none of a trace's jobs are not offered to the planner (issue 38 point 3)."""

from __future__ import annotations

import pandas as pd

from engine.step_time.throughput import load_matrix
from engine.study.planner_types import idle_types

MLPERF = load_matrix("mlperf")
TYPES = ["H100-SXM", "MI300X", "A30"]


def _jobs(*shapes: tuple[str, int]) -> pd.DataFrame:
    return pd.DataFrame(
        {"job_type": [j for j, _ in shapes], "scale_factor": [s for _, s in shapes]}
    )


def test_a_type_without_any_result_for_the_jobs_is_idle() -> None:
    # MLPerf Training: llama31_8b has H100-SXM results, none on MI300X or A30
    assert idle_types(_jobs(("llama31_8b", 8)), MLPERF, TYPES) == ["MI300X", "A30"]


def test_one_runnable_job_makes_a_type_useful() -> None:
    # MI300X has an MLPerf result for llama2_70b_lora at 8 GPUs
    jobs = _jobs(("llama31_8b", 8), ("llama2_70b_lora", 8))
    assert idle_types(jobs, MLPERF, TYPES) == ["A30"]


def test_a_type_the_matrix_does_not_know_is_idle() -> None:
    assert idle_types(_jobs(("llama31_8b", 8)), MLPERF, ["H100-SXM", "no-such-gpu"]) == [
        "no-such-gpu"
    ]

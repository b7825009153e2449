"""Muri's trace format: detected by its columns, times in milliseconds, its own measured speeds;
and the testbed's relaunch rule on a hand-computed schedule."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from engine.config import (
    ClusterSpec,
    NodeGroup,
    PolicySpec,
    ScenarioConfig,
    TraceSpec,
    WorkerTypeSpec,
)
from engine.errors import OversizedJobsError, TraceError
from engine.presets import muri_testbed
from engine.scenario import run_scenario
from engine.step_time.throughput import load_matrix
from engine.traces import detect_format, load_trace
from engine.traces.reading import decode_text

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_traces" / "muri_cluster_trace.csv"
HEADER = (
    "job_id,num_gpu,submit_time,iterations,model_name,batch_size,duration,interval,"
    "iteration_time,resource_time_0,resource_time_1,resource_time_2,priority"
)
V100_NODE = ClusterSpec((NodeGroup("v100", 1, 8, "r0"),))


def muri_csv(*rows: str) -> bytes:
    return "\n".join([HEADER, *rows]).encode()


def load(raw: bytes, worker_type: str = "v100", name: str = "t.csv"):  # noqa: ANN201
    return load_trace(
        raw, name, load_matrix(), np.random.default_rng(0), assumed_worker_type=worker_type
    )


def test_the_testbed_trace_is_detected_as_muri_not_tiresias() -> None:
    raw = SAMPLE.read_bytes()
    assert detect_format(decode_text(raw, "c.csv"), "c.csv") == "muri"
    tiresias = (ROOT / "sample_traces" / "tiresias_60_job.csv").read_bytes()
    assert detect_format(decode_text(tiresias, "t.csv"), "t.csv") == "tiresias"


def test_times_are_milliseconds_and_steps_are_iterations() -> None:
    loaded = load(SAMPLE.read_bytes(), name="cluster_trace.csv")
    jobs = loaded.jobs
    assert loaded.format == "muri" and len(jobs) == 400
    job = jobs[jobs["job_id"] == "1"].iloc[0]  # 1,8,1534000,1463,vgg16,16,281000,...,214,...
    assert job["arrival_s"] == 1534.0
    assert job["duration_s"] == 281.0
    assert job["total_steps"] == 1463.0
    assert job["scale_factor"] == 8
    assert job["job_type"] == "vgg16 (batch size 16)"
    assert jobs["scale_factor"].value_counts().to_dict() == {
        8: 287, 32: 40, 1: 36, 4: 19, 2: 15, 16: 3
    }  # fmt: skip


def test_measured_iteration_times_are_the_traces_own_speeds() -> None:
    loaded = load(SAMPLE.read_bytes())
    measured = loaded.throughputs
    assert measured is not None
    # gpt2 (row 1: 8 GPUs, 437 ms) is outside Gavel's matrix and runs at its measured speed
    assert measured.steps_per_s("gpt2 (batch size 4)", "v100", 8) == pytest.approx(1 / 0.437)
    assert measured.steps_per_s("vgg16 (batch size 16)", "v100", 8) == pytest.approx(1 / 0.214)
    assert measured.steps_per_s("gpt2 (batch size 4)", "p100", 8) == 0.0  # none drawn
    assert not load_matrix().has_job_type("gpt2 (batch size 4)")
    assert "iteration_time" in loaded.notes[0] and "v100" in loaded.notes[0]
    assert "milliseconds" in loaded.notes[0]


def test_two_speeds_for_one_job_type_and_size_name_the_row() -> None:
    raw = muri_csv(
        "0,8,0,100,gpt2,4,5000,0,437,1,1,1,0",
        "1,8,10,100,gpt2,4,5000,0,500,1,1,1,0",
    )
    with pytest.raises(TraceError, match=r"row 2.*iteration_time|iteration_time.*row 2"):
        load(raw)


def test_a_negative_or_missing_time_names_its_row_and_column() -> None:
    with pytest.raises(TraceError, match="row 1") as info:
        load(muri_csv("0,8,-5,100,gpt2,4,5000,0,437,1,1,1,0"))
    assert "submit_time" in str(info.value)
    with pytest.raises(TraceError, match="iteration_time"):
        load(muri_csv("0,8,0,100,gpt2,4,5000,0,,1,1,1,0"))


def scenario(raw: bytes, cluster: ClusterSpec = V100_NODE, **kw: object) -> ScenarioConfig:
    trace = TraceSpec(source="upload:t.csv", assumed_worker_type="v100")
    return ScenarioConfig(trace=trace, cluster=cluster, policies=(PolicySpec("srtf"),), **kw)


def test_a_model_outside_gavels_matrix_runs_at_its_measured_speed() -> None:
    raw = muri_csv("0,8,0,1000,gpt2,4,5000,0,437,1,1,1,0")  # 1,000 x 0.437 s
    result = run_scenario(scenario(raw), upload=("t.csv", raw))
    assert result.results[0].jobs["jct_s"].iloc[0] == pytest.approx(437.0)
    # an extra GPU type twice as fast as v100 gets the trace's job type too
    cluster = ClusterSpec((NodeGroup("fast", 1, 8, "r0"),))
    config = scenario(raw, cluster, extra_worker_types=(WorkerTypeSpec("fast", "v100", 2.0),))
    result = run_scenario(config, upload=("t.csv", raw))
    assert result.results[0].jobs["jct_s"].iloc[0] == pytest.approx(218.5)


def test_a_cluster_without_the_measured_gpu_type_rejects_the_jobs() -> None:
    raw = muri_csv("0,8,0,1000,gpt2,4,5000,0,437,1,1,1,0")
    config = scenario(raw, ClusterSpec((NodeGroup("p100", 1, 8, "r0"),)))
    with pytest.raises(OversizedJobsError, match="'0'"):
        run_scenario(config, upload=("t.csv", raw))


def test_relaunch_at_rounds_with_events_by_hand() -> None:
    """A: 1,000 steps of 1 s from t=0; B: 100 steps, arrives at 100 s. Launch cost 10 s.

    A starts at the boundary 0 and runs from 10. B waits for the boundary at 360 (an event):
    B starts (runs 370-470) and A relaunches (350 steps done, runs again from 370). B's
    completion makes 720 a boundary with an event: A relaunches with 700 done and runs from
    730; its last 300 steps end at 1,030. Without the rule: A ends at 1,000 (a first start is
    free and nothing restarts it), B at 460.
    """
    raw = muri_csv(
        "A,1,0,1000,dqn,32,0,0,1000,1,1,1,0",
        "B,1,100000,100,dqn,32,0,0,1000,1,1,1,0",
    )
    config = muri_testbed(scenario(raw))
    config = dataclasses.replace(
        config, rounds=dataclasses.replace(config.rounds, step_time_overhead=0.0)
    )
    jobs = run_scenario(config, upload=("t.csv", raw)).results[0].jobs.set_index("job_id")
    assert jobs.loc["A", "completion_s"] == pytest.approx(1030.0)
    assert jobs.loc["B", "completion_s"] == pytest.approx(470.0)
    plain = dataclasses.replace(
        config, rounds=dataclasses.replace(config.rounds, relaunch_on_event=False)
    )
    jobs = run_scenario(plain, upload=("t.csv", raw)).results[0].jobs.set_index("job_id")
    assert jobs.loc["A", "completion_s"] == pytest.approx(1000.0)
    assert jobs.loc["B", "completion_s"] == pytest.approx(460.0)


def test_step_time_overhead_slows_every_step() -> None:
    raw = muri_csv("0,8,0,1000,gpt2,4,5000,0,437,1,1,1,0")
    config = scenario(raw)
    config = dataclasses.replace(
        config, rounds=dataclasses.replace(config.rounds, step_time_overhead=0.015)
    )
    result = run_scenario(config, upload=("t.csv", raw))
    assert result.results[0].jobs["jct_s"].iloc[0] == pytest.approx(437.0 * 1.015)

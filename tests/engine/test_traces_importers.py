"""Every importer on its real sample file: counts, known values, detection, seeded rules."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.step_time.throughput import ThroughputMatrix, load_matrix
from engine.traces import (
    JOB_COLUMNS,
    JOB_DTYPES,
    MODEL_TO_JOB_TYPE,
    POLLUX_GPU_HOURS,
    Loaded,
    detect_format,
    list_formats,
    list_samples,
    load_trace,
)
from engine.traces.reading import decode_text

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces"

EXPECTED_FORMAT = {
    "philly_2000.csv": "philly",
    "itp_raw_cluster06_500.csv": "itp_raw",
    "itp_elasticflow_cluster06_500.csv": "itp_elasticflow",
    "gavel_artifact_evaluation.trace": "gavel",
    "gavel_max_min_fairness.trace": "gavel",
    "gavel_msr_philly_vc2869ce_seed0_legacy7col.trace": "gavel",
    "tiresias_60_job.csv": "tiresias",
    "pollux_workload-6.csv": "pollux",
    "muri_cluster_trace.csv": "muri",
}


@pytest.fixture(scope="module")
def matrix() -> ThroughputMatrix:
    return load_matrix()


def load(name: str, matrix: ThroughputMatrix, seed: int = 0, **kw: str) -> Loaded:
    raw = (SAMPLES / name).read_bytes()
    return load_trace(raw, name, matrix, np.random.default_rng(seed), **kw)


def by_id(jobs: pd.DataFrame, job_id: str) -> pd.Series:
    rows = jobs[jobs["job_id"] == job_id]
    assert len(rows) == 1
    return rows.iloc[0]


def test_samples_listed_and_formats_registered() -> None:
    assert sorted(EXPECTED_FORMAT) == list_samples()
    # formats without a sample: canonical; Kueue Workloads (tests/engine/test_kueue_workloads.py)
    assert set(list_formats()) == set(EXPECTED_FORMAT.values()) | {"canonical", "kueue-workloads"}


@pytest.mark.parametrize("name", sorted(EXPECTED_FORMAT))
def test_detection_and_schema(name: str, matrix: ThroughputMatrix) -> None:
    raw = (SAMPLES / name).read_bytes()
    assert detect_format(decode_text(raw, name), name) == EXPECTED_FORMAT[name]
    jobs = load(name, matrix).jobs
    assert tuple(jobs.columns) == JOB_COLUMNS
    assert {c: str(t) for c, t in jobs.dtypes.items()} == JOB_DTYPES
    assert jobs["arrival_s"].is_monotonic_increasing
    assert jobs["job_id"].is_unique
    assert sorted(jobs["source_row"]) == list(range(1, len(jobs) + 1))
    loaded_types = set(matrix.merged(load(name, matrix).throughputs).job_types)
    assert set(jobs["job_type"]) <= loaded_types  # (Muri's: the trace's own job types)
    assert (jobs["total_steps"] > 0).all() and (jobs["scale_factor"] >= 1).all()


def test_philly(matrix: ThroughputMatrix) -> None:
    loaded = load("philly_2000.csv", matrix)
    jobs = loaded.jobs
    assert len(jobs) == 2000
    counts = jobs["scale_factor"].value_counts().to_dict()
    assert counts == {1: 1800, 2: 71, 4: 38, 8: 81, 16: 2, 32: 8}
    assert jobs["arrival_s"].iloc[0] == 0.0
    assert by_id(jobs, "philly-0002")["arrival_s"] == 70.0  # 00:01:55 - 00:00:45
    assert jobs["arrival_s"].max() == 3 * 86400 + 16 * 60 + 43 - 45  # 2017-10-04 00:16:43
    assert by_id(jobs, "philly-0001")["duration_s"] == 30.0
    assert "assumed p100 for step counts" in loaded.notes[0]
    assert loaded.notes[0].startswith("Philly does not record GPU types")


def test_step_rule_by_hand_for_one_row(matrix: ThroughputMatrix) -> None:
    jobs = load("philly_2000.csv", matrix, assumed_worker_type="k80").jobs
    row = jobs[jobs["scale_factor"] == 8].iloc[0]
    rate = matrix.steps_per_s(row["job_type"], "k80", 8)
    assert rate > 0
    assert row["total_steps"] == pytest.approx(row["duration_s"] * rate, rel=1e-12)


def test_seeded_job_types_are_deterministic(matrix: ThroughputMatrix) -> None:
    first = load("philly_2000.csv", matrix, seed=7).jobs
    pd.testing.assert_frame_equal(first, load("philly_2000.csv", matrix, seed=7).jobs)
    other = load("philly_2000.csv", matrix, seed=8).jobs
    assert (first["job_type"] != other["job_type"]).sum() > 1000
    pd.testing.assert_series_equal(first["arrival_s"], other["arrival_s"])


def test_drawn_job_types_are_roughly_uniform(matrix: ThroughputMatrix) -> None:
    jobs = load("philly_2000.csv", matrix).jobs
    counts = jobs["job_type"].value_counts()
    assert set(counts.index) == set(matrix.job_types)  # all 26 fit on p100
    assert counts.max() < 2 * 2000 / 26


def test_itp_raw(matrix: ThroughputMatrix) -> None:
    loaded = load("itp_raw_cluster06_500.csv", matrix)
    jobs = loaded.jobs
    assert len(jobs) == 500
    assert jobs["scale_factor"].value_counts().to_dict() == {8: 393, 4: 81, 1: 17, 64: 5, 16: 4}
    assert jobs["arrival_s"].max() == 1_860_800 - 16_566
    job = by_id(jobs, "4c693bbf-9253-5094-3f31-19e4abfd0310")
    assert (job["arrival_s"], job["duration_s"], job["scale_factor"]) == (0.0, 6216.0, 4)
    assert "ITP does not record GPU types; assumed p100" in loaded.notes[0]


def test_itp_elasticflow_maps_models(matrix: ThroughputMatrix) -> None:
    loaded = load("itp_elasticflow_cluster06_500.csv", matrix, assumed_worker_type="v100")
    jobs = loaded.jobs
    assert len(jobs) == 500
    job = by_id(jobs, "4c693bbf-9253-5094-3f31-19e4abfd0310")  # resnet50, 4 GPUs, 6216 s
    assert job["job_type"] == "ResNet-50 (batch size 64)"
    rate = matrix.steps_per_s("ResNet-50 (batch size 64)", "v100", 4)
    assert job["total_steps"] == pytest.approx(6216 * rate)
    counts = jobs["job_type"].value_counts().to_dict()
    assert counts["ResNet-50 (batch size 64)"] == 114 + 101 + 75  # resnet50, vgg16, inception3
    assert counts["Transformer (batch size 64)"] == 72 + 70  # gpt2, bert
    assert counts["LM (batch size 20)"] == 68  # deepspeech2
    assert any("assumed v100" in note for note in loaded.notes)


def test_gavel_current_format(matrix: ThroughputMatrix) -> None:
    jobs = load("gavel_artifact_evaluation.trace", matrix).jobs
    assert len(jobs) == 15
    first = by_id(jobs, "gavel-01")
    assert (first["job_type"], first["total_steps"], first["scale_factor"]) == (
        "ResNet-50 (batch size 64)",
        2931.0,
        1,
    )
    assert by_id(jobs, "gavel-02")["scale_factor"] == 2
    assert len(load("gavel_max_min_fairness.trace", matrix).jobs) == 96
    assert jobs["duration_s"].isna().all()


def test_gavel_legacy_format(matrix: ThroughputMatrix) -> None:
    loaded = load("gavel_msr_philly_vc2869ce_seed0_legacy7col.trace", matrix)
    jobs = loaded.jobs
    assert len(jobs) == 533
    second = by_id(jobs, "gavel-002")
    assert second["job_type"] == "Recommendation (batch size 8192)"
    assert (second["total_steps"], second["arrival_s"], second["scale_factor"]) == (
        557847.0,
        1456.0,
        4,
    )
    last = by_id(jobs, "gavel-533")
    assert (last["arrival_s"], last["scale_factor"]) == (8141054.0, 8)
    assert (jobs["priority_weight"] == 1.0).all()
    assert "legacy" in loaded.notes[0]


def test_tiresias(matrix: ThroughputMatrix) -> None:
    jobs = load("tiresias_60_job.csv", matrix).jobs
    assert len(jobs) == 60
    assert jobs["scale_factor"].value_counts().to_dict() == {1: 30, 8: 10, 2: 10, 4: 10}
    job = by_id(jobs, "0")  # vgg19, 1 GPU, 164 s
    assert job["job_type"] == "ResNet-50 (batch size 64)"
    rate = matrix.steps_per_s("ResNet-50 (batch size 64)", "p100", 1)
    assert job["total_steps"] == pytest.approx(164 * rate)
    assert by_id(jobs, "59")["arrival_s"] == 1779.0


def test_pollux_fixed_work_rule(matrix: ThroughputMatrix) -> None:
    loaded = load("pollux_workload-6.csv", matrix)
    jobs = loaded.jobs
    assert len(jobs) == 160
    counts = jobs["job_type"].value_counts().to_dict()
    assert counts["ResNet-18 (batch size 128)"] == 67  # cifar10
    assert counts["Recommendation (batch size 2048)"] == 54  # ncf
    job = by_id(jobs, "cifar10-0")  # 6 replicas, arrival 53 s
    assert (job["arrival_s"], job["scale_factor"]) == (53.0, 6)
    rate = matrix.steps_per_s("ResNet-18 (batch size 128)", "p100", 6)
    assert job["total_steps"] == pytest.approx(POLLUX_GPU_HOURS["cifar10"] * 3600 / 6 * rate)
    assert jobs["duration_s"].isna().all()
    assert any("Pollux workloads have no durations" in note for note in loaded.notes)


def test_model_table_targets_exist(matrix: ThroughputMatrix) -> None:
    assert set(MODEL_TO_JOB_TYPE.values()) <= set(matrix.job_types)


def test_format_override(matrix: ThroughputMatrix) -> None:
    """The philly file read as canonical fails: the override is honoured, not re-detected."""
    from engine.errors import TraceError

    with pytest.raises(TraceError, match="unknown column"):
        load("philly_2000.csv", matrix, format="canonical")
    assert load("philly_2000.csv", matrix, format="philly").format == "philly"

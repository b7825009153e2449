"""Broken trace files, column mapping, cluster fit: each error names file, row and column."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.config import ClusterSpec, NodeGroup
from engine.errors import OversizedJobsError, TraceError
from engine.step_time.throughput import ThroughputMatrix, load_matrix
from engine.traces import (
    apply_column_mapping,
    check_cluster_fit,
    load_trace,
    required_canonical_columns,
)

BROKEN = Path(__file__).resolve().parents[1] / "data" / "broken"

# file -> (format override or "auto", exact expected error message)
CASES: dict[str, tuple[str, str]] = {
    "empty.csv": ("auto", "empty.csv: the file is empty; expected a CSV or Gavel .trace file"),
    "workbook.xlsx": ("auto", "workbook.xlsx: this looks like an Excel workbook"),
    "philly_native.json": ("philly", "philly_native.json: this looks like JSON"),
    "binary.csv": ("auto", "binary.csv: this is a binary file, not CSV or .trace text"),
    "unrecognised.csv": ("auto", "unrecognised.csv: could not recognise the trace format"),
    "philly_missing_num_gpus.csv": (
        "philly",
        "philly_missing_num_gpus.csv, column 'num_gpus': missing column(s) ['num_gpus']; "
        "the philly format needs the columns ['timestamp', 'duration', 'num_gpus']",
    ),
    "philly_bad_timestamp.csv": (
        "auto",
        "philly_bad_timestamp.csv, row 3, column 'timestamp': '2017-10-32 00:05:41' is not a "
        "time of the form YYYY-MM-DD HH:MM:SS",
    ),
    "philly_negative_duration.csv": (
        "auto",
        "philly_negative_duration.csv, row 2, column 'duration': must be >0, got -61.0",
    ),
    "philly_zero_gpus.csv": ("auto", "philly_zero_gpus.csv, row 3, column 'num_gpus': must be >0"),
    "philly_nan_duration.csv": (
        "auto",
        "philly_nan_duration.csv, row 1, column 'duration': 'NaN' is not a finite number",
    ),
    "philly_short_row.csv": (
        "auto",
        "philly_short_row.csv, row 2: expected 5 fields (timestamp, duration, num_gpus, "
        "gpu_time, cluster), found 4",
    ),
    "itp_raw_bad_time.csv": (
        "auto",
        "itp_raw_bad_time.csv, row 2, column 'submission_time': 'soon' is not a number",
    ),
    "itp_raw_blank_gpus.csv": ("auto", "itp_raw_blank_gpus.csv, row 2, column 'num_gpu': missing"),
    "itp_elasticflow_zero_duration.csv": (
        "auto",
        "itp_elasticflow_zero_duration.csv, row 1, column 'duration': must be >0, got 0",
    ),
    "itp_elasticflow_unknown_model.csv": (
        "auto",
        "itp_elasticflow_unknown_model.csv, row 2, column 'model_name': unknown model 'unet'",
    ),
    "tiresias_fractional_gpus.csv": (
        "auto",
        "tiresias_fractional_gpus.csv, row 2, column 'num_gpu': '2.5' is not a whole number",
    ),
    "pollux_unknown_application.csv": (
        "auto",
        "pollux_unknown_application.csv, row 2, column 'application': unknown model 'mnist'",
    ),
    "canonical_unknown_column.csv": (
        "canonical",
        "canonical_unknown_column.csv, column 'owner': unknown column(s) ['owner']",
    ),
    "canonical_missing_scale_factor.csv": (
        "canonical",
        "canonical_missing_scale_factor.csv, column 'scale_factor': missing column(s) "
        "['scale_factor']; the canonical format needs the columns ['job_id', 'arrival_s', "
        "'job_type', 'scale_factor', 'total_steps']",
    ),
    "canonical_unknown_job_type.csv": (
        "auto",
        "canonical_unknown_job_type.csv, row 2, column 'job_type': unknown job type "
        "'ResNet-9000 (batch size 64)'; the throughput matrix has: A3C, CycleGAN",
    ),
    "canonical_duplicate_id.csv": (
        "auto",
        "canonical_duplicate_id.csv, row 2, column 'job_id': job id 'j1' appears more than once",
    ),
    "canonical_negative_arrival.csv": (
        "auto",
        "canonical_negative_arrival.csv, row 1, column 'arrival_s': must be >=0, got -5",
    ),
    "canonical_zero_priority.csv": (
        "auto",
        "canonical_zero_priority.csv, row 2, column 'priority_weight': must be >0, got 0",
    ),
    "canonical_header_only.csv": (
        "auto",
        "canonical_header_only.csv: the trace has no jobs",
    ),
    "gavel_ragged.trace": (
        "auto",
        "gavel_ragged.trace, row 2: expected 10 tab-separated fields like line 1, found 8",
    ),
    "gavel_bad_scale_factor.trace": (
        "auto",
        "gavel_bad_scale_factor.trace, row 2, column 'scale_factor': 'four' is not a number",
    ),
    "gavel_unknown_job_type.trace": (
        "auto",
        "gavel_unknown_job_type.trace, row 1, column 'job_type': unknown job type "
        "'AlexNet (batch size 64)'",
    ),
}


@pytest.fixture(scope="module")
def matrix() -> ThroughputMatrix:
    return load_matrix()


def test_corpus_is_complete() -> None:
    assert sorted(CASES) == sorted(p.name for p in BROKEN.iterdir())


@pytest.mark.parametrize("name", sorted(CASES))
def test_broken_file_message(name: str, matrix: ThroughputMatrix) -> None:
    fmt, expected = CASES[name]
    raw = (BROKEN / name).read_bytes()
    with pytest.raises(TraceError) as info:
        load_trace(raw, name, matrix, np.random.default_rng(0), format=fmt)
    assert str(info.value).startswith(expected)
    assert info.value.file == name


def test_error_attributes_name_row_and_column(matrix: ThroughputMatrix) -> None:
    raw = (BROKEN / "philly_zero_gpus.csv").read_bytes()
    with pytest.raises(TraceError) as info:
        load_trace(raw, "x.csv", matrix, np.random.default_rng(0))
    assert (info.value.file, info.value.row, info.value.column) == ("x.csv", 3, "num_gpus")


def test_unknown_format_name_and_assumed_type(matrix: ThroughputMatrix) -> None:
    raw = b"job_id,submission_time,duration,num_gpu\na,1,2,1\n"
    rng = np.random.default_rng(0)
    with pytest.raises(TraceError, match="unknown trace format 'helios'; known: canonical, gavel"):
        load_trace(raw, "a.csv", matrix, rng, format="helios")
    with pytest.raises(TraceError, match="assumed GPU type 'a100' is not in the throughput matrix"):
        load_trace(raw, "a.csv", matrix, rng, assumed_worker_type="a100")


def test_job_type_that_fits_nowhere() -> None:
    matrix = ThroughputMatrix({"A3C": {"k80": {1: 2.0}}, "Ghost": {"k80": {1: 0.0}}})
    raw = b"job_id,arrival_s,job_type,scale_factor,total_steps\nj1,0,A3C,1,5\nj2,1,Ghost,1,5\n"
    with pytest.raises(TraceError) as info:
        load_trace(raw, "g.csv", matrix, np.random.default_rng(0))
    assert str(info.value) == (
        "g.csv, row 2, column 'job_type': job type 'Ghost' fits on no worker type of the "
        "throughput matrix (k80)"
    )


def test_mapped_type_that_does_not_run_on_assumed_type() -> None:
    matrix = ThroughputMatrix({"ResNet-50 (batch size 64)": {"k80": {1: 1.0, 2: 0.0}}})
    raw = b"name,time,application,num_replicas,batch_size\na,0,imagenet,1,64\nb,5,imagenet,2,64\n"
    with pytest.raises(TraceError) as info:
        load_trace(raw, "p.csv", matrix, np.random.default_rng(0), assumed_worker_type="k80")
    assert str(info.value).startswith(
        "p.csv, row 2, column 'application': job type 'ResNet-50 (batch size 64)' does not run "
        "on 2 k80 GPUs"
    )


# --- column mapping --------------------------------------------------------------------------


def user_table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": ["a", "b", "c"],
            "submit_unix": [1_700_000_100, 1_700_000_000, 1_700_000_050],
            "model": ["A3C", "ResNet-18 (batch size 64)", "A3C"],
            "gpus": [1, 2, 1],
            "steps": [100.0, 2000.0, 50.0],
            "runtime": [10.0, np.nan, 5.0],
            "user": ["x", "y", "z"],
        }
    )


MAPPING = {
    "job_id": "id",
    "arrival_s": "submit_unix",
    "job_type": "model",
    "scale_factor": "gpus",
    "total_steps": "steps",
}


def test_required_canonical_columns() -> None:
    assert required_canonical_columns() == [
        "job_id",
        "arrival_s",
        "job_type",
        "scale_factor",
        "total_steps",
    ]


def test_column_mapping(matrix: ThroughputMatrix) -> None:
    mapping = {**MAPPING, "duration_s": "runtime"}
    jobs = apply_column_mapping(user_table(), mapping, matrix, shift_to_zero=True)
    assert list(jobs["job_id"]) == ["b", "c", "a"]
    assert list(jobs["arrival_s"]) == [0.0, 50.0, 100.0]
    assert list(jobs["source_row"]) == [2, 3, 1]
    assert np.isnan(jobs["duration_s"].iloc[0]) and jobs["duration_s"].iloc[1] == 5.0
    assert (jobs["priority_weight"] == 1.0).all()


def test_column_mapping_errors_name_user_columns(matrix: ThroughputMatrix) -> None:
    frame = user_table()
    frame.loc[1, "gpus"] = 0
    with pytest.raises(TraceError) as info:
        apply_column_mapping(frame, MAPPING, matrix, file="mine.csv")
    assert str(info.value) == "mine.csv, row 2, column 'gpus': must be >0, got 0"
    with pytest.raises(TraceError, match=r"no column chosen for \['total_steps'\]"):
        apply_column_mapping(
            user_table(), {k: v for k, v in MAPPING.items() if k != "total_steps"}, matrix
        )
    with pytest.raises(TraceError, match="mapped column 'nope' is not in the file"):
        apply_column_mapping(user_table(), {**MAPPING, "job_id": "nope"}, matrix)
    with pytest.raises(TraceError, match="'owner' is not a canonical column"):
        apply_column_mapping(user_table(), {**MAPPING, "owner": "user"}, matrix)
    frame = user_table()
    frame.loc[2, "steps"] = np.nan
    with pytest.raises(TraceError, match="row 3, column 'steps': missing value"):
        apply_column_mapping(frame, MAPPING, matrix)


# --- cluster fit -----------------------------------------------------------------------------


def jobs_table(matrix: ThroughputMatrix) -> pd.DataFrame:
    raw = (
        b"job_id,arrival_s,job_type,scale_factor,total_steps\n"
        b"small,0,A3C,4,10\n"
        b"big,1,ResNet-50 (batch size 128),16,10\n"
        b"huge,2,A3C,64,10\n"
        b"fits_v100,3,ResNet-50 (batch size 128),8,10\n"
    )
    return load_trace(raw, "c.csv", matrix, np.random.default_rng(0)).jobs


def fit_cluster() -> ClusterSpec:
    return ClusterSpec((NodeGroup("v100", 1, 8), NodeGroup("k80", 4, 8)))


def test_check_cluster_fit_raises(matrix: ThroughputMatrix) -> None:
    # ResNet-50 (batch size 128) runs on K80 at one GPU, so 16 GPUs fit the 32 K80s.
    with pytest.raises(OversizedJobsError) as info:
        check_cluster_fit(jobs_table(matrix), fit_cluster(), matrix, False, file="c.csv")
    err = info.value
    assert err.job_ids == ["huge"]
    assert (err.row, err.column) == (3, "scale_factor")
    assert str(err).startswith(
        "c.csv, row 3, column 'scale_factor': 1 job(s) need more GPUs than the cluster has of "
        "any GPU type they run on; the first, job 'huge', needs 64 GPUs but at most 32"
    )


def test_check_cluster_fit_counts_worker_types_a_job_runs_on() -> None:
    matrix = ThroughputMatrix({"A3C": {"k80": {1: 1.0}, "v100": {1: 0.0}}})
    jobs = load_trace(
        b"job_id,arrival_s,job_type,scale_factor,total_steps\na,0,A3C,4,1\nb,1,A3C,2,1\n",
        "k.csv",
        matrix,
        np.random.default_rng(0),
    ).jobs
    cluster = ClusterSpec((NodeGroup("v100", 4, 8), NodeGroup("k80", 1, 2)))
    kept, dropped = check_cluster_fit(jobs, cluster, matrix, True)
    assert dropped == ["a"] and list(kept["job_id"]) == ["b"]


def test_check_cluster_fit_drops(matrix: ThroughputMatrix) -> None:
    small = ClusterSpec((NodeGroup("v100", 1, 8),))
    kept, dropped = check_cluster_fit(jobs_table(matrix), small, matrix, True)
    assert dropped == ["big", "huge"]
    assert list(kept["job_id"]) == ["small", "fits_v100"]
    assert list(kept.index) == [0, 1]
    kept2, none = check_cluster_fit(kept, small, matrix, False)
    assert none == [] and kept2.equals(kept)

"""Teams in the jobs table: a canonical CSV's ``queue`` and ``priority``, ``TraceSpec.team_column``
for any format with a header, kept through cuts, the load what-if and the drop of oversized jobs;
and a trace without teams loaded exactly as before."""

from __future__ import annotations

import hashlib

import pandas as pd
import pytest

from engine.config import ClusterSpec, LoadConfig, NodeGroup, ScenarioConfig, TraceSpec
from engine.errors import ConfigError, TraceError
from engine.scenario import load_scenario_trace
from engine.sources import SAMPLE_DIR
from engine.step_time.throughput import load_matrix
from engine.traces import (
    JOB_COLUMNS,
    JOB_DTYPES,
    OPTIONAL_JOB_DTYPES,
    TraceLoad,
    apply_column_mapping,
    to_canonical_csv,
)

PHILLY = SAMPLE_DIR / "philly_2000.csv"
CANONICAL = b"""job_id,arrival_s,job_type,scale_factor,total_steps,queue,priority
j1,0,ResNet-50 (batch size 64),1,2931,vision,
j2,10,Transformer (batch size 16),2,11005,nlp,5
j3,20,LM (batch size 20),4,150000,,-2
"""
# sha256 of each sample's table (dtypes, then CSV at full precision), as loaded on main before
# the team columns existed (default scenario, drop_oversized).
MAIN_HASHES = {
    "philly_2000.csv": "abc8914182be4fd18527e6a5af96efde88490022ecdcbc1d1eb731c029296cfa",
    "tiresias_60_job.csv": "b092837e84bd9b46f11665e1107adbd609afb47ffb09ee966453d4df9239b646",
    "gavel_max_min_fairness.trace": (
        "95eaac84e750011fe2c243aac352a24d229098ad9648c2d71d6ed4145a789ed6"
    ),
    "itp_raw_cluster06_500.csv": "3fb6b8233617f50c25d2e0c77afdf56b70224a42a714f38e538c4171e87b4576",
    "muri_cluster_trace.csv": "9b23218ea5f178cf1128e53771bf7a13f474ad8d7933caa71302a1e463d7c312",
}


def _load(spec: TraceSpec, file: tuple[str, bytes] | None = None, **config: object) -> TraceLoad:
    return load_scenario_trace(ScenarioConfig(trace=spec, **config), file)  # type: ignore[arg-type]


def _upload(name: str, data: bytes, **spec: object) -> TraceLoad:
    trace = TraceSpec(source=f"upload:{name}", **spec)  # type: ignore[arg-type]
    return _load(trace, (name, data))


def _table_hash(jobs: pd.DataFrame) -> str:
    text = repr(list(jobs.dtypes.astype(str).items())) + "\n"
    return hashlib.sha256((text + jobs.to_csv(float_format="%.17g")).encode()).hexdigest()


def _philly_clusters() -> list[str]:
    return pd.read_csv(PHILLY, dtype=str)["cluster"].tolist()


# --- without teams: the table of main ----------------------------------------------------------


@pytest.mark.parametrize("sample", sorted(MAIN_HASHES))
def test_a_trace_without_teams_gives_mains_table(sample: str) -> None:
    jobs = _load(TraceSpec(source=f"sample:{sample}", drop_oversized=True)).jobs
    assert tuple(jobs.columns) == JOB_COLUMNS
    assert dict(jobs.dtypes.astype(str)) == JOB_DTYPES
    assert _table_hash(jobs) == MAIN_HASHES[sample]


# --- canonical CSV -----------------------------------------------------------------------------


def test_canonical_queue_and_priority() -> None:
    jobs = _upload("jobs.csv", CANONICAL).jobs
    assert list(jobs.columns) == [*JOB_COLUMNS, "queue", "priority"]
    assert dict(jobs.dtypes.astype(str)[["queue", "priority"]]) == OPTIONAL_JOB_DTYPES
    assert jobs["queue"].tolist() == ["vision", "nlp", ""]  # blank: the job names no queue
    assert jobs["priority"].tolist() == [0, 5, -2]  # blank: 0; any whole number


def test_canonical_priority_alone_puts_jobs_in_no_queue() -> None:
    data = b"job_id,arrival_s,job_type,scale_factor,total_steps,priority\nj1,0,A3C,1,10,3\n"
    jobs = _upload("p.csv", data).jobs
    assert jobs[["queue", "priority"]].values.tolist() == [["", 3]]


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("high", "jobs.csv, row 2, column 'priority': 'high' is not a number"),
        ("1.5", "jobs.csv, row 2, column 'priority': '1.5' is not a whole number"),
    ],
)
def test_a_bad_priority_names_file_row_and_column(cell: str, message: str) -> None:
    data = CANONICAL.replace(b"nlp,5", b"nlp," + cell.encode())
    with pytest.raises(TraceError) as error:
        _upload("jobs.csv", data)
    assert str(error.value) == message
    assert (error.value.row, error.value.column) == (2, "priority")


def test_canonical_csv_round_trip_keeps_the_teams() -> None:
    jobs = _upload("jobs.csv", CANONICAL).jobs
    again = _upload("again.csv", to_canonical_csv(jobs)).jobs
    pd.testing.assert_frame_equal(again, jobs)


def test_column_mapping_maps_a_team_column() -> None:
    frame = pd.DataFrame(
        {"id": ["a", "b"], "t": [0, 5], "model": ["A3C", "A3C"], "gpus": [1, 2],
         "steps": [10, 20], "vc": ["x", "y"]}
    )  # fmt: skip
    mapping = {"job_id": "id", "arrival_s": "t", "job_type": "model", "scale_factor": "gpus",
               "total_steps": "steps", "queue": "vc"}  # fmt: skip
    jobs = apply_column_mapping(frame, mapping, load_matrix())
    assert jobs[["queue", "priority"]].values.tolist() == [["x", 0], ["y", 0]]


# --- any format: TraceSpec.team_column ---------------------------------------------------------


def test_philly_team_column_aligned_by_source_row() -> None:
    jobs = _load(TraceSpec(team_column="cluster")).jobs
    clusters = _philly_clusters()
    assert list(jobs.columns) == [*JOB_COLUMNS, "queue", "priority"]
    assert jobs["queue"].tolist() == [clusters[row - 1] for row in jobs["source_row"]]
    assert jobs["queue"].nunique() == 10
    assert (jobs["priority"] == 0).all()
    plain = _load(TraceSpec()).jobs
    pd.testing.assert_frame_equal(jobs[list(JOB_COLUMNS)], plain)


def test_canonical_queue_read_again_as_its_team_column() -> None:
    jobs = _upload("jobs.csv", CANONICAL.replace(b",,-2", b",misc,-2"), team_column="queue").jobs
    assert jobs[["queue", "priority"]].values.tolist() == [["vision", 0], ["nlp", 5], ["misc", -2]]


def test_an_unknown_team_column_lists_the_files_columns() -> None:
    with pytest.raises(TraceError) as error:
        _load(TraceSpec(team_column="vc"))
    assert str(error.value) == (
        "philly_2000.csv, column 'vc': no column 'vc' to read the teams from "
        "(trace.team_column); the file's columns are "
        "['timestamp', 'duration', 'num_gpus', 'gpu_time', 'cluster']"
    )


def test_a_blank_team_cell_names_its_row() -> None:
    lines = PHILLY.read_bytes().splitlines()[:4]
    lines[3] = lines[3].rsplit(b",", 1)[0] + b", "
    with pytest.raises(TraceError) as error:
        _upload("teams.csv", b"\n".join(lines), team_column="cluster")
    assert str(error.value) == "teams.csv, row 3, column 'cluster': missing value"


def test_no_team_column_in_a_headerless_or_synthetic_trace() -> None:
    gavel = TraceSpec(source="sample:gavel_max_min_fairness.trace", team_column="job_type")
    with pytest.raises(TraceError, match="the gavel format has no header"):
        _load(gavel)
    with pytest.raises(TraceError, match="a synthetic trace has no column 'vc'"):
        _load(TraceSpec(source="synthetic", team_column="vc"))


def test_team_column_is_read_from_scenario_json() -> None:
    config = ScenarioConfig.from_dict({"trace": {"team_column": "cluster"}})
    assert config.trace.team_column == "cluster"
    with pytest.raises(ConfigError, match="scenario.trace.team_column: expected a string"):
        ScenarioConfig.from_dict({"trace": {"team_column": 3}})


# --- kept through cuts, the load what-if and drops ---------------------------------------------


def test_the_load_what_if_repeats_the_teams() -> None:
    spec = TraceSpec(team_column="cluster", max_jobs=500)
    jobs = _load(spec, load=LoadConfig(num_jobs=1200, arrival_scale=1.5)).jobs
    assert len(jobs) == 1200 and "queue" in jobs and "priority" in jobs
    original = dict(zip(jobs["job_id"], jobs["queue"], strict=True))
    copies = jobs[jobs["job_id"].str.contains("~")]
    assert len(copies) == 700
    for job_id, queue in zip(copies["job_id"], copies["queue"], strict=True):
        assert queue == original[job_id.split("~")[0]]
    clusters = _philly_clusters()
    assert jobs["queue"].tolist() == [clusters[row - 1] for row in jobs["source_row"]]


def test_dropping_oversized_jobs_keeps_the_teams() -> None:
    small = ClusterSpec((NodeGroup("v100", 1, 8, "r0"),))
    loaded = _load(TraceSpec(team_column="cluster", drop_oversized=True), cluster=small)
    assert loaded.dropped_job_ids
    clusters = _philly_clusters()
    jobs = loaded.jobs
    assert jobs["queue"].tolist() == [clusters[row - 1] for row in jobs["source_row"]]

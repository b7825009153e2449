"""The synthetic generator, a scenario's trace (`engine.scenario.load_scenario_trace`), and
Hypothesis properties of the canonical table."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.config import (
    ClusterSpec,
    NodeGroup,
    ScenarioConfig,
    SyntheticSpec,
    TraceSpec,
    default_cluster,
)
from engine.errors import ConfigError, OversizedJobsError, TraceError
from engine.scenario import load_scenario_trace
from engine.step_time.throughput import load_matrix
from engine.traces import (
    TraceLoad,
    check_cluster_fit,
    generate_synthetic,
    load_trace,
    to_canonical_csv,
)
from engine.traces.cluster_fit import largest_fit_gpus
from engine.traces.validate import build_jobs

FULL_PHILLY = (
    Path(__file__).resolve().parents[3] / "shared/traces/philly/philly_pollux_jobs_full_82247.csv"
)
MATRIX = load_matrix()
# 32 GPUs of each type (not default_cluster(), whose size other modules may change).
CLUSTER = ClusterSpec(
    (NodeGroup("v100", 4, 8, "r0"), NodeGroup("p100", 4, 8, "r1"), NodeGroup("k80", 4, 8, "r2"))
)


@pytest.fixture(scope="module")
def many() -> pd.DataFrame:
    return generate_synthetic(SyntheticSpec(20_000, 30.0), MATRIX, np.random.default_rng(1))


# --- synthetic ---------------------------------------------------------------------------------


def _resolve(
    spec: TraceSpec, seed: int, cluster: ClusterSpec, file: tuple[str, bytes] | None = None
) -> TraceLoad:
    """The trace a scenario with ``spec``, ``seed`` and ``cluster`` runs on (Gavel's matrix)."""
    return load_scenario_trace(ScenarioConfig(trace=spec, cluster=cluster, seed=seed), file)


def test_synthetic_mix(many: pd.DataFrame) -> None:
    assert len(many) == 20_000
    shares = many["scale_factor"].value_counts(normalize=True).to_dict()
    for sf, p in {1: 0.70, 2: 0.10, 4: 0.15, 8: 0.05}.items():
        assert shares[sf] == pytest.approx(p, abs=0.015)
    minutes = many["duration_s"] / 60
    assert minutes.min() >= 10**1.5 and minutes.max() <= 10**4
    assert (minutes >= 10**3).mean() == pytest.approx(0.2, abs=0.015)
    single = many[many["scale_factor"] == 1]["job_type"].value_counts()
    assert len(single) == len(MATRIX.job_types)  # all 26 job types at one GPU
    assert single.max() < 1.3 * len(single.index) ** -1 * single.sum()


def test_synthetic_multi_gpu_jobs_are_distributed_types(many: pd.DataFrame) -> None:
    multi = set(many[many["scale_factor"] > 1]["job_type"])
    assert not any(jt.startswith(("A3C", "CycleGAN", "Recommendation")) for jt in multi)
    assert len(multi) == 19  # 5 LM, 5 ResNet-18, 4 ResNet-50, 5 Transformer types


def test_synthetic_poisson_arrivals(many: pd.DataFrame) -> None:
    gaps_s = np.diff(many["arrival_s"].to_numpy())
    assert many["arrival_s"].iloc[0] == 0.0
    assert gaps_s.mean() == pytest.approx(3600 / 30, rel=0.03)
    assert gaps_s.std() == pytest.approx(3600 / 30, rel=0.05)  # exponential: sd == mean


def test_synthetic_steps_on_v100(many: pd.DataFrame) -> None:
    for _, row in many.head(50).iterrows():
        rate = MATRIX.steps_per_s(str(row["job_type"]), "v100", int(row["scale_factor"]))
        assert row["total_steps"] == pytest.approx(float(row["duration_s"]) * rate, rel=1e-12)


def test_synthetic_seeded() -> None:
    spec = SyntheticSpec(50, 10.0)
    a = generate_synthetic(spec, MATRIX, np.random.default_rng(3))
    pd.testing.assert_frame_equal(a, generate_synthetic(spec, MATRIX, np.random.default_rng(3)))
    b = generate_synthetic(spec, MATRIX, np.random.default_rng(4))
    assert (a["job_type"] != b["job_type"]).sum() > 25
    with pytest.raises(ConfigError, match="num_jobs must be >= 1"):
        generate_synthetic(SyntheticSpec(0, 10.0), MATRIX, np.random.default_rng(0))


# --- a scenario's trace ----------------------------------------------------------------------


def test_default_spec_loads_philly_sample() -> None:
    load = _resolve(TraceSpec(), 0, default_cluster())
    assert (load.format, load.file_name, len(load.jobs)) == ("philly", "philly_2000.csv", 2000)
    assert load.dropped_job_ids == ()
    assert load.notes[0] == (
        "Philly does not record GPU types; assumed p100 for step counts (the trace setting "
        '"Durations were measured on")'
    )


def test_resolve_is_seeded_and_cuts() -> None:
    spec = TraceSpec(max_jobs=100)
    a = _resolve(spec, 5, CLUSTER).jobs
    pd.testing.assert_frame_equal(a, _resolve(spec, 5, CLUSTER).jobs)
    full = _resolve(TraceSpec(), 5, CLUSTER).jobs
    pd.testing.assert_frame_equal(a, full.head(100))
    b = _resolve(spec, 6, CLUSTER).jobs
    assert (a["job_type"] != b["job_type"]).sum() > 50
    with pytest.raises(TraceError, match="max_jobs must be >= 1"):
        _resolve(TraceSpec(max_jobs=0), 0, CLUSTER)


def test_resolve_drops_or_rejects_oversized() -> None:
    spec = TraceSpec(source="sample:itp_raw_cluster06_500.csv")
    with pytest.raises(OversizedJobsError) as info:
        _resolve(spec, 0, CLUSTER)
    assert len(info.value.job_ids) == 5  # the five 64-GPU jobs
    assert "itp_raw_cluster06_500.csv" in str(info.value) and "5 job(s)" in str(info.value)
    load = _resolve(replace(spec, drop_oversized=True), 0, CLUSTER)
    assert len(load.jobs) == 495 and len(load.dropped_job_ids) == 5
    assert "dropped 5 job(s) larger than the cluster" in load.notes


def test_resolve_upload_synthetic_and_missing() -> None:
    raw = b"job_id,arrival_s,job_type,scale_factor,total_steps\nj,0,A3C,1,5\n"
    load = _resolve(TraceSpec(source="upload:mine.csv"), 0, CLUSTER, ("mine.csv", raw))
    assert (load.format, load.file_name, list(load.jobs["job_id"])) == (
        "canonical",
        "mine.csv",
        ["j"],
    )
    with pytest.raises(TraceError, match="upload it again"):
        _resolve(TraceSpec(source="upload:mine.csv"), 0, CLUSTER)
    synth = _resolve(TraceSpec(source="synthetic"), 0, CLUSTER)
    assert (synth.format, len(synth.jobs)) == ("synthetic", 200)
    with pytest.raises(TraceError, match="no sample trace 'nope.csv'; available: gavel_"):
        _resolve(TraceSpec(source="sample:nope.csv"), 0, CLUSTER)
    with pytest.raises(TraceError, match="cannot read the file"):
        _resolve(TraceSpec(source="/nonexistent/x.csv"), 0, CLUSTER)


@pytest.mark.skipif(not FULL_PHILLY.exists(), reason="shared Philly trace not present")
def test_full_philly_from_shared() -> None:
    load = _resolve(TraceSpec(source=str(FULL_PHILLY)), 0, _big_cluster())
    counts = load.jobs["scale_factor"].value_counts().to_dict()
    assert len(load.jobs) == 82_247
    assert (counts[1], counts[2], counts[128]) == (76_627, 1_818, 3)


def _big_cluster() -> ClusterSpec:
    return ClusterSpec((NodeGroup("v100", 16, 8), NodeGroup("p100", 16, 8)))


# --- properties --------------------------------------------------------------------------------

ids = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cs", "Cc", "Cf", "Zs", "Zl", "Zp"]),
    min_size=1,
    max_size=6,
)
rows = st.tuples(
    st.floats(0, 1e9),
    st.sampled_from(MATRIX.job_types),
    st.integers(1, 64),
    st.floats(1e-6, 1e12),
    st.floats(1e-3, 1e3),
    st.one_of(st.none(), st.floats(1e-3, 1e7)),
)


@st.composite
def job_tables(draw: st.DrawFn) -> pd.DataFrame:
    job_ids = draw(st.lists(ids, min_size=1, max_size=20, unique=True))
    values = [draw(rows) for _ in job_ids]
    return build_jobs(
        "h.csv",
        MATRIX,
        job_id=job_ids,
        arrival_s=np.array([v[0] for v in values]),
        job_type=[v[1] for v in values],
        scale_factor=np.array([v[2] for v in values]),
        total_steps=np.array([v[3] for v in values]),
        priority_weight=np.array([v[4] for v in values]),
        duration_s=np.array([np.nan if v[5] is None else v[5] for v in values]),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(job_tables())
def test_canonical_csv_round_trip(jobs: pd.DataFrame) -> None:
    raw = to_canonical_csv(jobs)
    back = load_trace(raw, "h.csv", MATRIX, np.random.default_rng(0)).jobs
    assert back["source_row"].tolist() == list(range(1, len(jobs) + 1))
    pd.testing.assert_frame_equal(back.drop(columns="source_row"), jobs.drop(columns="source_row"))


@settings(max_examples=40, deadline=None)
@given(job_tables(), st.integers(1, 4), st.integers(1, 8))
def test_cluster_fit_partitions(jobs: pd.DataFrame, nodes: int, gpus: int) -> None:
    cluster = ClusterSpec((NodeGroup("k80", nodes, gpus), NodeGroup("v100", 1, gpus)))
    kept, dropped = check_cluster_fit(jobs, cluster, MATRIX, True)
    assert sorted(kept["job_id"].tolist() + dropped) == sorted(jobs["job_id"])
    for job_type, sf in zip(kept["job_type"], kept["scale_factor"], strict=True):
        assert sf <= largest_fit_gpus(str(job_type), cluster, MATRIX)
    assert kept["arrival_s"].is_monotonic_increasing

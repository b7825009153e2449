"""Running studies: the same results, bit for bit, serially, on a process pool and on Ray; stored
runs reused after an interruption; record modes; the trace store; GPU-hours by hand."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import pytest

from engine.config import PolicySpec, ScenarioConfig, TraceSpec
from engine.errors import SimulationCancelled, TraceError
from engine.scenario import run, run_scenario
from engine.step_time.throughput import load_matrix
from engine.study import Study, TraceStore, Variant, expand, run_study
from engine.study.store import ResultStore

SMALL = [
    {"worker_type": "v100", "nodes": 2, "gpus_per_node": 8, "rack": "r0"},
    {"worker_type": "k80", "nodes": 2, "gpus_per_node": 8, "rack": "r1"},
]
BASE = ScenarioConfig(
    trace=TraceSpec(max_jobs=60, drop_oversized=True),
    policies=(PolicySpec("fifo"), PolicySpec("las")),
)
STUDY = Study(BASE, (Variant("base"), Variant("small", {"cluster.node_groups": SMALL})), (0, 1))


@pytest.fixture(scope="module")
def serial() -> pd.DataFrame:
    return run_study(STUDY, executor="serial").runs


def test_pool_gives_the_serial_results_bit_for_bit(serial: pd.DataFrame) -> None:
    pooled = run_study(STUDY, executor="pool", workers=2)
    pd.testing.assert_frame_equal(pooled.runs, serial, check_exact=True)


def test_ray_gives_the_serial_results_bit_for_bit(serial: pd.DataFrame) -> None:
    ray = pytest.importorskip("ray")
    try:
        result = run_study(STUDY, executor="ray", workers=2)
    finally:
        ray.shutdown()
    pd.testing.assert_frame_equal(result.runs, serial, check_exact=True)


def test_an_interrupted_sweep_resumes_without_rerunning_finished_specs(
    tmp_path: Path, serial: pd.DataFrame
) -> None:
    finished: list[str] = []

    def progress(done: int, total: int, label: str) -> None:
        if done:
            finished.append(label)

    with pytest.raises(SimulationCancelled):
        run_study(STUDY, executor="serial", results_dir=tmp_path, on_progress=progress,
                  should_cancel=lambda: len(finished) >= 3)  # fmt: skip
    assert len(ResultStore(tmp_path).keys()) == 3
    finished.clear()
    resumed = run_study(STUDY, executor="serial", results_dir=tmp_path, on_progress=progress)
    assert resumed.reused == 3
    assert len(finished) == 1 + 5  # one "reused" report, then the five runs left
    pd.testing.assert_frame_equal(resumed.runs, serial, check_exact=True)
    again = run_study(STUDY, executor="serial", results_dir=tmp_path)
    assert again.reused == 8
    pd.testing.assert_frame_equal(again.jobs(), resumed.jobs(), check_exact=True)


def test_a_run_spec_reproduces_run_scenario_and_records_segments_only_when_asked() -> None:
    spec = expand(dataclasses.replace(STUDY, record="full"))[2]  # base, las, seed 0
    full = run(spec)
    scenario = run_scenario(dataclasses.replace(BASE, policies=(PolicySpec("las"),)))
    reference = scenario.results[0]
    pd.testing.assert_frame_equal(full.jobs, reference.jobs, check_exact=True)
    pd.testing.assert_frame_equal(full.segments, reference.segments, check_exact=True)
    assert {k: full.summary[k] for k in reference.summary} == reference.summary
    summary_only = run(dataclasses.replace(spec, record="summary"))
    assert summary_only.segments is None and summary_only.utilization is None
    assert summary_only.summary == full.summary


def test_the_store_round_trips_a_full_run(tmp_path: Path) -> None:
    spec = expand(dataclasses.replace(STUDY, record="full"))[0]
    result = run(spec)
    store = ResultStore(tmp_path)
    store.save(result)
    back = store.load(spec)
    assert back.summary == result.summary and back.notes == result.notes
    for table in ("jobs", "segments", "utilization"):
        pd.testing.assert_frame_equal(
            getattr(back, table), getattr(result, table), check_exact=True
        )


def test_gpu_hours_and_cost_of_a_hand_made_trace(tmp_path: Path) -> None:
    # two 2-GPU ResNet-50 jobs of one hour each on V100s, one after the other on one node
    job_type = "ResNet-50 (batch size 128)"
    steps = 3600.0 * load_matrix().steps_per_s(job_type, "v100", 2)
    text = "job_id,arrival_s,job_type,scale_factor,total_steps\n" + "".join(
        f"j{i},0,{job_type},2,{steps!r}\n" for i in range(2)
    )
    store = TraceStore(tmp_path)
    digest = store.put("two.csv", text.encode())
    base = ScenarioConfig(
        trace=TraceSpec(source="upload:two.csv"),
        cluster=dataclasses.replace(
            BASE.cluster, node_groups=(BASE.cluster.node_groups[0].__class__("v100", 1, 2, "r0"),)
        ),
        policies=(PolicySpec("fifo"),),
    )
    study = Study(base, prices={"v100": 1.0}, trace_hash=digest)
    runs = run_study(study, executor="serial", traces=store).runs
    row = runs.iloc[0]
    assert row["jct_mean_s"] == pytest.approx((3600 + 7200) / 2)
    assert row["gpu_h:v100"] == pytest.approx(4.0)  # 2 jobs x 2 GPUs x 1 h
    assert row["cluster_cost_usd_per_h"] == 2.0 and row["work_cost_usd"] == pytest.approx(4.0)
    assert row["cost_per_job_usd"] == pytest.approx(2.0)
    with pytest.raises(TraceError, match="not in the trace store"):
        run_study(dataclasses.replace(study, trace_hash="0" * 64), executor="serial", traces=store)


def test_a_scenario_parses_its_upload_once_and_each_run_carries_its_spec(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three policies on one uploaded file: one draw of the trace for the whole comparison (and
    none for a later run of the same file), and every run's result names the spec it ran."""
    import engine.scenario
    from engine.content import sha256_hex
    from engine.scenario import scenario_specs

    draws: list[str] = []
    original = engine.scenario.draw_trace

    def counting(*args: object, **kwargs: object) -> object:
        draws.append(str(args[0].source))  # type: ignore[attr-defined]
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine.scenario, "draw_trace", counting)
    job_type = "ResNet-50 (batch size 128)"
    text = "job_id,arrival_s,job_type,scale_factor,total_steps\n" + "".join(
        f"parse-once-{i},{60 * i},{job_type},{1 + i % 2},{1000 * (i + 1)}\n" for i in range(12)
    )
    upload = ("once.csv", text.encode())
    policies = (PolicySpec("fifo"), PolicySpec("las"), PolicySpec("srtf"))
    config = ScenarioConfig(trace=TraceSpec(source="upload:once.csv"), policies=policies)
    compared = run_scenario(config, upload=upload)
    assert draws == ["upload:once.csv"]
    assert compared.policies == ["FIFO", "Tiresias LAS", "SRTF"]
    specs = scenario_specs(config, sha256_hex(upload[1]))
    runs = [run(spec, upload) for spec in specs]
    assert draws == ["upload:once.csv"]  # the same file again: taken from the process's draw
    assert [r.spec for r in runs] == specs
    assert [r.spec.policy_label for r in runs] == compared.policies
    for ours, theirs in zip(runs, compared.results, strict=True):
        pd.testing.assert_frame_equal(ours.jobs, theirs.jobs, check_exact=True)
        assert ours.simulation.summary == theirs.summary
        assert ours.summary["jobs_dropped"] == 0.0

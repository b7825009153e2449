"""The power layer (engine.power): energy and peak power by hand, CO2e on an hourly curve, the
2026 cluster at full load, bad input named, and every result unchanged with the layer off."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cli import main
from engine.config import ClusterSpec, NodeGroup, PolicySpec, ScenarioConfig, TraceSpec
from engine.errors import ConfigError
from engine.power.energy import POWER_METRICS, full_load_kw, power_kpis, power_series
from engine.power.model import FIELDS, POWER_CSV, PowerSpec, WorkerPower, builtin_figures
from engine.presets import cluster_2026_scenario
from engine.scenario import run_scenario, scenario_matrix
from engine.step_time.throughput import load_matrix
from engine.validate import validate_config

MATRIX = load_matrix("gavel")
RESNET50 = "ResNet-50 (batch size 64)"
ONE_NODE = ClusterSpec((NodeGroup("v100", 1, 8),))
ROUND_FIGURES = (WorkerPower("v100", gpu_full_w=300.0, gpu_idle_w=50.0, node_other_w=1000.0),)


def _two_jobs_csv() -> bytes:
    """Job a: 4 V100s for 1,000 s; job b: 2 V100s for 2,000 s; both arrive at 0."""
    return pd.DataFrame({
        "job_id": ["a", "b"], "arrival_s": [0.0, 0.0], "job_type": [RESNET50] * 2,
        "scale_factor": [4, 2],
        "total_steps": [1000 * MATRIX.steps_per_s(RESNET50, "v100", 4),
                        2000 * MATRIX.steps_per_s(RESNET50, "v100", 2)],
    }).to_csv(index=False).encode()  # fmt: skip


def _two_job_scenario(power: PowerSpec | None) -> ScenarioConfig:
    return ScenarioConfig(
        trace=TraceSpec(source="upload:jobs.csv"), cluster=ONE_NODE,
        policies=(PolicySpec("fifo"),), power=power,
    )  # fmt: skip


def test_energy_and_peak_power_of_a_two_job_run_by_hand() -> None:
    # One node of 8 V100s (300 W busy, 50 W idle, 1,000 W for the rest of the node), PUE 1.5.
    # 0-1,000 s: a and b hold 6 GPUs: 6 x 300 + 2 x 50 + 1,000 = 2,900 W; x 1.5 = 4,350 W.
    # 1,000-2,000 s: b holds 2 GPUs: 2 x 300 + 6 x 50 + 1,000 = 1,900 W; x 1.5 = 2,850 W.
    # Energy: (4,350 + 2,850) W x 1,000 s = 7.2 MJ = 2.0 kWh; peak 4.35 kW; mean 2.0 kWh over
    # 2,000 s = 3.6 kW; per completed job 1.0 kWh; CO2e at 400 g/kWh: 0.8 kg.
    spec = PowerSpec(pue=1.5, grid_g_co2e_per_kwh=400.0, worker_types=ROUND_FIGURES)
    result = run_scenario(_two_job_scenario(spec), upload=("jobs.csv", _two_jobs_csv()))
    kpi = result.kpi_table().iloc[0]
    assert kpi["energy_kwh"] == pytest.approx(2.0)
    assert kpi["power_peak_kw"] == pytest.approx(4.35)
    assert kpi["power_mean_kw"] == pytest.approx(3.6)
    assert kpi["energy_per_job_kwh"] == pytest.approx(1.0)
    assert kpi["co2e_kg"] == pytest.approx(0.8)


def test_with_the_layer_off_every_table_is_unchanged() -> None:
    upload = ("jobs.csv", _two_jobs_csv())
    off = run_scenario(_two_job_scenario(None), upload=upload)
    on = run_scenario(_two_job_scenario(PowerSpec()), upload=upload)
    for table in ("jobs", "segments", "utilization"):
        pd.testing.assert_frame_equal(off.combined(table), on.combined(table))
    added = set(on.kpi_table().columns) - set(off.kpi_table().columns)
    assert added == set(POWER_METRICS)
    pd.testing.assert_frame_equal(off.kpi_table(), on.kpi_table()[list(off.kpi_table().columns)])
    assert "power" not in _two_job_scenario(None).to_dict()


def test_a_power_spec_round_trips_through_the_scenario_json() -> None:
    config = _two_job_scenario(PowerSpec(pue=1.2, grid_hourly_g_co2e_per_kwh=(100.0, 200.0)))
    assert ScenarioConfig.from_json(config.to_json()) == config


def test_co2e_follows_an_hourly_curve_and_the_busy_factor_scales_busy_gpus() -> None:
    # 8 GPUs busy until 5,400 s, none until 7,200 s; PUE 1; curve 100 g/kWh in even hours,
    # 300 in odd ones. Busy factor 0.5: a busy GPU draws 150 W.
    # 0-5,400 s: 8 x 150 + 1,000 = 2,200 W; 5,400-7,200 s: 8 x 50 + 1,000 = 1,400 W.
    # Energy: 2.2 x 1.5 + 1.4 x 0.5 = 3.3 + 0.7 = 4.0 kWh.
    # CO2e: 2.2 kW x 1 h x 100 + 2.2 x 0.5 x 300 + 1.4 x 0.5 x 300 = 220 + 330 + 210 = 760 g.
    utilization = pd.DataFrame({
        "time_s": [0.0, 5400.0], "worker_type": ["v100", "v100"], "busy_gpus": [8, 0],
        "capacity_gpus": [8, 8], "utilization": [1.0, 0.0],
    })  # fmt: skip
    spec = PowerSpec(
        pue=1.0, busy_power_factor=0.5, grid_hourly_g_co2e_per_kwh=(100.0, 300.0),
        worker_types=ROUND_FIGURES,
    )  # fmt: skip
    kpis = power_kpis(power_series(utilization, ONE_NODE, spec), 0.0, 7200.0, 4.0, spec)
    assert kpis["energy_kwh"] == pytest.approx(4.0)
    assert kpis["co2e_kg"] == pytest.approx(0.76)
    assert kpis["power_peak_kw"] == pytest.approx(2.2)
    assert kpis["energy_per_job_kwh"] == pytest.approx(1.0)


def test_the_2026_cluster_at_full_load() -> None:
    # H100 node: 8 x 700 + 4,600 = 10,200 W (DGX H100); B200 node: 8 x 1,000 + 6,300 = 14,300 W
    # (DGX B200). 64 x 10.2 + 32 x 14.3 = 652.8 + 457.6 = 1,110.4 kW of IT; x PUE 1.56.
    cluster = cluster_2026_scenario().cluster
    assert full_load_kw(cluster, PowerSpec()) == pytest.approx(1110.4 * 1.56)


def test_every_built_in_figure_has_a_source_and_non_negative_watts() -> None:
    table = pd.read_csv(POWER_CSV)
    assert list(table.columns) == ["worker_type", "field", "watts", "source"]
    assert (table["watts"] >= 0).all() and table["source"].str.len().gt(10).all()
    assert not table.duplicated(["worker_type", "field"]).any()
    assert len(builtin_figures()) == len(table)
    assert set(table["field"]) == set(FIELDS)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        (PowerSpec(pue=0.9), "power.pue must be >= 1"),
        (PowerSpec(busy_power_factor=0.0), "power.busy_power_factor"),
        (PowerSpec(grid_hourly_g_co2e_per_kwh=(10.0, -1.0)), "grid_hourly_g_co2e_per_kwh[1]"),
        (
            PowerSpec(worker_types=(WorkerPower("v100", gpu_full_w=-300.0),)),
            "power.worker_types[1] (v100).gpu_full_w must be >= 0 W",
        ),
        (
            PowerSpec(worker_types=(WorkerPower("v100", gpu_idle_w=400.0),)),
            "'v100' has gpu_idle_w 400 W above its gpu_full_w 300 W",
        ),
    ],
)
def test_bad_power_input_is_named(spec: PowerSpec, words: str) -> None:
    config = _two_job_scenario(spec)
    with pytest.raises(ConfigError) as error:
        validate_config(config, scenario_matrix(config))
    assert words in str(error.value)


def test_a_worker_type_without_a_figure_is_named_with_its_field() -> None:
    cluster = ClusterSpec((NodeGroup("v100", 1, 8), NodeGroup("a100", 1, 8)))
    with pytest.raises(ConfigError, match=r"no gpu_full_w figure for worker type 'a100'"):
        full_load_kw(cluster, PowerSpec())
    given_gpu = PowerSpec(worker_types=(WorkerPower("a100", 400.0, 60.0),))
    with pytest.raises(ConfigError, match=r"no node_other_w figure for worker type 'a100'"):
        full_load_kw(cluster, given_gpu)
    complete = PowerSpec(worker_types=(WorkerPower("a100", 400.0, 60.0, 3300.0),))
    assert full_load_kw(cluster, complete) > 0


def test_the_command_line_adds_the_power_columns(tmp_path: Path) -> None:
    (tmp_path / "jobs.csv").write_bytes(_two_jobs_csv())
    (tmp_path / "scenario.json").write_text(_two_job_scenario(None).to_json())
    (tmp_path / "power.json").write_text(json.dumps({"pue": 1.5, "grid_g_co2e_per_kwh": 400,
        "worker_types": [{"worker_type": "v100", "gpu_full_w": 300, "gpu_idle_w": 50,
                          "node_other_w": 1000}]}))  # fmt: skip
    args = ["run", str(tmp_path / "scenario.json"), "--trace", str(tmp_path / "jobs.csv"),
            "--power", str(tmp_path / "power.json"), "--out", str(tmp_path / "out"),
            "--format", "csv"]  # fmt: skip
    assert main(args) == 0
    kpi = pd.read_csv(tmp_path / "out" / "kpi.csv").iloc[0]
    assert kpi["energy_kwh"] == pytest.approx(2.0) and kpi["power_peak_kw"] == pytest.approx(4.35)
    assert "Peak facility power (kW)" in (tmp_path / "out" / "summary.txt").read_text()


def test_the_command_line_names_a_bad_power_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "scenario.json").write_text(_two_job_scenario(None).to_json())
    (tmp_path / "jobs.csv").write_bytes(_two_jobs_csv())
    (tmp_path / "power.json").write_text('{"pue": "high"}')
    args = ["run", str(tmp_path / "scenario.json"), "--trace", str(tmp_path / "jobs.csv"),
            "--power", str(tmp_path / "power.json"), "--out", str(tmp_path / "out")]  # fmt: skip
    assert main(args) == 2
    assert "scenario.power.pue: expected a number" in capsys.readouterr().err


@settings(max_examples=60, deadline=None)
@given(
    busy=st.lists(st.integers(0, 16), min_size=1, max_size=12),
    widths_s=st.lists(st.floats(1.0, 5000.0), min_size=12, max_size=12),
)
def test_power_stays_between_all_idle_and_full_load(busy: list[int], widths_s: list[float]) -> None:
    cluster = ClusterSpec((NodeGroup("v100", 2, 8),))
    times = [0.0, *pd.Series(widths_s[: len(busy) - 1]).cumsum().tolist()]
    utilization = pd.DataFrame({"time_s": times, "worker_type": "v100", "busy_gpus": busy,
                                "capacity_gpus": 16})  # fmt: skip
    spec = PowerSpec()
    end_s = times[-1] + widths_s[-1]
    kpis = power_kpis(power_series(utilization, cluster, spec), 0.0, end_s, 1.0, spec)
    idle_kw = spec.pue * (16 * 45 + 2 * 1100) / 1000
    assert idle_kw - 1e-9 <= kpis["power_mean_kw"] <= kpis["power_peak_kw"] + 1e-9
    assert kpis["power_peak_kw"] <= full_load_kw(cluster, spec) + 1e-9
    assert kpis["co2e_kg"] == pytest.approx(kpis["energy_kwh"] * 0.48)


def test_a_power_spec_replaces_nothing_else_of_the_scenario() -> None:
    base = _two_job_scenario(None)
    assert dataclasses.replace(base, power=PowerSpec()).to_dict() == {
        **base.to_dict(),
        "power": dataclasses.asdict(PowerSpec()),
    }

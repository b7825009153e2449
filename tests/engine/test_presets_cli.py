"""Presets by name everywhere: ``engine run --preset``, ``engine presets``, a study's
``preset``; and uploading Muri's trace through the command line (issue 28)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from engine.cli import main
from engine.config import ClusterSpec, NodeGroup, PolicySpec, ScenarioConfig, TraceSpec
from engine.errors import ConfigError
from engine.presets import (
    MURI_LAUNCH_S,
    MURI_STEP_TIME_OVERHEAD,
    PRESETS,
    apply_preset,
    muri_testbed,
)
from engine.study.study import Study

ROOT = Path(__file__).resolve().parents[2]
MURI_TRACE = ROOT / "sample_traces" / "muri_cluster_trace.csv"


def test_presets_are_listed_by_their_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["presets"]) == 0
    out = capsys.readouterr().out
    assert sorted(line.split(":")[0] for line in out.splitlines()) == sorted(PRESETS)
    assert {"gavel_compatible", "muri_testbed"} <= set(PRESETS)


def test_muri_testbed_sets_the_testbeds_rules() -> None:
    config = muri_testbed(ScenarioConfig(policies=(PolicySpec("las"), PolicySpec("srtf"))))
    rounds = config.rounds
    assert (rounds.round_duration_s, rounds.admit_mid_round, rounds.relaunch_on_event) == (
        360.0, False, True
    )  # fmt: skip
    assert rounds.checkpoint_restore_s == MURI_LAUNCH_S
    assert rounds.step_time_overhead == MURI_STEP_TIME_OVERHEAD
    assert rounds.gavel_rules is False and config.network.enabled is False
    assert config.placement == "consolidated"
    assert config.policies[0].params == {"requeue": True}
    assert config.policies[1].params == {}
    assert config.cluster == ScenarioConfig().cluster  # the GPU mix is the scenario's


def test_an_unknown_preset_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="gavel_compatible, muri_testbed"):
        apply_preset("muri", ScenarioConfig())
    assert apply_preset("Gavel-compatible", ScenarioConfig()).rounds.gavel_rules  # old links


def muri_scenario(tmp_path: Path) -> Path:
    config = ScenarioConfig(
        trace=TraceSpec(source="upload:cluster_trace.csv", assumed_worker_type="v100"),
        cluster=ClusterSpec((NodeGroup("v100", 8, 8, "rack0"),)),
        policies=(PolicySpec("srsf"),),
    )
    path = tmp_path / "scenario.json"
    path.write_text(config.to_json())
    return path


def test_cli_runs_muris_trace_under_its_preset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The testbed's own trace, uploaded as it is (times in ms, speeds measured): detected as
    Muri's format (it used to fail as Tiresias' at row 3, 'unknown model a2c')."""
    out = tmp_path / "out"
    argv = ["run", str(muri_scenario(tmp_path)), "--trace", str(MURI_TRACE), "--out", str(out)]
    assert main([*argv, "--preset", "muri_testbed"]) == 0
    printed = capsys.readouterr().out
    assert "Speeds from the trace" in printed and "iteration_time" in printed
    jobs = pd.read_csv(out / "jobs.csv")
    assert len(jobs) == 400 and set(jobs["policy"]) == {"SRSF"}
    assert jobs["arrival_s"].max() == pytest.approx(2_344_695.0)  # ms read as ms: 27 days
    ran = ScenarioConfig.from_json((out / "scenario.json").read_text())
    assert ran.rounds.relaunch_on_event and ran.rounds.round_duration_s == 360.0
    segments = pd.read_csv(out / "segments.csv")
    assert "relaunched" in set(segments["end_reason"])


def test_a_study_applies_its_preset_to_the_base() -> None:
    study = Study.from_dict({"base": {"seed": 1}, "preset": "muri_testbed", "seeds": [0]})
    assert study.base.rounds.relaunch_on_event and study.base.seed == 1
    with pytest.raises(ConfigError, match="unknown preset"):
        Study.from_dict({"base": {}, "preset": "nope"})
    assert json.loads(study.to_json())["base"]["rounds"]["step_time_overhead"] == 0.015

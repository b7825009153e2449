"""ScenarioConfig JSON round trip and errors; the headless command line end to end."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from engine.cli import main
from engine.config import PolicySpec, RoundConfig, ScenarioConfig, TraceSpec
from engine.errors import ConfigError
from engine.presets import gavel_compatible
from engine.scenario import run_scenario
from engine.units import metric_formats


def test_config_round_trips_through_json() -> None:
    config = dataclasses.replace(
        ScenarioConfig(), seed=7, policies=(PolicySpec("fifo", {"backfill": True}, "fifo+bf"),)
    )
    assert ScenarioConfig.from_json(config.to_json()) == config


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"seed": "x"}, "scenario.seed: expected an integer"),
        ({"rounds": {"round_length": 3}}, "scenario.rounds: unknown key(s) ['round_length']"),
        (
            {"cluster": {"node_groups": [{"worker_type": "v100"}]}},
            "scenario.cluster.node_groups[0]",
        ),
        ({"policies": [{"name": 3}]}, "scenario.policies[0].name: expected a string"),
    ],
)
def test_bad_config_names_the_key(patch: dict[str, object], message: str) -> None:
    data = {**ScenarioConfig().to_dict(), **patch}
    with pytest.raises(ConfigError) as err:
        ScenarioConfig.from_dict(data)
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"policies": (PolicySpec("nope"),)}, "unknown policy 'nope'"),
        ({"policies": (PolicySpec("fifo"), PolicySpec("fifo"))}, "appear twice"),
        (
            {"policies": (PolicySpec("fifo", {"backfil": True}),)},
            "unknown parameter(s) ['backfil']",
        ),
        ({"rounds": RoundConfig(round_duration_s=0)}, "round_duration_s must be > 0"),
    ],
)
def test_invalid_scenario_is_rejected_before_running(
    change: dict[str, object], message: str
) -> None:
    config = dataclasses.replace(ScenarioConfig(trace=TraceSpec(max_jobs=5)), **change)
    with pytest.raises(ConfigError) as err:
        run_scenario(config)
    assert message in str(err.value)


def test_gavel_compatible_preset_sets_gavels_rules() -> None:
    config = gavel_compatible(ScenarioConfig())
    assert config.rounds.admit_mid_round is False
    assert config.rounds.reallocation_interval_s == 1920
    assert config.rounds.checkpoint_restore_s == 0
    assert config.network.enabled is False


def test_cli_runs_a_scenario_and_writes_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = ScenarioConfig(
        trace=TraceSpec(max_jobs=60),
        policies=(PolicySpec("fifo"), PolicySpec("fifo", {"backfill": True}, "fifo+bf")),
    )
    scenario = tmp_path / "scenario.json"
    scenario.write_text(config.to_json())
    assert main(["run", str(scenario), "--out", str(tmp_path / "out")]) == 0
    out = tmp_path / "out"
    kpi = pd.read_csv(out / "kpi.csv")
    assert list(kpi["policy"]) == ["FIFO", "fifo+bf"]
    jobs = pd.read_parquet(out / "jobs.parquet")
    assert len(jobs) == 2 * 60 and set(jobs["policy"]) == {"FIFO", "fifo+bf"}
    assert ScenarioConfig.from_json((out / "scenario.json").read_text()) == config
    summary = (out / "summary.txt").read_text()
    formats = metric_formats({m: kpi[m] for m in kpi.columns if m != "policy"})
    assert formats["jct_mean_s"].unit == formats["makespan_s"].unit  # one unit for the group
    for metric, label in (("jct_mean_s", "Mean JCT"), ("makespan_s", "Makespan")):
        fmt = formats[metric]  # the unit the group's values pick, as the dashboard's
        assert f"{label} ({fmt.unit})" in summary
        assert fmt.text(kpi[metric].iloc[0]) in summary.split(f"{label} ({fmt.unit})")[1]
    assert "e+" not in summary and "e-" not in summary
    captured = capsys.readouterr()
    assert "Mean JCT" in captured.out and summary.splitlines()[0] in captured.out
    # progress goes to stderr as lines; stdout holds the summary only (issue 23, point 6)
    progress = re.compile(r"^ *[0-9.]+% (FIFO|fifo\+bf|done)$")
    assert "\r" not in captured.out + captured.err
    assert not any(progress.match(line) for line in captured.out.splitlines())
    assert captured.err.splitlines()[-1] == "100.0% done"


def test_cli_reports_errors_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = tmp_path / "bad.json"
    scenario.write_text(json.dumps({"seed": 1, "colour": "red"}))
    assert main(["run", str(scenario)]) == 2
    assert "unknown key(s) ['colour']" in capsys.readouterr().err


def test_same_config_gives_identical_results() -> None:
    config = ScenarioConfig(trace=TraceSpec(max_jobs=100), policies=(PolicySpec("fifo"),))
    first, second = run_scenario(config), run_scenario(config)
    for table in ("jobs", "segments", "utilization"):
        pd.testing.assert_frame_equal(first.combined(table), second.combined(table))


def test_extra_worker_type_by_speed_ratio_halves_the_jct() -> None:
    """a100 = 2 x v100: the same single-GPU job finishes in half the time."""
    from engine.config import ClusterSpec, NodeGroup, WorkerTypeSpec
    from engine.scenario import scenario_matrix
    from engine.simulator import simulate
    from tests.engine.helpers import RESNET50, jobs_frame

    jobs = jobs_frame(("a", 0, RESNET50, 1, 1000))
    extra = (WorkerTypeSpec("a100", "v100", 2.0),)
    jct = {}
    for worker_type in ("v100", "a100"):
        config = ScenarioConfig(
            cluster=ClusterSpec((NodeGroup(worker_type, 1, 1, "r0"),)), extra_worker_types=extra
        )
        result = simulate(jobs, config, PolicySpec("fifo"), scenario_matrix(config))
        jct[worker_type] = result.jobs.loc[0, "jct_s"]
    assert jct["a100"] == pytest.approx(jct["v100"] / 2)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("a100", "b200", 2.0), "unknown base type 'b200'"),
        (("v100", "p100", 2.0), "already a GPU type"),
        (("a100", "v100", 0.0), "speed ratio must be > 0"),
    ],
)
def test_bad_extra_worker_type_is_named(extra: tuple[str, str, float], message: str) -> None:
    from engine.config import WorkerTypeSpec

    config = ScenarioConfig(extra_worker_types=(WorkerTypeSpec(*extra),))
    with pytest.raises(ConfigError, match="extra GPU type 1") as err:
        run_scenario(config)
    assert message in str(err.value)

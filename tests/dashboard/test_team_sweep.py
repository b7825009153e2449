"""The Sweep page under teams: a borrowing limit of every team as the axis, each team's wait
as the metric (one line per team), and each team's paired difference to "unlimited".

Hand-computed case: one node of 4 V100s, teams a and b in one cohort with 2 nominal GPUs
each. a submits two 2-GPU jobs at t = 0, b one 2-GPU job at t = 50,000 s, all the same job
(run time T alone on 2 V100s). Unlimited borrowing: a borrows b's idle GPUs and both its jobs
start at once (a's mean wait 0). Borrowing limit 0: a2 waits for a1, so a's mean wait is
T / 2 and its p95 wait 0.95 T; b never waits. T is b's JCT (its job runs alone).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.sweep_axes import parse_values
from engine.config import ClusterSpec, NodeGroup, PolicySpec, ScenarioConfig
from engine.errors import ConfigError
from engine.quota.model import (
    ClusterQueue,
    FlavorQuota,
    LocalQueue,
    QueueConfig,
    ResourceFlavor,
)

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
AXIS = "queues.*.borrowing_limit_gpus"
JOBS = (
    "job_id,arrival_s,job_type,scale_factor,total_steps,queue,priority\n"
    "a1,0,ResNet-18 (batch size 32),2,100000,a,0\n"
    "a2,0,ResNet-18 (batch size 32),2,100000,a,0\n"
    "b1,50000,ResNet-18 (batch size 32),2,100000,b,0\n"
)
QUEUES = QueueConfig(
    cluster_queues=tuple(ClusterQueue(t, (FlavorQuota("v100", 2),), cohort="all") for t in "ab"),
    local_queues=(LocalQueue("a", "a"), LocalQueue("b", "b")),
    flavors=(ResourceFlavor("v100", "v100"),),
)
SCENARIO = ScenarioConfig(
    cluster=ClusterSpec((NodeGroup("v100", 1, 4, "rack0"),)), policies=(PolicySpec("fifo"),),
    queues=QUEUES,
)  # fmt: skip


@pytest.fixture(autouse=True)
def _store(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("GPUSCHED_STORE", str(tmp_path / "store"))


def _swept(metric: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.file_uploader(key="scenario_file").upload(
        "teams.json", SCENARIO.to_json().encode(), "application/json"
    ).run()
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="trace_file").upload("jobs.csv", JOBS.encode(), "text/csv").run()
    at.switch_page("app_pages/sweep.py").run()
    at.selectbox(key="sweep_axis_x").set_value(AXIS).run()
    at.text_input(key=f"sweep_values.{AXIS}").set_value("unlimited, 0").run()
    at.number_input(key="sweep_seeds").set_value(2).run()
    next(b for b in at.button if b.key == "run_sweep").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.selectbox(key="sweep_metric").set_value(metric).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def _lines(at: AppTest) -> dict[str, dict]:
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    return {t["name"]: t for t in spec["data"] if t.get("mode") == "lines+markers"}


def test_a_borrowing_cap_costs_the_borrowing_team_half_a_job_of_wait() -> None:
    at = _swept("team:jct_mean_s")
    jct = _lines(at)  # b's JCT is T, its job alone: the unit is the chart's (minutes)
    t_alone = jct["b"]["y"][0]
    assert jct["b"]["y"] == [t_alone, t_alone]
    assert jct["a"]["y"] == pytest.approx([t_alone, 1.5 * t_alone])  # a2 ends at 2T
    at.selectbox(key="sweep_metric").set_value("team:queueing_mean_s").run()
    wait = _lines(at)
    assert list(wait) == ["a", "b"] and wait["a"]["x"] == ["unlimited", 0]
    assert wait["a"]["y"] == pytest.approx([0, t_alone / 2]) and wait["b"]["y"] == [0, 0]
    table = next(d.value for d in at.dataframe if "Team" in d.value.columns)
    rows = table.set_index("Team")
    assert list(rows["Point"]) == ["0 vs unlimited"] * 2
    assert rows.loc["a", "A − B"] == f"+{t_alone / 2:.2f} min"
    assert rows.loc["a", "Reading"].startswith("0: worse beyond seed noise")
    assert rows.loc["b", "Reading"].startswith("identical on every seed")
    assert (rows["Seeds"] == 2).all()


def test_quota_axes_are_offered_only_under_queues_and_bad_values_are_named() -> None:
    for bad in ("-1", "1.5", "²", "9" * 20):
        with pytest.raises(ConfigError, match=rf"'{bad}' is not a whole number of GPUs"):
            parse_values(SCENARIO, AXIS, f"unlimited, {bad}")
    assert parse_values(SCENARIO, AXIS, "Unlimited, 8, 8, none") == [None, 8]
    with pytest.raises(ConfigError, match=r"'Sometimes' is not one of Never, LowerPriority, Any"):
        parse_values(SCENARIO, "queues.*.reclaim_within_cohort", "Any, Sometimes")
    assert parse_values(SCENARIO, "queues.*.reclaim_within_cohort", "any, never") == [
        "Any", "Never"]  # fmt: skip
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.switch_page("app_pages/sweep.py").run()
    assert AXIS not in at.selectbox(key="sweep_axis_x").options

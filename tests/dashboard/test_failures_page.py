"""The Failures tab, and what a run with failures shows on the Results and Schedule pages."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from engine.config import FailureConfig, PolicySpec, ScenarioConfig

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")


def _app() -> AppTest:
    return AppTest.from_file(APP, default_timeout=180).run()


def _run(at: AppTest) -> None:
    next(b for b in at.button if b.key == "run").click().run()
    assert not at.exception


def test_failures_on_run_shows_goodput_failures_by_size_and_gantt_markers() -> None:
    at = _app()
    at.multiselect(key="policies").set_value(["fifo", "las"]).run()
    at.number_input(key="max_jobs").set_value(300).run()
    at.toggle(key="fail_enabled").set_value(True).run()
    at.number_input(key="fail_node_mtbf_h").set_value(100.0).run()
    at.number_input(key="fail_spares_per_type").set_value(1).run()
    assert not at.exception
    _run(at)
    assert not at.error, [e.value for e in at.error]
    result = at.session_state["result"]
    assert result.config.failures.enabled and result.config.failures.spares_per_type == 1
    at.switch_page("app_pages/results.py").run()
    assert not at.exception
    markdown = [m.value for m in at.markdown]
    assert "**Failures and checkpoints**" in markdown
    assert "**Failures by job size**" in markdown
    failed = sum(int(sim.jobs["num_failures"].sum()) for sim in result.results)
    assert failed > 0
    at.switch_page("app_pages/schedule.py").run()
    assert not at.exception
    names = [trace.get("name") for chart in at.get("plotly_chart")
             for trace in json.loads(chart.proto.spec)["data"]]  # fmt: skip
    assert "failed" in names


def test_failures_off_shows_no_failure_tables() -> None:
    at = _app()
    at.multiselect(key="policies").set_value(["fifo"]).run()
    at.number_input(key="max_jobs").set_value(100).run()
    _run(at)
    at.switch_page("app_pages/results.py").run()
    markdown = [m.value for m in at.markdown]
    assert "**Failures and checkpoints**" not in markdown
    assert "**Failures by job size**" not in markdown


def test_a_policy_without_failure_handling_gets_a_message_naming_it() -> None:
    at = _app()
    at.multiselect(key="policies").set_value(["fifo", "gavel_maxmin"]).run()
    at.number_input(key="max_jobs").set_value(100).run()
    at.toggle(key="fail_enabled").set_value(True).run()
    _run(at)
    assert any("Gavel max-min" in e.value and "failed nodes" in e.value for e in at.error)


def test_a_loaded_scenario_sets_the_failure_widgets() -> None:
    at = _app()
    failures = FailureConfig(enabled=True, node_mtbf_h=500.0, checkpoint_interval_s=900.0,
                             spares_per_type=2, distribution="weibull")  # fmt: skip
    config = ScenarioConfig(policies=(PolicySpec("fifo"),), failures=failures)
    at.file_uploader(key="scenario_file").upload("f.json", config.to_json().encode(),
                                                 "application/json")  # fmt: skip
    at.run()
    assert not at.exception
    s = at.session_state
    assert s["fail_enabled"] is True and s["fail_node_mtbf_h"] == 500.0
    assert s["fail_young"] is False and s["fail_checkpoint_interval_s"] == 900.0
    assert s["fail_spares_per_type"] == 2 and s["fail_distribution"] == "weibull"
    assert s["scenarios"][s["current_scenario"]].failures == failures

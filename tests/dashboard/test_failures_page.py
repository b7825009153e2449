"""The Failures tab, and what a run with failures shows on the Results and Schedule pages."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from streamlit.testing.v1 import AppTest

from engine.config import FailureConfig, PolicySpec, ScenarioConfig, TypeMtbf

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
    assert "**Failures**" in markdown and "**GPU-hours**" in markdown
    assert "**Failures by job size**" in markdown
    failed = sum(int(sim.jobs["num_failures"].sum()) for sim in result.results)
    assert failed > 0
    at.switch_page("app_pages/schedule.py").run()
    assert not at.exception
    names = [trace.get("name") for chart in at.get("plotly_chart")
             for trace in json.loads(chart.proto.spec)["data"]]  # fmt: skip
    assert "failed" in names
    orders = [list(d.proto.column_order) for d in at.dataframe if d.proto.column_order]
    order = next(o for o in orders if "job_id" in o)  # the jobs table: failures after preemptions
    assert order[order.index("num_preemptions") + 1 : order.index("num_preemptions") + 3] == [
        "num_failures", "lost_work_gpu_s"]  # fmt: skip


def test_failures_off_shows_no_failure_tables() -> None:
    at = _app()
    at.multiselect(key="policies").set_value(["fifo"]).run()
    at.number_input(key="max_jobs").set_value(100).run()
    _run(at)
    at.switch_page("app_pages/results.py").run()
    markdown = [m.value for m in at.markdown]
    assert "**Failures**" not in markdown
    assert "**Failures by job size**" not in markdown
    at.switch_page("app_pages/schedule.py").run()
    orders = [list(d.proto.column_order) for d in at.dataframe if d.proto.column_order]
    order = next(o for o in orders if "job_id" in o)  # no failure columns of zeros
    assert "num_failures" not in order and "lost_work_gpu_s" not in order


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


def test_a_sweep_over_spares_offers_goodput_and_names_a_bad_spare_count(
    tmp_path, monkeypatch
) -> None:
    """Failures on: the Sweep page offers the failure axes; 0 and 1 spares per type run, the
    goodput metric is offered and drawn; 2 spares of a 2-node type is refused by field name."""
    from engine.config import ClusterSpec, NodeGroup, SyntheticSpec, TraceSpec

    monkeypatch.setenv("GPUSCHED_STORE", str(tmp_path / "store"))
    monkeypatch.setenv("GPUSCHED_EXECUTOR", "serial")
    config = ScenarioConfig(
        trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(40, 30.0)),
        cluster=ClusterSpec((NodeGroup("v100", 3, 4, "rack0"), NodeGroup("k80", 2, 4, "rack1"))),
        policies=(PolicySpec("fifo"), PolicySpec("las")),
        failures=FailureConfig(enabled=True, node_mtbf_h=20.0, repair_h=2.0),
    )
    at = _app()
    at.file_uploader(key="scenario_file").upload("f.json", config.to_json().encode(),
                                                 "application/json")  # fmt: skip
    at.run()
    at.switch_page("app_pages/sweep.py").run()
    assert not at.exception
    axis = "failures.spares_per_type"
    assert "Spare nodes per GPU type" in at.selectbox(key="sweep_axis_x").options  # labels
    at.selectbox(key="sweep_axis_x").set_value(axis).run()
    at.text_input(key=f"sweep_values.{axis}").set_value("0, 2").run()
    at.number_input(key="sweep_seeds").set_value(1).run()
    next(b for b in at.button if b.key == "run_sweep").click().run()
    assert any("failures.spares_per_type" in e.value and "k80" in e.value for e in at.error)
    at.text_input(key=f"sweep_values.{axis}").set_value("0, 1").run()
    next(b for b in at.button if b.key == "run_sweep").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert "Goodput (useful / allocated GPU-hours)" in at.selectbox(key="sweep_metric").options
    at.selectbox(key="sweep_metric").set_value("goodput").run()
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    lines = [t for t in spec["data"] if t.get("mode") == "lines+markers"]
    assert [t["name"] for t in lines] == ["FIFO", "Tiresias LAS"]
    assert all(0 < y <= 100 for t in lines for y in t["y"])  # goodput in %


def test_the_html_report_carries_goodput_and_failures_by_size() -> None:
    from dashboard.report import report_html
    from engine.config import TraceSpec
    from engine.scenario import run_scenario

    config = ScenarioConfig(
        trace=TraceSpec(max_jobs=200), policies=(PolicySpec("fifo"),),
        failures=FailureConfig(enabled=True, node_mtbf_h=50.0),
    )  # fmt: skip
    text = report_html(run_scenario(config))
    assert "Goodput (useful / allocated GPU-hours)" in text
    assert "<h2>Failures by job size</h2>" in text and "lost GPU-h" in text
    plain = report_html(run_scenario(ScenarioConfig(trace=TraceSpec(max_jobs=50),
                                                    policies=(PolicySpec("fifo"),))))  # fmt: skip
    assert "Failures by job size" not in plain and "Goodput" not in plain


def test_a_per_type_mtbf_row_reaches_the_scenario_and_a_bad_one_is_named() -> None:
    at = _app()
    at.toggle(key="fail_enabled").set_value(True).run()
    at.session_state["type_mtbf"] = pd.DataFrame({"worker_type": ["k80"], "node_mtbf_h": [900.0]})
    at.session_state["table_version"] = 11
    at.run()
    assert not at.exception
    s = at.session_state
    assert s["scenarios"][s["current_scenario"]].failures.type_mtbf == (TypeMtbf("k80", 900.0),)
    at.session_state["type_mtbf"] = pd.DataFrame({"worker_type": ["k80"], "node_mtbf_h": ["x"]})
    at.session_state["table_version"] = 12
    at.run()
    assert not at.exception
    assert any("node MTBF by GPU type, row 1" in e.value and "node_mtbf_h" in e.value
               for e in at.error)  # fmt: skip

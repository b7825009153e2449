"""AppTest over every page: load, preview, policy forms, run, result pages, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from engine.config import (
    ClusterSpec,
    CongestionEpisode,
    NetworkConfig,
    NodeGroup,
    PolicySpec,
    ScenarioConfig,
    SyntheticSpec,
    TraceSpec,
)
from engine.papers import get_paper_preset, list_paper_presets
from engine.policies import list_policies
from tests.dashboard.fakes import fake_comparison

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "dashboard" / "app.py")
RESULT_PAGES = ["results", "schedule", "utilization", "fairness", "network"]
TIMEOUT_S = 120


def make_app() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    return at.run()


def button(at: AppTest, key: str):
    return next(b for b in at.button if b.key == key)


def test_default_load_previews_the_sample_trace() -> None:
    at = make_app()
    assert not at.exception
    assert not at.error
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Jobs"] == "2,000"
    assert any("Philly" in info.value for info in at.info)
    assert len(at.dataframe) >= 2  # sizes and first rows
    assert at.session_state["policies"][0] == "fifo"


def test_policy_parameter_form_appears_for_a_selected_policy() -> None:
    at = make_app()
    policy = next(p for p in list_policies() if p != "fifo")
    at.multiselect(key="policies").set_value(["fifo", policy]).run()
    assert not at.exception
    labels = [e.label for e in at.expander]
    from engine.policies.base import policy_display_name

    assert f"{policy_display_name(policy)} parameters" in labels
    assert "FIFO parameters" in labels


def test_result_pages_without_a_run_point_to_the_scenario_page() -> None:
    at = make_app()
    for page in RESULT_PAGES:
        at.switch_page(f"app_pages/{page}.py").run()
        assert not at.exception
        assert "No results yet" in at.info[0].value


def test_run_default_scenario_fills_every_result_page() -> None:
    at = make_app()
    policies = at.session_state["policies"]
    button(at, "run").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert "Simulated" in at.success[0].value
    at.switch_page("app_pages/results.py").run()
    assert not at.exception
    kpi = at.dataframe[0].value
    assert len(kpi) == len(policies)
    for page in RESULT_PAGES:
        at.switch_page(f"app_pages/{page}.py").run()
        assert not at.exception, page
        assert at.get("plotly_chart"), page


@pytest.mark.parametrize("page", RESULT_PAGES)
def test_result_pages_render_a_fake_result(page: str) -> None:
    at = make_app()
    at.session_state["result"] = fake_comparison(("fifo", "las", "srtf"), n_jobs=40)
    at.switch_page(f"app_pages/{page}.py").run()
    assert not at.exception
    assert at.get("plotly_chart")


def test_bad_upload_shows_the_engine_message_naming_row_and_column() -> None:
    at = make_app()
    at.radio(key="source_kind").set_value("Upload a file").run()
    bad = b"timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-01 00:00:45,30.0,one,30.0,c1\n"
    at.file_uploader(key="trace_file").upload("bad.csv", bad, "text/csv").run()
    assert not at.exception
    messages = [e.value for e in at.error]
    assert any("bad.csv" in m and "row 1" in m and "num_gpus" in m for m in messages), messages


def test_unknown_csv_offers_the_column_mapping_step() -> None:
    at = make_app()
    at.radio(key="source_kind").set_value("Upload a file").run()
    odd = b"id,submit,model,gpus,steps\na,0,ResNet-50 (batch size 64),1,100\n"
    at.file_uploader(key="trace_file").upload("odd.csv", odd, "text/csv").run()
    assert not at.exception
    assert any("could not recognise" in e.value for e in at.error)
    assert at.selectbox(key="map.job_id") is not None
    at.selectbox(key="map.job_id").set_value("id")
    at.selectbox(key="map.arrival_s").set_value("submit")
    at.selectbox(key="map.job_type").set_value("model")
    at.selectbox(key="map.scale_factor").set_value("gpus")
    at.selectbox(key="map.total_steps").set_value("steps")
    next(b for b in at.button if b.label == "Apply mapping").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert {m.label: m.value for m in at.metric}["Jobs"] == "1"


def test_bad_gpu_mix_is_reported_not_raised() -> None:
    at = make_app()
    at.session_state["gpu_mix"] = at.session_state["gpu_mix"].assign(nodes=0)
    at.session_state["table_version"] = 99
    at.run()
    assert not at.exception
    assert any("GPU mix row 1" in e.value for e in at.error)


def test_query_parameters_are_read_on_first_load() -> None:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.query_params["policies"] = "srtf,fifo"
    at.query_params["seed"] = "7"
    at.run()
    assert not at.exception
    assert at.session_state["policies"] == ["srtf", "fifo"]
    assert at.session_state["seed"] == 7


def test_second_run_of_the_same_scenario_comes_from_the_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine runs once for two clicks on Run with an unchanged scenario, and adding a
    policy simulates only that one (the runner keeps results per policy; a counting wrapper
    of the worker function sees every simulation)."""
    from engine.study import executors

    calls = []
    original = executors.execute

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(args[0].variant)  # (spec, payload): the policy's display name
        return original(*args, **kwargs)

    monkeypatch.setattr(executors, "execute", counting)
    st.cache_data.clear()
    st.cache_resource.clear()
    at = make_app()
    at.multiselect(key="policies").set_value(["fifo"]).run()
    button(at, "run").click().run()
    assert at.title[0].value == "Results"  # Run switches to the Results page
    at.switch_page("app_pages/scenario.py").run()
    button(at, "run").click().run()  # cache hit: the engine is not called again
    assert not at.exception
    assert len(at.success) == 1
    assert "from cache" in at.success[0].value
    assert calls == ["FIFO"]
    at.switch_page("app_pages/scenario.py").run()
    at.multiselect(key="policies").set_value(["fifo", "las"]).run()
    button(at, "run").click().run()
    assert calls == ["FIFO", "Tiresias LAS"]
    assert "Simulated 2 policies" in at.success[0].value
    assert "(1 from cache)" in at.success[0].value


def test_preset_rewrites_the_round_settings() -> None:
    at = make_app()
    at.selectbox(key="preset").set_value("gavel_compatible").run()
    assert not at.exception
    assert at.session_state["admit_mid_round"] is False
    assert at.session_state["checkpoint_restore_s"] == 0.0
    assert at.session_state["reallocation_interval_s"] == 1920.0
    assert at.session_state["gavel_rules"] is True
    assert at.session_state["network_enabled"] is False
    assert at.query_params["preset"] == "gavel_compatible"


def test_an_old_link_naming_the_gavel_preset_still_applies_it() -> None:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.query_params["preset"] = "Gavel-compatible"  # the preset's name before issue 28
    at.run()
    assert not at.exception
    assert at.session_state["preset"] == "gavel_compatible"
    assert at.session_state["gavel_rules"] is True


def test_muri_preset_sets_the_testbeds_rules_and_las_queue_order() -> None:
    from dashboard.policy_params import param_key

    at = make_app()
    at.selectbox(key="preset").set_value("muri_testbed").run()
    assert not at.exception
    state = at.session_state
    assert state["relaunch_on_event"] is True and state["admit_mid_round"] is False
    assert state["round_duration_s"] == 360.0 and state["checkpoint_restore_s"] == 10.0
    assert state["step_time_overhead"] == 0.015 and state["network_enabled"] is False
    assert state[param_key("las", "requeue")] is True
    at.multiselect(key="policies").set_value(["las"]).run()
    config = at.session_state["scenarios"][at.session_state["current_scenario"]]
    assert config.rounds.relaunch_on_event and config.policies[0].params["requeue"] is True


def test_muris_testbed_trace_uploads_states_its_format_and_speeds_and_runs() -> None:
    """cluster_trace.csv as Muri ships it: it used to be taken for a Tiresias trace and fail
    at row 3 ('unknown model a2c'), its milliseconds read as seconds."""
    at = make_app()
    at.radio(key="source_kind").set_value("Upload a file").run()
    raw = (ROOT / "sample_traces" / "muri_cluster_trace.csv").read_bytes()
    at.file_uploader(key="trace_file").upload("cluster_trace.csv", raw, "text/csv").run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert any("Detected format" in m.value and "`muri`" in m.value for m in at.markdown)
    at.selectbox(key="assumed_worker_type").set_value("v100").run()
    notes = " ".join(info.value for info in at.info)
    assert "Speeds from the trace" in notes and "measured on v100" in notes
    assert {m.label: m.value for m in at.metric}["Jobs"] == "400"
    at.selectbox(key="preset").set_value("muri_testbed").run()
    at.multiselect(key="policies").set_value(["srsf"]).run()
    button(at, "run").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    result = at.session_state["result"]
    assert result.results[0].policy == "SRSF" and len(result.results[0].jobs) == 400


def test_scenario_json_round_trip_and_bad_json() -> None:
    at = make_app()
    config = ScenarioConfig(policies=(PolicySpec("srtf"),), seed=5, placement="first_fit")
    at.file_uploader(key="scenario_file").upload(
        "s.json", config.to_json().encode(), "application/json"
    )
    at.run()
    assert not at.exception
    assert at.session_state["policies"] == ["srtf"]
    assert at.session_state["seed"] == 5
    assert at.session_state["placement"] == "first_fit"
    assert any("Loaded scenario s.json" in s.value for s in at.success)
    at.file_uploader(key="scenario_file").upload("bad.json", b'{"seed": "x"}', "application/json")
    at.run()
    assert any("bad.json" in e.value and "seed" in e.value for e in at.error)


def test_jobs_larger_than_the_cluster_can_be_dropped() -> None:
    at = make_app()
    small = at.session_state["gpu_mix"].assign(nodes=1, gpus_per_node=4)
    at.session_state["gpu_mix"] = small
    at.session_state["table_version"] = 7
    at.run()
    assert not at.exception
    assert at.error, "oversized jobs should be reported"
    drop = next(b for b in at.button if b.label.startswith("Drop them"))
    drop.click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert any("dropped" in info.value for info in at.info)


def test_synthetic_workload_is_previewed() -> None:
    at = make_app()
    at.radio(key="source_kind").set_value("Synthetic").run()
    assert not at.exception
    assert {m.label: m.value for m in at.metric}["Jobs"] == "200"


def test_placement_choice_reaches_the_scenario() -> None:
    at = make_app()
    at.selectbox(key="placement").set_value("first_fit").run()
    at.multiselect(key="policies").set_value(["fifo"]).run()
    button(at, "run").click().run()
    assert not at.exception
    assert at.session_state["result"].config.placement == "first_fit"


def test_an_extra_gpu_type_by_speed_ratio_can_join_the_mix() -> None:
    """Add a100 = 2 x v100, put a 8 x 8 a100 rack in the mix, run: the a100s are used."""
    import pandas as pd

    at = make_app()
    at.session_state["extra_types"] = pd.DataFrame(
        {"name": ["a100"], "base": ["v100"], "speed_ratio": [2.0]}
    )
    mix = at.session_state["gpu_mix"]
    at.session_state["gpu_mix"] = pd.concat(
        [mix, pd.DataFrame([("a100", 8, 8, "rack4")], columns=mix.columns)], ignore_index=True
    )
    at.session_state["table_version"] = 1  # the editors re-read their tables
    at.multiselect(key="policies").set_value(["fifo"]).run()
    button(at, "run").click().run()
    assert not at.exception
    result = at.session_state["result"]
    assert result.config.extra_worker_types[0].name == "a100"
    assert "a100" in set(result.results[0].utilization["worker_type"])


@pytest.mark.parametrize("name", list_paper_presets())
def test_a_paper_preset_loads_runs_and_sets_claims_beside_the_simulation(name: str) -> None:
    """Choosing a paper preset loads exactly its scenario into the widgets (policies, GPU mix,
    trace), Run simulates it, and the Results page shows one row per claim."""
    at = make_app()
    at.selectbox(key="paper_preset").set_value(name).run()
    assert not at.exception
    preset = get_paper_preset(name)
    expected = preset.build(int(at.session_state["seed"]))
    assert at.session_state["policies"] == [p.name for p in expected.policies]
    button(at, "run").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert ScenarioConfig.from_json(at.session_state["result_config"]) == expected
    at.switch_page("app_pages/results.py").run()
    assert not at.exception
    claims = next(d.value for d in at.dataframe if "Claim" in d.value.columns)  # after the KPIs
    assert list(claims["Claim"]) == [c.text for c in preset.claims]
    assert claims["Simulated"].str.endswith("×").all()
    assert set(claims["Verdict"]) <= {"shown", "direction only", "not shown"}


def chart_titles(at: AppTest) -> list[str]:
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    return [spec["layout"]["title"]["text"] for spec in specs]


NETWORK_SCENARIO = ScenarioConfig(
    trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(60, 30.0)),
    cluster=ClusterSpec((NodeGroup("v100", 2, 8, "rack0"), NodeGroup("k80", 3, 4, "rack1"))),
    network=NetworkConfig(
        latency_s=1e-5, uplink_oversubscription=2.0, background_load=0.2, share_links=True,
        congestion=(CongestionEpisode(600.0, 1800.0, 4.0, "uplink:rack1"),),
    ),
    policies=(PolicySpec("fifo"), PolicySpec("las")),
)  # fmt: skip


def test_network_settings_round_trip_through_scenario_json_and_a_run() -> None:
    """Load a scenario whose network sets every field; the widgets show them, and Run
    simulates exactly that scenario."""
    at = make_app()
    at.file_uploader(key="scenario_file").upload(
        "net.json", NETWORK_SCENARIO.to_json().encode(), "application/json"
    )
    at.run()
    assert not at.exception
    assert at.number_input(key="uplink_oversubscription").value == 2.0
    assert at.number_input(key="background_load").value == 0.2
    assert at.toggle(key="share_links").value is True
    button(at, "run").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert ScenarioConfig.from_json(at.session_state["result_config"]) == NETWORK_SCENARIO


def test_network_page_after_a_real_run_shows_the_congested_uplink_at_its_time() -> None:
    at = make_app()
    at.file_uploader(key="scenario_file").upload(
        "net.json", NETWORK_SCENARIO.to_json().encode(), "application/json"
    )
    at.run()
    button(at, "run").click().run()
    at.switch_page("app_pages/network.py").run()
    assert not at.exception
    assert at.session_state["network_time_s"] == 1200.0  # inside the episode
    topology_title, racks_title, congestion_title = chart_titles(at)
    assert "1 link(s) congested" in topology_title
    assert racks_title.endswith("over time") and congestion_title == "Congested links over time"
    at.select_slider(key="network_time_s").set_value(0.0).run()
    assert not at.exception
    assert "no congested link" in chart_titles(at)[0]
    at.selectbox(key="network_policy").set_value("Tiresias LAS").run()
    assert not at.exception
    assert at.session_state["network_policy"] == "Tiresias LAS"


def test_network_page_with_the_fake_result_lists_the_jobs_running() -> None:
    at = make_app()
    episode = CongestionEpisode(3000.0, 6000.0, 4.0, "uplink:rack1")
    at.session_state["result"] = fake_comparison(("fifo", "las"), n_jobs=40, congestion=(episode,))
    at.switch_page("app_pages/network.py").run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 3
    assert at.session_state["network_time_s"] == 4500.0
    running = at.dataframe[0].value
    assert {"job_id", "nodes", "network_sensitivity"} <= set(running.columns)
    assert chart_titles(at)[1] == "Share of each rack's GPUs busy over time"  # j9 spans racks


def test_schedule_colors_by_network_sensitivity_and_lists_it_per_job() -> None:
    at = make_app()
    at.session_state["result"] = fake_comparison(n_jobs=20)
    at.switch_page("app_pages/schedule.py").run()
    at.radio(key="gantt_color_by").set_value("network_sensitivity").run()
    assert not at.exception
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert any(t.get("name") == "network sensitivity" for t in spec["data"])
    table = at.dataframe[0].value
    assert {"network_sensitivity", "consolidation_wait_s"} <= set(table.columns)


def test_upload_without_a_file_cannot_run_and_previews_nothing() -> None:
    at = make_app()
    assert not button(at, "run").disabled
    at.radio(key="source_kind").set_value("Upload a file").run()
    assert not at.exception
    assert button(at, "run").disabled
    assert not at.metric, "the sample's preview must not stay on screen"
    assert any("Upload a trace file" in w.value for w in at.warning)


def test_a_utf16_tab_separated_upload_loads_and_states_its_format() -> None:
    at = make_app()
    at.radio(key="source_kind").set_value("Upload a file").run()
    lines = (ROOT / "sample_traces" / "philly_2000.csv").read_text().splitlines()[:31]
    raw = "\n".join(line.replace(",", "\t") for line in lines).encode("utf-16")
    at.file_uploader(key="trace_file").upload("excel.txt", raw, "text/plain").run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert {m.label: m.value for m in at.metric}["Jobs"] == "30"
    assert any("UTF-16, tab-separated" in m.value for m in at.markdown)
    assert not button(at, "run").disabled


def test_a_field_over_the_csv_limit_names_its_row() -> None:
    at = make_app()
    at.radio(key="source_kind").set_value("Upload a file").run()
    lines = (ROOT / "sample_traces" / "philly_2000.csv").read_text().splitlines()[:6]
    lines[3] = '"' + "x" * 200_000 + '"' + lines[3][lines[3].index(",") :]
    at.file_uploader(key="trace_file").upload("long.csv", "\n".join(lines).encode(), "text/csv")
    at.run()
    assert not at.exception
    assert any("long.csv, row 3" in e.value and "field limit" in e.value for e in at.error)


def test_a_gavel_trace_hides_the_assumed_gpu_type() -> None:
    at = make_app()
    assert at.selectbox(key="assumed_worker_type") is not None
    at.radio(key="source_kind").set_value("Upload a file").run()
    raw = (ROOT / "sample_traces" / "gavel_artifact_evaluation.trace").read_bytes()[:2000]
    raw = raw[: raw.rindex(b"\n") + 1]
    at.file_uploader(key="trace_file").upload("a.trace", raw, "text/plain").run()
    assert not at.exception
    assert not [s for s in at.selectbox if s.key == "assumed_worker_type"]


def test_explain_a_job_says_why_it_waited() -> None:
    at = make_app()
    at.number_input(key="max_jobs").set_value(60)
    at.session_state["gpu_mix"] = at.session_state["gpu_mix"].head(1).assign(nodes=1)
    at.session_state["table_version"] = 99  # a small cluster, so that jobs wait
    at.multiselect(key="policies").set_value(["fifo"]).run()
    button(at, "run").click().run()
    at.switch_page("app_pages/schedule.py").run()
    assert not at.exception
    result = at.session_state["result"]
    log = result.results[0].decisions
    waited = str(log.loc[log["event"] == "waiting", "job_id"].iloc[0])
    at.selectbox(key="explain_job").set_value(waited).run()
    assert not at.exception
    story = " ".join(m.value for m in at.markdown)
    assert "waiting, #" in story and "because" in story and "completed" in story

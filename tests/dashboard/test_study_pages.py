"""AppTest over the study pages (Compare, Sweep, Planner), named scenarios and shared links."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.links import LinkState, decode_link, encode_link
from engine.config import (
    ClusterSpec,
    FailureConfig,
    NodeGroup,
    PolicySpec,
    ScenarioConfig,
    SyntheticSpec,
    TraceSpec,
    spares_of,
)
from engine.policies.base import display_name

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
TIMEOUT_S = 180
SMALL = ScenarioConfig(
    trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(40, 30.0)),
    cluster=ClusterSpec((NodeGroup("v100", 2, 4, "rack0"), NodeGroup("k80", 2, 4, "rack1"))),
    policies=(PolicySpec("fifo"), PolicySpec("las")),
)


@pytest.fixture(autouse=True)
def _store(tmp_path, monkeypatch) -> None:
    """Each test gets its own trace and result store and runs studies in-process."""
    monkeypatch.setenv("GPUSCHED_STORE", str(tmp_path / "store"))
    monkeypatch.setenv("GPUSCHED_EXECUTOR", "serial")


def button(at: AppTest, key: str):
    return next(b for b in at.button if b.key == key)


def load_small(at: AppTest, config: ScenarioConfig = SMALL) -> AppTest:
    at.file_uploader(key="scenario_file").upload(
        "small.json", config.to_json().encode(), "application/json"
    )
    return at.run()


def make_app() -> AppTest:
    return load_small(AppTest.from_file(APP, default_timeout=TIMEOUT_S).run())


def url_param(at: AppTest, key: str) -> str:
    value = at.query_params[key]
    return value if isinstance(value, str) else value[0]


def plotly_titles(at: AppTest) -> list[str]:
    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]


def test_a_variant_with_more_v100s_runs_beside_the_baseline_with_paired_deltas() -> None:
    """Duplicate the scenario on the Compare page, double its V100 nodes, run both over two
    seeds: one row per (variant, policy), the baseline marked, the variant's deltas signed."""
    at = make_app()
    at.switch_page("app_pages/compare.py").run()
    at.text_input(key="new_scenario_name").set_value("more v100").run()
    button(at, "duplicate_scenario").click().run()
    assert at.session_state["current_scenario"] == "more v100"
    at.session_state["gpu_mix"] = at.session_state["gpu_mix"].assign(nodes=[4, 2])
    at.session_state["table_version"] = 5  # the editor re-reads the table
    at.run()
    at.number_input(key="compare_seeds").set_value(2).run()
    button(at, "run_compare").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert "8 runs: 8 simulated" in at.success[0].value
    scenarios = at.session_state["scenarios"]
    assert scenarios["base"].cluster.total_gpus == 16
    assert scenarios["more v100"].cluster.total_gpus == 24
    table = next(d.value for d in at.dataframe if "Scenario" in d.value.columns
                 and any(str(c).startswith("Δ Mean JCT (") for c in d.value.columns))  # fmt: skip
    delta = next(c for c in table.columns if str(c).startswith("Δ Mean JCT ("))
    assert list(zip(table["Scenario"], table["Policy"], strict=True)) == [
        ("base", "FIFO"), ("base", "Tiresias LAS"),
        ("more v100", "FIFO"), ("more v100", "Tiresias LAS"),
    ]  # fmt: skip
    assert (table.loc[table["Scenario"] == "base", delta] == "(baseline)").all()
    assert table.loc[table["Scenario"] == "more v100", delta].str.match(r"[+-]").all()
    means = next(d.value for d in at.dataframe if "Scenario" in d.value.columns
                 and any(str(c).startswith("Mean JCT (") for c in d.value.columns))  # fmt: skip
    assert not any(str(c).startswith("Δ") for c in means.columns)  # a table of its own
    assert list(means["Scenario"]) == list(table["Scenario"])
    result = at.session_state["compare_result"]
    paired = result.paired("jct_mean_s")
    assert (paired["n"] == 2).all()
    assert plotly_titles(at) == [
        "Mean JCT: difference to base",
        "FIFO: JCT CDF per variant (further left is better)",
    ]
    button(at, "run_compare").click().run()  # the same study again: all from the result store
    assert "8 from the result store" in at.success[0].value


def test_the_same_policy_twice_with_two_parameters() -> None:
    """LAS added a second time under its own label with another queue threshold: both
    instances reach the scenario, each with its own parameters."""
    at = make_app()
    at.text_input(key="copy_label.las").set_value("LAS 10h").run()
    button(at, "copy.las").click().run()
    assert not at.exception
    assert any(e.label == "LAS 10h parameters" for e in at.expander)
    at.text_input(key="pp.LAS 10h.queue_thresholds_gpu_s").set_value("36000").run()
    assert not at.exception
    config = at.session_state["scenarios"]["base"]
    assert [display_name(p) for p in config.policies] == ["FIFO", "Tiresias LAS", "LAS 10h"]
    assert config.policies[1].params == {}
    assert config.policies[2].params == {"queue_thresholds_gpu_s": "36000"}
    assert at.text_input(key="pp.las.queue_thresholds_gpu_s").value == "3600"


def test_switching_scenarios_keeps_each_ones_settings() -> None:
    at = make_app()
    at.text_input(key="new_scenario_name").set_value("busy").run()
    button(at, "duplicate_scenario").click().run()
    at.number_input(key="background_load").set_value(0.3).run()
    at.selectbox(key="scenario_choice").set_value("base").run()
    assert not at.exception
    assert at.number_input(key="background_load").value == 0.0
    at.selectbox(key="scenario_choice").set_value("busy").run()
    assert at.number_input(key="background_load").value == 0.3
    assert at.session_state["scenarios"]["base"].network.background_load == 0.0


def test_the_url_carries_every_scenario_and_a_fresh_session_reproduces_the_run() -> None:
    """Change settings without a URL key of their own (background load, checkpoint cost), run,
    take the link; a new session opened on it has the same scenarios and the same KPIs."""
    at = make_app()
    at.number_input(key="background_load").set_value(0.25).run()
    at.number_input(key="checkpoint_restore_s").set_value(42.0).run()
    next(b for b in at.button if b.key == "run").click().run()
    kpis = at.session_state["result"].kpi_table()
    link = url_param(at, "scenario")
    state = decode_link(link)
    assert state.scenarios["base"].network.background_load == 0.25
    assert state.scenarios["base"].rounds.checkpoint_restore_s == 42.0

    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    fresh.query_params["scenario"] = link
    fresh.run()
    assert not fresh.exception
    restored = fresh.session_state["scenarios"]["base"]  # (it opens on Results: no widgets)
    assert restored.network.background_load == 0.25
    assert restored.rounds.checkpoint_restore_s == 42.0
    assert fresh.session_state["result"] is not None  # ran on open
    pd.testing.assert_frame_equal(fresh.session_state["result"].kpi_table(), kpis)


def test_a_link_to_an_upload_missing_here_asks_for_it_and_runs_nothing() -> None:
    config = ScenarioConfig(trace=TraceSpec(source="upload:mine.csv"), policies=SMALL.policies)
    link = encode_link(LinkState({"base": config}, "base", "ab" * 32))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.query_params["scenario"] = link
    at.run()
    assert not at.exception
    assert any("mine.csv" in e.value and "not on this server" in e.value for e in at.error)
    assert at.session_state["source_kind"] == "Upload a file"
    assert at.session_state["upload"] is None
    assert at.session_state["result"] is None
    assert not any(m.label == "Jobs" for m in at.metric)  # no other trace previewed


def test_a_link_to_an_upload_in_the_store_restores_the_file() -> None:
    from engine.study.traces import TraceStore

    data = Path(__file__).resolve().parents[2].joinpath("sample_traces", "philly_2000.csv")
    digest = TraceStore().put("mine.csv", data.read_bytes())
    config = dataclasses.replace(
        SMALL, trace=TraceSpec(source="upload:mine.csv", max_jobs=30),
        cluster=ClusterSpec((NodeGroup("v100", 8, 8, "rack0"),)),
    )  # fmt: skip
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.query_params["scenario"] = encode_link(LinkState({"base": config}, "base", digest))
    at.run()
    assert not at.exception
    assert at.session_state["upload"][0] == "mine.csv"
    result = at.session_state["result"]
    assert result is not None and len(result.results[0].jobs) == 30
    assert decode_link(url_param(at, "scenario")).trace_sha256 == digest


def test_a_sweep_over_the_arrival_scale_draws_one_band_per_policy() -> None:
    at = make_app()
    at.switch_page("app_pages/sweep.py").run()
    assert not at.exception
    at.selectbox(key="sweep_axis_x").set_value("load.arrival_scale").run()
    at.text_input(key="sweep_values.load.arrival_scale").set_value("0.5, 2").run()
    at.number_input(key="sweep_seeds").set_value(2).run()
    button(at, "run_sweep").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert "8 runs" in at.success[0].value  # 2 values x 2 policies x 2 seeds
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    lines = [t for t in spec["data"] if t.get("mode") == "lines+markers"]
    assert [t["name"] for t in lines] == ["FIFO", "Tiresias LAS"]
    assert lines[0]["x"] == [0.5, 2.0]
    # twice the arrival rate on the same cluster: jobs wait longer, so mean JCT grows
    assert lines[0]["y"][1] > lines[0]["y"][0]
    assert spec["layout"]["legend"]["x"] > 1  # legend outside the plot


def test_a_two_axis_sweep_is_a_heatmap_and_bad_values_are_named() -> None:
    at = make_app()
    at.switch_page("app_pages/sweep.py").run()
    at.selectbox(key="sweep_axis_x").set_value("cluster.node_groups.0.nodes").run()
    at.text_input(key="sweep_values.cluster.node_groups.0.nodes").set_value("1, 2.5").run()
    assert any("'2.5' must be a whole number" in e.value for e in at.error)
    at.text_input(key="sweep_values.cluster.node_groups.0.nodes").set_value("1, 3").run()
    at.selectbox(key="sweep_axis_y").set_value("network.background_load").run()
    at.text_input(key="sweep_values.network.background_load").set_value("0, 0.5").run()
    at.number_input(key="sweep_seeds").set_value(1).run()
    button(at, "run_sweep").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    heat = spec["data"][0]
    assert heat["type"] == "heatmap"
    assert heat["x"] == ["1", "3"] and heat["y"] == ["0.0", "0.5"]


def test_the_planner_finds_a_mix_shows_today_and_loads_the_mix() -> None:
    """One policy, two candidate types (v100 and k80, at most 3 nodes of 4 GPUs), a loose
    target: the planner answers with a mix that meets it, shows today's cluster beside it as a
    point and a metric, keeps the y axis near the target, speaks in hours and USD/h, and one
    click makes the mix the current scenario's GPU mix."""
    at = make_app()
    at.switch_page("app_pages/planner.py").run()
    assert not at.exception
    at.session_state["plan_candidates"] = pd.DataFrame({
        "worker_type": ["v100", "k80"], "price_usd_per_gpu_h": [0.74, 0.135],
        "max_nodes": [3, 3], "gpus_per_node": [4, 4],
    })  # fmt: skip
    at.selectbox(key="plan_policy").set_value("FIFO")
    at.number_input(key="plan_target_jct_mean_s").set_value(300.0)  # 12.5 days: 40 jobs vary
    at.number_input(key="plan_seeds").set_value(2).run()
    button(at, "run_plan").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    result = at.session_state["plan_result"]
    assert result.chosen is not None and result.today["today"]
    assert any("Cheapest mix found" in s.value for s in at.success)
    labels = {m.label: m.value for m in at.metric}
    assert labels["Today's cluster"].endswith("USD/h") and "Chosen mix" in labels
    assert any("intervals are wide" in i.value for i in at.info)  # 2 seeds < 5
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    names = [t.get("name", "") for t in spec["data"]]
    assert any(n.startswith("today's cluster: ") for n in names)
    assert any(n.startswith("chosen: ") for n in names) and any("Pareto" in n for n in names)
    low, high = spec["layout"]["yaxis"]["range"]
    assert low == 0 and high <= max(600.0, 1.15 * result.today["mean"] / 3600 + 1)  # 2x target
    text = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert "engine." not in text and "jct_mean_s" not in text
    if result.chosen_scenario.cluster == at.session_state["scenarios"]["base"].cluster:
        # the answer is today's mix itself: the page offers no load (nothing would change)
        assert not any(b.key == "load_chosen" for b in at.button)
        return
    button(at, "load_chosen").click().run()
    assert not at.exception
    assert at.session_state["scenarios"]["base"].cluster == result.chosen


def test_with_failures_on_the_planner_searches_spares_and_shows_goodput() -> None:
    """Failures on (node MTBF 20 h, repair 24 h): the planner offers a spares bound, every mix
    reports goodput (metrics, words, table), the chosen mix carries its spares onto the
    scenario; a policy that does not model failures gets a warning and no Plan run."""
    failing = dataclasses.replace(
        SMALL, failures=FailureConfig(enabled=True, node_mtbf_h=20.0, repair_h=24.0)
    )
    at = load_small(AppTest.from_file(APP, default_timeout=TIMEOUT_S).run(), failing)
    at.multiselect(key="policies").set_value(["fifo", "gavel_maxmin"]).run()  # a scenario file
    at.switch_page("app_pages/planner.py").run()
    assert not at.exception
    at.selectbox(key="plan_policy").set_value("Gavel max-min").run()
    assert any("does not model node failures" in w.value for w in at.warning)
    assert button(at, "run_plan").disabled
    at.session_state["plan_candidates"] = pd.DataFrame({
        "worker_type": ["v100", "k80"], "price_usd_per_gpu_h": [0.74, 0.135],
        "max_nodes": [3, 3], "gpus_per_node": [4, 4],
    })  # fmt: skip
    at.selectbox(key="plan_policy").set_value("FIFO")
    at.number_input(key="plan_max_spares").set_value(1)
    at.number_input(key="plan_target_jct_mean_s").set_value(1000.0)  # 40 jobs vary a lot
    at.number_input(key="plan_seeds").set_value(2).run()
    assert any("Failures are on" in i.value for i in at.info)
    button(at, "run_plan").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    result = at.session_state["plan_result"]
    assert result.spec.max_spares == 1 and result.chosen_row is not None
    table = _table_with(at, "goodput")
    runs = table["error"] == ""  # a mix the policy cannot run has no goodput
    assert set(table["spares:v100"]) | set(table["spares:k80"]) <= {0, 1}
    assert table["goodput"][runs].between(0, 100).all()
    assert table["goodput"][~runs].isna().all()
    captions = " ".join(c.value for c in at.caption)
    assert f"goodput {result.today['goodput']:.1%}" in captions
    assert f"goodput {result.chosen_row['goodput']:.1%}" in captions
    words = " ".join(m.value for m in at.markdown)
    assert "Chosen: " in words and "goodput" in words.split("Chosen: ")[1]
    if result.chosen != failing.cluster:  # the load button shows for a new mix only
        button(at, "load_chosen").click().run()
        assert not at.exception
        loaded = at.session_state["scenarios"]["base"]
        assert loaded.cluster == result.chosen
        for worker_type in ("v100", "k80"):
            want = result.chosen_row[f"spares:{worker_type}"]
            assert spares_of(loaded.failures, worker_type) == want


def _table_with(at: AppTest, column: str) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_compare_answers_las_vs_fifo_with_a_paired_row() -> None:
    """One scenario, FIFO and LAS, three seeds: the page's first table answers "Tiresias LAS vs
    FIFO" metric by metric; the mean JCT row is the mean of the per-seed differences, its p is
    scipy.stats.ttest_rel's, and the page says three seeds make a weak answer. Swapping A and B
    flips the sign."""
    from scipy import stats as scipy_stats

    from engine.units import column_format

    at = make_app()
    at.switch_page("app_pages/compare.py").run()
    at.number_input(key="compare_seeds").set_value(3).run()
    button(at, "run_compare").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = _table_with(at, "% of B")
    row = table[table["Metric"] == "Mean JCT"].iloc[0]
    assert "A vs B" not in table and row["Seeds"] == 3  # the pair is said once, above the grid
    assert [m.value for m in at.markdown if m.value.startswith("A vs B: ")] == [
        "A vs B: **Tiresias LAS vs FIFO**"
    ]
    runs = at.session_state["compare_result"].runs.set_index(["policy", "seed"])["jct_mean_s"]
    las = [runs[("Tiresias LAS", s)] for s in range(3)]
    fifo = [runs[("FIFO", s)] for s in range(3)]
    diffs = [a - b for a, b in zip(las, fifo, strict=True)]
    test = scipy_stats.ttest_rel(las, fifo)
    low, high = test.confidence_interval(0.95)
    fmt = column_format([sum(diffs) / 3, low, high])
    assert row["A − B"] == fmt.text(sum(diffs) / 3, sign=True, unit=True)
    assert row["95% interval"] == f"[{fmt.text(low, sign=True)}, {fmt.text(high, sign=True)}]"
    from engine.study.paired import p_text, paired_rows, percent_text

    result = at.session_state["compare_result"]
    page_metrics = ("jct_mean_s", "jct_p95_s", "queueing_delay_mean_s", "makespan_s",
                    "cost_per_job_usd")  # the Compare page's SHOWN  # fmt: skip
    shown = [m for m in page_metrics if m in result.runs.columns]
    assert len(shown) == len(table)
    raw = paired_rows(result, [(("base", "Tiresias LAS"), ("base", "FIFO"))], shown)
    jct = raw.set_index("metric").loc["jct_mean_s"]
    assert jct["p_value"] == pytest.approx(test.pvalue)
    assert row["p (Holm)"] == p_text(jct["p_holm"])  # adjusted over the page's metrics
    assert jct["p_holm"] >= jct["p_value"]
    assert row["% of B"] == percent_text(sum(diffs) / sum(fifo))  # A - B over FIFO's mean
    assert "Reading" not in table  # a sentence per metric under the grid, which stays narrow
    readings = next(m.value for m in at.markdown if m.value.startswith("- **Mean JCT**: "))
    assert readings.splitlines()[0].endswith("(weak: 3 seeds)")
    caption = " ".join(c.value for c in at.caption)
    assert f"Holm's method for the {len(shown)} metrics" in caption and "under 5%" in caption
    assert any("weak with 3 seeds" in w.value for w in at.warning)
    at.selectbox(key="compare_pair_a").set_value("base\tFIFO").run()
    at.selectbox(key="compare_pair_b").set_value("base\tTiresias LAS").run()
    swapped = _table_with(at, "% of B")
    swapped_row = swapped[swapped["Metric"] == "Mean JCT"].iloc[0]
    assert any(m.value == "A vs B: **FIFO vs Tiresias LAS**" for m in at.markdown)
    assert swapped_row["A − B"] == fmt.text(-sum(diffs) / 3, sign=True, unit=True)


def test_a_sweep_has_a_policy_axis_and_pairs_two_policies_at_every_value() -> None:
    at = make_app()
    at.switch_page("app_pages/sweep.py").run()
    at.selectbox(key="sweep_axis_x").set_value("load.arrival_scale").run()
    at.text_input(key="sweep_values.load.arrival_scale").set_value("0.5, 2").run()
    at.selectbox(key="sweep_axis_y").set_value("policy").run()
    at.number_input(key="sweep_seeds").set_value(2).run()
    button(at, "run_sweep").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    heat = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]
    assert heat["type"] == "heatmap" and heat["y"] == ["FIFO", "Tiresias LAS"]
    assert heat["x"] == ["0.5", "2.0"]
    pair = json.loads(at.get("plotly_chart")[1].proto.spec)
    assert pair["layout"]["title"]["text"].startswith("Tiresias LAS vs FIFO: paired difference")
    table = _table_with(at, "Point")
    assert list(table["Point"]) == ["arrival_scale=0.5", "arrival_scale=2"]
    assert (table["Seeds"] == 2).all()
    assert any("Results of scenario **base** · seeds 0, 1" in m.value for m in at.markdown)


def test_results_name_their_scenario_and_a_link_opens_the_one_the_sender_saw() -> None:
    """Run base, then duplicate it as "busy" (now selected) with a background load: Results
    still shows base's run and says so. The link opens base's results, with "busy" selected,
    on the Results page, and the same KPI table."""
    at = make_app()
    button(at, "run").click().run()
    at.switch_page("app_pages/scenario.py").run()
    at.text_input(key="new_scenario_name").set_value("busy").run()
    button(at, "duplicate_scenario").click().run()
    at.number_input(key="background_load").set_value(0.3).run()
    at.switch_page("app_pages/results.py").run()
    assert not at.exception
    assert any(m.value.startswith("Results of scenario **base**") for m in at.markdown)
    note = "These are the results of scenario **base**; the scenario selected now is **busy**"
    assert any(i.value.startswith(note) for i in at.info)
    kpis = at.session_state["result"].kpi_table()
    link = url_param(at, "scenario")
    state = decode_link(link)
    assert (state.results_scenario, state.current, state.page) == ("base", "busy", "results")

    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    fresh.query_params["scenario"] = link
    fresh.run()
    assert not fresh.exception
    assert fresh.title[0].value == "Results"
    assert fresh.session_state["result_scenario"] == "base"
    assert fresh.session_state["current_scenario"] == "busy"
    pd.testing.assert_frame_equal(fresh.session_state["result"].kpi_table(), kpis)
    assert any(m.value.startswith("Results of scenario **base**") for m in fresh.markdown)
    assert any(i.value.startswith(note) for i in fresh.info)


def test_a_link_carries_the_compare_and_sweep_settings_and_reruns_the_compare_page() -> None:
    at = make_app()
    at.switch_page("app_pages/sweep.py").run()
    at.selectbox(key="sweep_axis_x").set_value("rounds.round_duration_s").run()
    at.text_input(key="sweep_values.rounds.round_duration_s").set_value("120, 600").run()
    at.number_input(key="sweep_seeds").set_value(3).run()
    at.switch_page("app_pages/compare.py").run()
    at.number_input(key="compare_seeds").set_value(2).run()
    button(at, "run_compare").click().run()
    at.selectbox(key="compare_pair_a").set_value("base\tFIFO").run()
    at.selectbox(key="compare_pair_b").set_value("base\tTiresias LAS").run()
    table = _table_with(at, "% of B")
    link = url_param(at, "scenario")
    state = decode_link(link)
    assert state.page == "compare" and state.study["compare"]["ran"] is True
    assert state.study["sweep"]["sweep_values.rounds.round_duration_s"] == "120, 600"

    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    fresh.query_params["scenario"] = link
    fresh.run()
    assert not fresh.exception and not fresh.error, [e.value for e in fresh.error]
    assert fresh.title[0].value == "Compare"
    assert fresh.number_input(key="compare_seeds").value == 2
    pd.testing.assert_frame_equal(_table_with(fresh, "% of B"), table)  # reran, same numbers
    fresh.switch_page("app_pages/sweep.py").run()
    assert fresh.selectbox(key="sweep_axis_x").value == "rounds.round_duration_s"
    assert fresh.text_input(key="sweep_values.rounds.round_duration_s").value == "120, 600"
    assert fresh.number_input(key="sweep_seeds").value == 3


def test_the_planner_settings_travel_in_the_link() -> None:
    at = make_app()
    at.switch_page("app_pages/planner.py").run()
    at.number_input(key="plan_target_jct_mean_s").set_value(7.5).run()
    at.number_input(key="plan_seeds").set_value(4).run()
    at.slider(key="plan_confidence").set_value(80).run()
    link = url_param(at, "scenario")
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    fresh.query_params["scenario"] = link
    fresh.run()
    assert not fresh.exception
    assert fresh.title[0].value == "Planner"
    assert fresh.number_input(key="plan_target_jct_mean_s").value == 7.5
    assert fresh.number_input(key="plan_seeds").value == 4
    assert fresh.slider(key="plan_confidence").value == 80


def test_edits_to_the_planner_candidates_travel_in_the_link() -> None:
    """The candidates table as edited (a price, a row removed, a type's own spares bound) is
    the table a link carries; a fresh session opens with it and the planner plans on it."""
    at = make_app()
    at.switch_page("app_pages/planner.py").run()
    table = at.session_state["plan_candidates"]
    assert "max_spares" in table.columns and table["max_spares"].isna().all()
    edited = table.iloc[:2].assign(price_usd_per_gpu_h=[2.5, 0.125], max_spares=[1.0, None])
    at.session_state["plan_candidates"] = edited
    at.run()
    assert not at.exception
    link = url_param(at, "scenario")
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    fresh.query_params["scenario"] = link
    fresh.run()
    assert not fresh.exception and not fresh.warning
    carried = fresh.session_state["plan_candidates"]
    assert list(carried["worker_type"]) == list(edited["worker_type"])
    assert list(carried["price_usd_per_gpu_h"]) == [2.5, 0.125]
    assert carried["max_spares"].iloc[0] == 1 and pd.isna(carried["max_spares"].iloc[1])


def test_a_missing_upload_is_named_on_every_page() -> None:
    config = ScenarioConfig(trace=TraceSpec(source="upload:mine.csv"), policies=SMALL.policies)
    link = encode_link(LinkState({"base": config}, "base", "ab" * 32, page="results"))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.query_params["scenario"] = link
    at.run()
    for page in ("results", "schedule", "compare", "sweep", "planner", "scenario"):
        at.switch_page(f"app_pages/{page}.py").run()
        assert not at.exception, page
        assert any("mine.csv" in e.value and "not on this server" in e.value for e in at.error), (
            page
        )
    assert at.session_state["result"] is None


def test_a_crafted_link_with_bad_settings_opens_and_names_what_it_left_out() -> None:
    """Seeds as text, a target of -1, a confidence its slider cannot show, a candidates table
    with a missing column: each is left at its default and named; no page breaks."""
    study = {
        "compare": {"compare_seeds": "many", "compare_metric": ["x"]},
        "sweep": {"sweep_seeds": 10**9, "sweep_values.load.arrival_scale": "1, 2", "junk": 1},
        "planner": {
            "plan_target_jct_mean_s": -1,
            "plan_confidence": 120,
            "plan_candidates": {"__records__": [{"worker_type": 1}]},
            "plan_candidates:mlperf": {
                "__records__": [
                    {
                        "worker_type": "B200",
                        "price_usd_per_gpu_h": 1e9,
                        "max_nodes": 8,
                        "gpus_per_node": 8,
                    }
                ]
            },
        },
    }
    link = encode_link(LinkState({"base": SMALL}, "base", study=study, page="compare"))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.query_params["scenario"] = link
    at.run()
    assert not at.exception
    notes = " ".join(w.value for w in at.warning)
    for key in (
        "compare_seeds",
        "compare_metric",
        "sweep_seeds",
        "plan_target_jct_mean_s",
        "plan_confidence",
        "plan_candidates",
        "plan_candidates:mlperf",
    ):
        assert repr(key) in notes, key
    assert "row 1, column price_usd_per_gpu_h: expected a number from 0 to 1000" in notes
    assert "junk" not in notes  # not a setting of any page: ignored
    assert at.number_input(key="compare_seeds").value == 3
    for page in ("sweep", "planner"):
        at.switch_page(f"app_pages/{page}.py").run()
        assert not at.exception, page
    assert at.session_state["sweep_values.load.arrival_scale"] == "1, 2"


def test_a_link_from_the_sweep_page_reruns_the_sweep_with_its_axes() -> None:
    at = make_app()
    at.switch_page("app_pages/sweep.py").run()
    at.selectbox(key="sweep_axis_x").set_value("load.arrival_scale").run()
    at.text_input(key="sweep_values.load.arrival_scale").set_value("0.5, 2").run()
    at.number_input(key="sweep_seeds").set_value(2).run()
    button(at, "run_sweep").click().run()
    stats = at.session_state["sweep_result"][0].stats("jct_mean_s")
    link = url_param(at, "scenario")
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    fresh.query_params["scenario"] = link
    fresh.run()
    assert not fresh.exception and fresh.title[0].value == "Sweep"
    result, axis, _, _, scenario = fresh.session_state["sweep_result"]
    assert (axis, scenario) == ("load.arrival_scale", "base")
    pd.testing.assert_frame_equal(result.stats("jct_mean_s"), stats)
    assert any("Results of scenario **base** · seeds 0, 1" in m.value for m in fresh.markdown)


def test_a_link_keeps_the_run_config_of_a_scenario_edited_since() -> None:
    """The sender ran base, then edited it: the link carries base as it was run, so the
    receiver sees the sender's numbers and the same "changed since this run" note."""
    ran = dataclasses.replace(SMALL, seed=7)
    state = LinkState({"base": SMALL}, "base", page="results", results_scenario="base",
                      results_config=ran)  # fmt: skip
    back = decode_link(encode_link(state))
    assert (back.page, back.results_scenario, back.results_config) == ("results", "base", ran)
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    fresh.query_params["scenario"] = encode_link(state)
    fresh.run()
    assert not fresh.exception
    assert fresh.session_state["result"].config.seed == 7
    assert ScenarioConfig.from_json(fresh.session_state["result_config"]) == ran
    assert any("Scenario **base** changed since this run" in w.value for w in fresh.warning)
    assert decode_link(url_param(fresh, "scenario")).results_config == ran  # passed on as is

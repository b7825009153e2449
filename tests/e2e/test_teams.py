"""In a real browser: three teams share the default cluster. Upload a trace whose ``queue`` and
``priority`` columns name the teams, switch teams on, load their quotas from a Kueue YAML, run
FIFO, read the per-team table, download the YAML again; then compare the configuration with a
copy whose queues are StrictFIFO, per team on the same seeds (screenshots in ``artifacts/``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import LoadConfig, PolicySpec, ScenarioConfig, TraceSpec
from engine.quota.defaults import default_queues
from engine.scenario import load_scenario_trace
from tests.e2e.harness import (
    assert_tables_fit,
    click_run,
    fill_number,
    load_scenario,
    open_page,
    open_scenario_page,
    screenshot,
    upload_trace,
)

pytestmark = pytest.mark.e2e
DATA = Path(__file__).resolve().parents[1] / "data" / "teams"
TEAMS = ("vision", "language", "recsys")


def _quotas(page, name: str = "kueue.yaml") -> None:
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Load a Kueue YAML")
    uploader.locator("input[type=file]").set_input_files(str(DATA / name))
    page.get_by_text(f"Loaded 3 ClusterQueues from {name}").wait_for()


def test_teams_with_quotas_from_a_kueue_yaml_run_fifo(server: str, page, tmp_path) -> None:
    open_scenario_page(page, f"{server}/?policies=fifo")
    upload_trace(page, DATA / "jobs_3_teams.csv")
    page.get_by_text("Detected format").wait_for()
    open_page(page, "Teams")
    page.get_by_text("Teams and quotas").click()
    page.get_by_text("in its own queue column").wait_for()
    _quotas(page)
    grid = page.get_by_test_id("stDataFrame").filter(has_text="Nominal (GPUs)").first
    grid.wait_for()
    assert all(team in (grid.text_content() or "") for team in TEAMS)
    assert page.get_by_test_id("stAlertContentError").count() == 0
    screenshot(page, "teams_page")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download Kueue YAML").click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert "kind: ClusterQueue" in text and all(f"name: {t}" in text for t in TEAMS)
    open_page(page, "Scenario", heading="Scheduling what-if")
    click_run(page)
    page.get_by_role("heading", name="Results").first.wait_for()
    page.get_by_role("heading", name="Teams").wait_for()
    table = page.get_by_test_id("stDataFrame").filter(has_text="Mean wait for quota").first
    table.wait_for()
    text = table.text_content() or ""
    assert all(team in text for team in TEAMS), text[:300]
    assert page.get_by_test_id("stException").count() == 0
    assert_tables_fit(page)
    page.get_by_role("heading", name="Teams").scroll_into_view_if_needed()
    page.get_by_text("How long each team's jobs waited").wait_for()
    screenshot(page, "teams_results")
    page.get_by_role("tab", name="Use against quota").click()
    page.get_by_text("dashed: their nominal quotas").wait_for()
    page.get_by_role("heading", name="Teams").scroll_into_view_if_needed()
    screenshot(page, "teams_usage")
    # a second configuration: the same teams with StrictFIFO queues, compared per team
    open_page(page, "Compare")
    page.get_by_label("New name").fill("strict")
    page.get_by_label("New name").press("Enter")
    page.get_by_role("button", name="Duplicate").click()
    page.get_by_text("is a copy").wait_for()
    open_page(page, "Teams")
    _quotas(page, "kueue_strict.yaml")
    open_page(page, "Compare")
    page.get_by_role("button", name="Run all").click()
    page.get_by_text("Per team (ClusterQueue), on the same seeds").wait_for()
    rows = page.get_by_test_id("stDataFrame").filter(has_text="language: mean queueing delay")
    rows.first.wait_for()
    text = rows.first.text_content() or ""
    assert all(f"{team}: p95 queueing delay" in text for team in TEAMS), text[:300]
    assert page.get_by_test_id("stException").count() == 0
    page.get_by_text("Per team (ClusterQueue), on the same seeds").scroll_into_view_if_needed()
    screenshot(page, "teams_compare")


def test_a_sweep_of_every_teams_borrowing_limit_reads_per_team(server: str, page, tmp_path) -> None:
    """The Philly sample's first 300 jobs (4x their load) under their default quotas, FIFO:
    sweep every team's borrowing limit (unlimited, 16 or 8 GPUs per type) over 3 seeds and read
    each team's mean wait in a chart per team and each team's paired difference to unlimited."""
    from playwright import sync_api

    base = ScenarioConfig(
        trace=TraceSpec(source="sample:philly_2000.csv", team_column="cluster", max_jobs=300),
        load=LoadConfig(arrival_scale=4.0), policies=(PolicySpec("fifo"),),
    )  # fmt: skip
    queues = default_queues(load_scenario_trace(base).jobs, base.cluster.capacity())
    load_scenario(page, server, ScenarioConfig(**{**base.__dict__, "queues": queues}), tmp_path)
    open_page(page, "Sweep")
    page.get_by_test_id("stSelectbox").filter(has_text="Axis").first.click()
    page.get_by_role("option", name="Borrowing limit of every team (GPUs per GPU type)").click()
    values = page.get_by_label("Values (comma-separated)")
    sync_api.expect(values.last).to_have_value("unlimited, 32, 8")  # the axis' own default
    sync_api.expect(values).to_have_count(1)  # the page has redrawn for the new axis
    values.fill("unlimited, 16, 8")
    values.press("Enter")
    page.wait_for_timeout(600)
    fill_number(page, "Seeds", "3")
    page.get_by_text("9 runs.").wait_for()
    page.get_by_role("button", name="Run the sweep").click()
    page.get_by_text("Results of scenario").wait_for(timeout=300_000)
    page.get_by_test_id("stSelectbox").filter(has_text="Metric").click()
    page.get_by_role("option", name="Each team: mean queueing delay", exact=True).click()
    page.get_by_text("Each team at every point against unlimited").wait_for()
    chart = page.locator(".js-plotly-plot").first
    sync_api.expect(chart.locator(".gtitle")).to_contain_text("FIFO: mean queueing delay")
    facets = chart.locator(".annotation-text").all_text_contents()  # one chart per team
    assert set(facets) == {cq.name for cq in queues.cluster_queues}, facets
    rows = page.get_by_test_id("stDataFrame").filter(has_text="vs unlimited").first
    text = rows.text_content() or ""
    assert "16 vs unlimited" in text and "8 vs unlimited" in text, text[:300]
    assert page.get_by_test_id("stException").count() == 0
    assert_tables_fit(page)
    page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    screenshot(page, "teams_sweep")

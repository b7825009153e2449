"""Paired answers and links in a real browser: Compare answers "Tiresias LAS vs FIFO" with a
paired row, and the page's URL opened in a fresh browser context shows the same scenario
name, settings and numbers; a run of another scenario than the one selected says so.

The server runs studies serially, as :mod:`tests.e2e.test_study_browser`'s does; screenshots in
``artifacts/``.
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.harness import click_run, fill_number, kpi_table, open_page, screenshot
from tests.e2e.test_study_browser import SERIAL, _load_small_scenario

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    """The module's server runs studies serially."""
    return SERIAL


def _paired_table(page):
    table = page.get_by_test_id("stDataFrame").filter(has_text="% of B").first
    table.wait_for()
    return table


def test_compare_answers_las_vs_fifo_and_a_link_reproduces_it(
    server: str, page, new_page, tmp_path
) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    _load_small_scenario(page, server, tmp_path)
    open_page(page, "Compare")
    fill_number(page, "Seeds", "3")
    page.get_by_role("button", name="Run all").click()
    page.get_by_text(re.compile(r"6 runs: \d+ simulated")).wait_for()
    table = _paired_table(page)
    text = table.text_content() or ""
    assert "Mean JCT" in text and "Tiresias LAS vs FIFO" not in text  # said once, above it
    page.get_by_text("A vs B: Tiresias LAS vs FIFO").wait_for()
    page.get_by_text(re.compile(r"Mean JCT: .*\(weak: 3 seeds\)")).first.wait_for()
    assert re.search(r"[+-]\d+(\.\d+)? (s|min|h|d)", text), text[:300]  # "-2.49 d"
    page.get_by_text("Results of scenario(s) base · seeds 0, 1, 2").wait_for()
    page.get_by_text("Answers below are weak with 3 seeds").wait_for()
    screenshot(page, "compare_paired")
    url = page.url
    assert "/compare" in url

    fresh = new_page()
    fresh.goto(url)
    fresh.get_by_role("heading", name="Compare").first.wait_for()
    again = _paired_table(fresh)
    fresh.get_by_text("Results of scenario(s) base · seeds 0, 1, 2").wait_for()
    sync_api.expect(again).to_have_text(text, timeout=120_000)  # the same numbers
    sync_api.expect(fresh.get_by_label("Seeds", exact=True)).to_have_value("3")
    screenshot(fresh, "compare_paired_link")


def test_results_of_another_scenario_say_so_and_the_link_keeps_them(
    server: str, page, new_page, tmp_path
) -> None:
    """Run base, duplicate it as "busy": the Results page names base and says busy is selected;
    a fresh browser opening the URL sees the same name, note and KPI table."""
    sync_api = pytest.importorskip("playwright.sync_api")
    _load_small_scenario(page, server, tmp_path)
    click_run(page)
    page.get_by_text("Simulated 2 policies").wait_for()
    open_page(page, "Scenario", "Scheduling what-if")
    page.get_by_label("New name").fill("busy")
    page.get_by_label("New name").press("Enter")
    page.get_by_role("button", name="Duplicate").click()
    page.get_by_text("is a copy").wait_for()
    open_page(page, "Results")
    note = "These are the results of scenario base; the scenario selected now is busy"
    page.get_by_text(note).wait_for()
    kpis = kpi_table(page)
    kpis.wait_for()
    text = kpis.text_content() or ""
    url = page.url

    fresh = new_page()
    fresh.goto(url)
    fresh.get_by_role("heading", name="Results").first.wait_for()
    fresh.get_by_text(note).wait_for()
    again = kpi_table(fresh)
    sync_api.expect(again).to_have_text(text, timeout=120_000)
    screenshot(fresh, "results_named_link")


def test_a_sweep_with_the_policy_as_second_axis(server: str, page, tmp_path) -> None:
    """Arrival scale 0.5 and 2 x the policy axis, 2 seeds: a heatmap with one row per policy,
    and LAS against FIFO at both values as a line with its band and as rows in words."""
    _load_small_scenario(page, server, tmp_path)
    open_page(page, "Sweep")
    page.get_by_label("Values (comma-separated)").fill("0.5, 2")
    page.get_by_label("Values (comma-separated)").press("Enter")
    page.wait_for_timeout(600)
    page.get_by_test_id("stSelectbox").filter(has_text="Second axis").click()
    page.get_by_role("option", name="Policy", exact=True).click()
    page.get_by_text("One row per policy of the scenario").wait_for()
    fill_number(page, "Seeds", "2")
    page.get_by_role("button", name="Run the sweep").click()
    page.get_by_text(re.compile(r"8 runs: \d+ simulated")).wait_for()
    page.locator(".js-plotly-plot").nth(1).wait_for()
    titles = page.locator(".js-plotly-plot .gtitle").all_text_contents()
    assert titles[1].startswith("Tiresias LAS vs FIFO: paired difference"), titles
    rows = page.get_by_test_id("stDataFrame").filter(has_text="Point").first
    rows.wait_for()
    assert "arrival_scale=0.5" in (rows.text_content() or "")
    screenshot(page, "sweep_policy_axis")

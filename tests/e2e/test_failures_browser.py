"""In a real browser: turn failures on, run, read goodput and the failures by job size, and see
the failures marked on the Gantt (screenshots in ``artifacts/``)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from dashboard.links import decode_link
from tests.e2e.harness import (
    assert_tables_fit,
    click_run,
    open_page,
    open_scenario_page,
    screenshot,
)

pytestmark = pytest.mark.e2e


def test_failures_on_shows_goodput_and_marks_failures_on_the_gantt(server: str, page) -> None:
    open_scenario_page(page, f"{server}/?policies=fifo")
    page.get_by_role("tab", name="5 · Failures").click()
    page.get_by_text("Simulate node failures").click()
    mtbf = page.get_by_role("spinbutton", name="Node MTBF (h)")
    mtbf.fill("20")
    mtbf.press("Enter")
    page.wait_for_timeout(800)
    screenshot(page, "failures_tab")
    click_run(page)
    page.get_by_role("heading", name="Results").first.wait_for()
    page.get_by_text("Failures by job size").wait_for()
    link = parse_qs(urlparse(page.url).query)["scenario"][0]
    failures = decode_link(link).scenarios["base"].failures
    assert failures.enabled and failures.node_mtbf_h == 20.0
    page.get_by_text("Failures", exact=True).wait_for()  # the KPI group's title
    # (the grid draws on a canvas; its header cells are in the page, hidden)
    page.get_by_text("Goodput (useful / allocated GPU-hours)").first.wait_for(state="attached")
    screenshot(page, "failures_results")
    assert_tables_fit(page)  # the GPU-hours and failure groups too
    open_page(page, "Schedule")
    page.get_by_text("Longest N").click()  # long jobs hold their nodes longest: most failures
    page.wait_for_timeout(1500)
    page.locator(".js-plotly-plot").first.wait_for()
    legend = page.locator(".js-plotly-plot .legend").first.text_content() or ""
    assert "failed" in legend
    screenshot(page, "failures_schedule")

"""In a real browser: load the 2026 cluster, see its facility power beside its cost on the GPU
mix tab, run it, and read the Results page's "Power and energy" section at another PUE."""

from __future__ import annotations

import re

import pytest

from tests.e2e.harness import ARTIFACTS, click_run, fill_number, open_scenario_page, screenshot

pytestmark = pytest.mark.e2e


def test_2026_cluster_power_on_the_mix_tab_and_results(server: str, page) -> None:
    open_scenario_page(page, server)
    page.get_by_role("button", name="Load the 2026 cluster (MLPerf)").click()
    page.get_by_text("Loaded the 2026 cluster").wait_for()
    page.get_by_role("tab", name="2 · GPU mix & network").click()
    mix_power = page.get_by_text(re.compile(r"Every GPU busy: 1,732 kW facility power"))
    mix_power.first.wait_for()
    mix_power.last.scroll_into_view_if_needed()  # the caption under the mix
    screenshot(page, "power_mix_tab", whole_page=False)
    click_run(page)
    page.get_by_role("heading", name="Results").first.wait_for()
    page.get_by_text("Simulated 3 policies").wait_for()
    section = page.get_by_role("heading", name="Power and energy")
    section.scroll_into_view_if_needed()
    chart = page.locator(".js-plotly-plot").filter(has_text="Facility power over time")
    chart.wait_for()
    fill_number(page, "PUE (facility power / IT power)", "1.10")
    page.get_by_text(re.compile(r"Every GPU busy: 1,221 kW facility power at PUE 1\.10")).wait_for()
    for policy in ("FIFO", "Tiresias LAS"):
        assert chart.get_by_text(policy).count() >= 1
    screenshot(page, "power_results")
    ARTIFACTS.mkdir(exist_ok=True)
    chart.screenshot(path=str(ARTIFACTS / "power_chart.png"))

"""In a real browser at 1600 x 1000: the Schedule page's Gantt of a 2,000-job trace opens on
its busiest hour with a label on every row, and widens to 6 hours (screenshots in
``artifacts/``)."""

from __future__ import annotations

import re

import pytest

from dashboard.components.gantt_filters import READABLE_ROWS
from engine.config import PolicySpec, ScenarioConfig, TraceSpec
from tests.e2e.harness import click_run, load_scenario, open_page, screenshot

pytestmark = pytest.mark.e2e


def test_the_gantt_opens_on_the_busiest_hour_and_widens(server: str, page, tmp_path) -> None:
    config = ScenarioConfig(trace=TraceSpec(source="sample:philly_2000.csv"),
                            policies=(PolicySpec("fifo"), PolicySpec("las")))  # fmt: skip
    load_scenario(page, server, config, tmp_path)
    click_run(page)
    page.get_by_role("heading", name="Results").first.wait_for(timeout=300_000)
    open_page(page, "Schedule")
    page.get_by_text(re.compile(r"The busiest 1 h: [\d,]+ jobs arrived")).wait_for()
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for()
    labels = chart.locator(".ytick text").all_text_contents()
    assert len(labels) == READABLE_ROWS and all(label.strip() for label in labels), labels[:5]
    ticks = [float(t.replace(",", "")) for t in chart.locator(".xtick text").all_text_contents()]
    assert ticks and max(ticks) - min(ticks) <= 2.0  # hours: that hour and the next
    assert "Simulated time (h)" in (chart.locator(".xtitle").text_content() or "")
    chart.scroll_into_view_if_needed()
    screenshot(page, "gantt_busiest_hour", whole_page=False)
    slider = page.get_by_test_id("stSlider").filter(has_text="Window (widen")
    slider.scroll_into_view_if_needed()
    track = slider.get_by_test_id("stSliderTickBar").bounding_box()
    thumb = slider.get_by_role("slider").bounding_box()
    assert track and thumb
    # the middle of five stops (15 min, 1 h, 6 h, 1 day, 1 week): 6 h
    page.mouse.click(track["x"] + track["width"] / 2, thumb["y"] + thumb["height"] / 2)
    page.get_by_text(re.compile(r"The busiest 6 h: [\d,]+ jobs arrived")).wait_for()
    assert page.get_by_test_id("stException").count() == 0
    screenshot(page, "gantt_busiest_6h", whole_page=False)

"""In a real browser, at 1600 x 1000 and at 1280 x 720 (issue 38 point 3): one click on "Load
the 2026 cluster" adds its own scenario beside "base", the Planner on it names every missing
price at once, in plain words, with a field for each; with those two prices typed and the
target left blank (no worse than today's
cluster on the same seeds), one click on Plan ends in a chosen mix, no dead end.
Screenshots in ``artifacts/plan_2026_<width>.png`` (the prompt) and
``artifacts/plan_2026_<width>_answer.png`` (the answer)."""

from __future__ import annotations

import re

import pytest

from tests.e2e.harness import fill_number, open_page, open_scenario_page, screenshot

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("viewport", [(1600, 1000), (1280, 720)], ids=["1600", "1280"])
def test_the_2026_cluster_is_added_and_the_planner_asks_for_every_price_at_once(
    server: str, new_page, viewport: tuple[int, int]
) -> None:
    page = new_page(viewport={"width": viewport[0], "height": viewport[1]})
    open_scenario_page(page, server)
    page.get_by_role("button", name="Load the 2026 cluster (MLPerf)").click()
    page.get_by_text("as its own scenario").wait_for()
    picker = page.get_by_test_id("stSelectbox").filter(has_text="Scenario").first
    picker.click()
    names = page.get_by_role("option").all_text_contents()
    page.keyboard.press("Escape")
    assert "base" in names and "2026 cluster (MLPerf)" in names, names
    open_page(page, "Planner")
    prompt = page.get_by_text(re.compile(r"^Enter a price \(USD per GPU-hour\) for "))
    prompt.wait_for()
    words = prompt.inner_text()
    assert "B200, MI300X" in words and not re.search(r"row \d|no price", words), words
    assert page.get_by_test_id("stException").count() == 0
    screenshot(page, f"plan_2026_{viewport[0]}", whole_page=False)
    screenshot(page, f"plan_2026_{viewport[0]}_full")
    from playwright.sync_api import expect

    fill_number(page, "Price of B200 (USD per GPU-hour)", "6")
    page.get_by_label("Price of B200 (USD per GPU-hour)", exact=True).wait_for(state="detached")
    expect(page.get_by_label("Price of MI300X (USD per GPU-hour)", exact=True)).to_have_count(1)
    fill_number(page, "Price of MI300X (USD per GPU-hour)", "3")
    prompt.wait_for(state="detached")
    page.get_by_role("button", name="Plan", exact=True).click()
    page.get_by_text(re.compile(r"\d+ simulations in this plan")).wait_for(timeout=1_500_000)
    heading = page.get_by_role(
        "heading", name=re.compile(r"no worse than today's cluster's on the same seeds$")
    )
    assert heading.count() == 1
    answer = page.get_by_text(re.compile(r"^Cheapest mix found that meets the target: "))
    answer.wait_for()
    assert page.get_by_test_id("stException").count() == 0
    answer.scroll_into_view_if_needed()
    screenshot(page, f"plan_2026_{viewport[0]}_answer", whole_page=False)

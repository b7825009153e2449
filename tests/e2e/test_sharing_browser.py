"""Shared GPUs in a real browser at 1600 x 1000 (issue 35): the lesson "Two jobs that share a
GPU well, and two that do not" on Step through (``artifacts/sharing_step.png``), its Gantts on
the Schedule page (``artifacts/sharing_gantt.png``), its KPIs on Results
(``artifacts/sharing_kpis.png``) and the GPUs its jobs run on on Utilization
(``artifacts/sharing_utilization.png``)."""

from __future__ import annotations

import pytest

from dashboard.decision_words import clock
from dashboard.lessons import lesson
from engine.policies.base import display_name
from tests.e2e.harness import WAIT_MS, open_page, screenshot

pytestmark = pytest.mark.e2e
CHOSEN = lesson("share_gpus")
SHARED, ALONE = (display_name(spec) for spec in CHOSEN.policies)


@pytest.fixture
def page(new_page):
    return new_page({"width": 1600, "height": 1000})


def test_which_jobs_share_which_gpus_is_readable(server: str, page) -> None:
    from playwright.sync_api import expect

    page.goto(server)
    open_page(page, "Step through")
    page.get_by_role("button", name=CHOSEN.title).click()
    page.get_by_test_id("stAlert").filter(has_text=CHOSEN.title).wait_for()
    moment_s = CHOSEN.moments_s[0]  # 0:01:00, both pairs share
    page.get_by_role("button", name=f"{clock(moment_s)} ·").click()
    views = page.locator(f'.cv[data-policy="{SHARED}"]')
    view = page.locator(f'.cv[data-policy="{SHARED}"][data-time-s="{moment_s!r}"]')
    expect(view).to_have_count(1, timeout=WAIT_MS)
    expect(views).to_have_count(1, timeout=WAIT_MS)  # the rerun's stale view is gone
    shared = view.locator(".gpu.shared")
    expect(shared).to_have_count(3)
    assert shared.first.inner_text().split() == ["comm", "data"]  # both ids printed
    assert "comm (slowdown ×1.00)" in (shared.first.get_attribute("title") or "")
    assert "cnn2 (slowdown ×1.50)" in (shared.last.get_attribute("title") or "")
    box = shared.first.bounding_box()
    assert box is not None and box["width"] >= 2 * 28  # one readable part per job
    expect(page.locator(f'.cv[data-policy="{ALONE}"] .gpu.shared')).to_have_count(0)
    screenshot(page, "sharing_step", whole_page=False)

    open_page(page, "Schedule")
    page.get_by_role("heading", name=ALONE, exact=True).wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    expect(page.get_by_text("shares with cnn2 · ×1.50").first).to_be_visible(timeout=WAIT_MS)
    assert page.get_by_test_id("stException").count() == 0
    screenshot(page, "sharing_gantt", whole_page=False)

    open_page(page, "Results")
    group = page.get_by_text("Sharing GPUs", exact=True)  # the KPI group's title
    expect(group).to_be_visible(timeout=WAIT_MS)
    group.scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    screenshot(page, "sharing_kpis", whole_page=False)

    open_page(page, "Utilization")
    line = page.get_by_text("GPUs the jobs run on (a shared GPU once per job)").first
    expect(line).to_be_visible(timeout=WAIT_MS)  # the legend of the shared run's chart
    line.scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    screenshot(page, "sharing_utilization", whole_page=False)

"""Muri's testbed trace in a real browser (issue 28): uploaded as Muri ships it, the page says
which format it detected and where the speeds come from, the Muri preset is picked, and it runs.

The screenshots (``artifacts/muri_*.png``) are for a person to look at.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.harness import (
    ROOT,
    click_run,
    open_page,
    open_scenario_page,
    screenshot,
    upload_trace,
)

MURI_TRACE = ROOT / "sample_traces" / "muri_cluster_trace.csv"

pytestmark = pytest.mark.e2e


def _pick(scope, page, label: str, option: str) -> None:
    """Chooses ``option`` in the selectbox labelled ``label`` inside ``scope``. A rerun of the
    page (e.g. the upload's) can close the list just opened, so the opening is retried."""
    box = scope.get_by_test_id("stSelectbox").filter(has_text=label)
    choice = page.get_by_role("option", name=option, exact=True)
    for attempt in range(5):
        box.click()
        try:
            choice.wait_for(timeout=10_000)
            break
        except PlaywrightTimeout:
            if attempt == 4:
                raise
            page.keyboard.press("Escape")
    choice.click()


def test_muris_trace_states_its_format_and_speeds_and_runs(server: str, page) -> None:
    open_scenario_page(page, f"{server}/?policies=srtf")
    upload_trace(page, MURI_TRACE)
    page.get_by_text("Using muri_cluster_trace.csv").wait_for()
    page.get_by_text("Detected format").filter(has_text="muri").wait_for()
    _pick(page, page, "Iteration times were measured on", "v100")
    page.get_by_text("Speeds from the trace").filter(has_text="measured on v100").wait_for()
    page.get_by_text("Jobs", exact=True).first.wait_for()
    screenshot(page, "muri_jobs")

    page.get_by_role("tab", name="4 · Rounds & seed").click()
    rules = page.get_by_role("tabpanel", name=re.compile("Rounds & seed"))
    _pick(rules, page, "Preset", "Muri testbed (64 V100s, SIGCOMM 2022)")
    page.get_by_text("Relaunch all jobs at rounds with events").wait_for()
    screenshot(page, "muri_rules")

    click_run(page)
    page.get_by_role("heading", name="Results").first.wait_for()
    page.get_by_text("Simulated 1 policies on 400 jobs").wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    screenshot(page, "muri_results")

    open_page(page, "Schedule")
    page.locator(".js-plotly-plot").first.wait_for()
    screenshot(page, "muri_schedule")

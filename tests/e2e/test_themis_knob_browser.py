"""Themis's fairness knob in a real browser (issue 35): a link with the knob set runs and the
policy form shows it with its help; a value outside [0, 1) is refused with a message naming it.

The screenshots (``artifacts/themis_knob_*.png``) are for a person to look at.
"""

from __future__ import annotations

import re

import pytest

from dashboard.links import LinkState, encode_link
from engine.config import ClusterSpec, NodeGroup, PolicySpec, ScenarioConfig, TraceSpec
from tests.e2e.harness import click_run, fill_number, screenshot

pytestmark = pytest.mark.e2e
CONFIG = ScenarioConfig(
    trace=TraceSpec(max_jobs=30),
    cluster=ClusterSpec((NodeGroup("v100", 1, 4),)),
    policies=(PolicySpec("themis", {"fairness_knob": 0.5}),),
)


def test_the_fairness_knob_runs_and_is_refused_outside_its_range(server: str, page) -> None:
    page.goto(f"{server}/?scenario={encode_link(LinkState({'base': CONFIG}, 'base'))}")
    page.get_by_role("heading", name="Results").first.wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    screenshot(page, "themis_knob_results")

    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Scenario").click()
    page.get_by_role("tab", name="3 · Policies").click()
    panel = page.get_by_role("tabpanel", name=re.compile("Policies"))
    panel.get_by_text("Themis parameters").click()
    knob = page.get_by_label("fairness knob", exact=True)
    knob.wait_for()
    assert knob.input_value() == "0.5"
    fill_number(page, "fairness knob", "1")
    click_run(page)
    page.get_by_text("fairness_knob must be in [0, 1)").wait_for()
    screenshot(page, "themis_knob_refused")

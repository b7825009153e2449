"""The study pages in a real browser: a variant with another GPU mix against the baseline, the
Planner (today's cluster and the chosen mix), and a shared link that reproduces the KPI table
in a fresh browser.

The module's server runs studies in the server process (``GPUSCHED_EXECUTOR=serial``) to keep
CI small; screenshots in ``artifacts/``.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from dashboard.links import decode_link
from engine.config import (
    ClusterSpec,
    FailureConfig,
    NodeGroup,
    PolicySpec,
    ScenarioConfig,
    SyntheticSpec,
    TraceSpec,
)
from tests.e2e.harness import (
    assert_each_sees_own_kpis,
    click_run,
    edit_until_caption_changes,
    fill_number,
    kpi_table,
    load_scenario,
    open_links_at_once,
    open_page,
    screenshot,
)

pytestmark = pytest.mark.e2e
SMALL = ScenarioConfig(
    trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(120, 20.0)),
    cluster=ClusterSpec((NodeGroup("v100", 2, 8, "rack0"), NodeGroup("k80", 2, 8, "rack1"))),
    policies=(PolicySpec("fifo"), PolicySpec("las")),
)
SERIAL = {"GPUSCHED_EXECUTOR": "serial"}
"""Studies run in the server process, one simulation at a time (a small CI machine)."""


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    """The module's server runs studies serially (:data:`SERIAL`)."""
    return SERIAL


def _load_small_scenario(page, server: str, tmp_path: Path, config: ScenarioConfig = SMALL) -> None:
    load_scenario(page, server, config, tmp_path, "small.json")


def test_a_variant_with_more_v100s(server: str, page, tmp_path) -> None:
    """Duplicate the scenario as "more v100", give it 10 V100 nodes, run both over two seeds,
    read the deltas."""
    _load_small_scenario(page, server, tmp_path)
    open_page(page, "Compare")
    page.get_by_label("New name").fill("more v100")
    page.get_by_label("New name").press("Enter")
    page.get_by_role("button", name="Duplicate").click()
    page.get_by_text("is a copy").wait_for()
    before = page.get_by_text(re.compile(r"\d+ GPUs in \d+ rack")).inner_text()
    edit_until_caption_changes(page, before, at_x=0.40)  # the grid spans the page here
    page.get_by_text("96 GPUs in 2 rack(s)").wait_for()  # 10 V100 nodes of 8 + 2 K80 nodes
    fill_number(page, "Seeds", "2")
    page.get_by_role("button", name="Run all").click()
    page.get_by_text(re.compile(r"8 runs: \d+ simulated")).wait_for()
    page.get_by_text("Every scenario against the baseline: base").wait_for()
    page.locator(".js-plotly-plot").nth(1).wait_for()
    deltas = page.get_by_test_id("stDataFrame").filter(has_text="Δ Mean JCT").first
    deltas.wait_for()
    titles = page.locator(".js-plotly-plot .gtitle").all_text_contents()
    assert titles[:2] == [
        "Mean JCT: difference to base", "FIFO: JCT CDF per variant (further left is better)",
    ]  # fmt: skip
    screenshot(page, "compare")
    legend = page.locator(".js-plotly-plot .legend").first.text_content() or ""  # the CDF's
    assert "base" in legend and "more v100" in legend


def test_a_shared_link_reproduces_the_kpi_table_in_a_fresh_browser(
    server: str, page, new_page, tmp_path
) -> None:
    """Change the background load (no short URL key of its own), run, copy the Results URL;
    a fresh browser context opening it shows the same KPI table, cell for cell."""
    _load_small_scenario(page, server, tmp_path)
    page.get_by_role("tab", name="2 · GPU mix & network").click()
    url_before = page.url
    fill_number(page, "Background load (share of each link)", "0.3")
    page.wait_for_function("(u) => location.href !== u", arg=url_before)  # the edit landed
    click_run(page)
    page.get_by_text("Simulated 2 policies").wait_for()
    open_page(page, "Results")
    table = kpi_table(page)
    table.wait_for()
    kpis = table.text_content() or ""
    assert "FIFO" in kpis and "Tiresias LAS" in kpis and any(c.isdigit() for c in kpis)
    url = page.url
    link = parse_qs(urlparse(url).query)["scenario"][0]
    assert decode_link(link).scenarios["base"].network.background_load == 0.3

    sync_api = pytest.importorskip("playwright.sync_api")
    fresh = new_page()
    fresh.goto(url)
    again = kpi_table(fresh)
    again.wait_for()
    assert (again.text_content() or "") == kpis
    screenshot(fresh, "link_results")
    open_page(fresh, "Scenario", "Scheduling what-if")
    fresh.get_by_role("tab", name="2 · GPU mix & network").click()
    box = fresh.get_by_label("Background load (share of each link)", exact=True)
    sync_api.expect(box).to_have_value("0.30", timeout=15_000)


SESSIONS = (  # five people, five scenarios: (policies, seed)
    (("fifo",), 0),
    (("las",), 1),
    (("srtf",), 2),
    (("gavel_maxmin",), 3),
    (("fifo", "srtf"), 4),
)


def test_five_sessions_run_different_scenarios_at_once(server: str, new_page) -> None:
    """Five browser contexts open five different links at the same time; the server runs
    them side by side, and each person sees the KPI table of their own scenario, no error."""
    configs = [
        dataclasses.replace(SMALL, policies=tuple(PolicySpec(p) for p in policies), seed=seed)
        for policies, seed in SESSIONS
    ]
    pages = open_links_at_once(new_page, server, configs)
    assert_each_sees_own_kpis(pages, configs)
    screenshot(pages[-1], "five_sessions_last")


def test_the_planner_shows_today_and_the_chosen_mix(server: str, page, tmp_path) -> None:
    """Run the planner on the small scenario: today's cluster and the chosen mix are metrics
    above the chart and marked points on it, beside the Pareto front (issue 23)."""
    _load_small_scenario(page, server, tmp_path)
    open_page(page, "Planner")
    fill_number(page, "At most (h)", "60")
    fill_number(page, "Seeds", "2")
    page.get_by_role("button", name="Plan", exact=True).click()
    page.get_by_text(re.compile(r"\d+ simulations in this plan")).wait_for(timeout=300_000)
    page.locator(".js-plotly-plot").first.wait_for()
    legend = page.locator(".js-plotly-plot .legend").first.text_content() or ""
    assert "today's cluster:" in legend and "chosen:" in legend and "Pareto front" in legend
    metrics = page.get_by_test_id("stMetric").all_text_contents()
    assert any("Today's cluster" in m and "USD/h" in m for m in metrics)
    assert any("Chosen mix" in m for m in metrics)
    page.get_by_text("Cheapest mix found that meets the target").wait_for()
    screenshot(page, "planner")


def test_with_failures_the_planner_shows_spares_and_goodput(server: str, page, tmp_path) -> None:
    """Failures on (node MTBF 50 h, 24 h repair): the Planner offers a spares bound, and today's
    cluster, the chosen mix and the table of mixes show their goodput (issue 27)."""
    failing = dataclasses.replace(
        SMALL, failures=FailureConfig(enabled=True, node_mtbf_h=50.0, repair_h=24.0)
    )
    _load_small_scenario(page, server, tmp_path, failing)
    open_page(page, "Planner")
    page.get_by_text("Failures are on").wait_for()
    fill_number(page, "Spare nodes per GPU type, at most", "1")
    fill_number(page, "At most (h)", "1000")
    fill_number(page, "Seeds", "2")
    page.get_by_role("button", name="Plan", exact=True).click()
    page.get_by_text(re.compile(r"\d+ simulations in this plan")).wait_for(timeout=600_000)
    page.locator(".js-plotly-plot").first.wait_for()
    page.get_by_text(re.compile(r"Chosen: .*goodput \d+\.\d%")).first.wait_for()
    page.get_by_text(re.compile(r"Today's cluster, .*goodput \d+\.\d%")).first.wait_for()
    # the captions under the two metrics and the success line carry it too
    assert page.get_by_text(re.compile(r", goodput \d+\.\d%")).count() >= 5
    page.get_by_text("Goodput (%)").first.wait_for(state="attached")  # the table (a canvas)
    assert page.get_by_test_id("stException").count() == 0
    screenshot(page, "planner_spares")

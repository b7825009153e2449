"""What a person does in a real browser: upload a trace, pick two policies, run, read the charts.

The server, Chromium and the steps are the harness's (:mod:`tests.e2e.conftest`,
:mod:`tests.e2e.harness`); screenshots go to ``artifacts/`` for a person to look at.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from dashboard.links import decode_link
from engine.config import (
    ClusterSpec,
    CongestionEpisode,
    NetworkConfig,
    NodeGroup,
    PolicySpec,
    ScenarioConfig,
    SyntheticSpec,
    TraceSpec,
)
from tests.e2e.harness import (
    TRACE,
    assert_tables_fit,
    click_run,
    edit_until_caption_changes,
    load_scenario,
    open_page,
    open_scenario_page,
    screenshot,
    upload_trace,
)

pytestmark = pytest.mark.e2e


def _upload_trace_and_pick_policies(page) -> None:
    upload_trace(page, TRACE)
    page.get_by_text("Using philly_2000.csv").wait_for()
    page.get_by_text("Jobs", exact=True).first.wait_for()
    page.get_by_role("tab", name="3 · Policies").click()
    page.get_by_test_id("stMultiSelect").first.click()
    page.keyboard.type("las")  # the list is long and scrolls; typing filters it, as a person would
    page.get_by_role("option", name="Tiresias LAS · Baselines", exact=True).click()
    page.keyboard.press("Escape")


def _show_two_gantts(page, second_policy: str) -> None:
    """Opens the Schedule page, which stacks every policy's Gantt, and waits for
    ``second_policy``'s."""
    open_page(page, "Schedule")
    page.get_by_role("heading", name=second_policy, exact=True).wait_for()
    page.locator(".js-plotly-plot").nth(1).wait_for()


def test_upload_run_and_read_the_charts(server: str, page) -> None:
    open_scenario_page(page, f"{server}/?policies=fifo")
    _upload_trace_and_pick_policies(page)
    click_run(page)
    page.get_by_role("heading", name="Results").first.wait_for()  # Run switches to Results
    page.get_by_text("Simulated 2 policies").wait_for()
    link = parse_qs(urlparse(page.url).query)["scenario"][0]  # the whole scenario, compressed
    scenario = decode_link(link).scenarios["base"]
    assert [p.name for p in scenario.policies] == ["fifo", "las"]
    assert scenario.trace.source == "upload:philly_2000.csv"
    page.locator(".js-plotly-plot").first.wait_for()
    legend = page.locator(".js-plotly-plot .legend").first.text_content() or ""
    assert "FIFO" in legend and "Tiresias LAS" in legend
    screenshot(page, "results")
    assert_tables_fit(page)  # every KPI group's columns in view, none behind a scroll bar

    open_page(page, "Scenario", "Scheduling what-if")
    page.get_by_role("tab", name="1 · Jobs").click()
    screenshot(page, "scenario")

    _show_two_gantts(page, "Tiresias LAS")
    assert page.locator(".js-plotly-plot").count() == 2  # FIFO's and LAS's, stacked
    screenshot(page, "schedule")

    for title in ("Utilization", "Fairness"):
        open_page(page, title)
        page.locator(".js-plotly-plot").first.wait_for()
        screenshot(page, title.lower())


def test_gpu_mix_edits_survive_a_page_switch(server: str, page) -> None:
    """Edit a cell of the GPU mix, leave the page, come back: the edited cluster is still there.

    The grid is a canvas, so the test edits whichever numeric cell sits under the click and
    checks the capacity caption ("N GPUs in R rack(s)") before, after, and after returning.
    """
    caption = page.get_by_text(re.compile(r"\d+ GPUs in \d+ rack"))
    open_scenario_page(page, server)
    page.get_by_role("tab", name="2 · GPU mix & network").click()
    before = caption.inner_text()
    edit_until_caption_changes(page, before)
    after = caption.inner_text()
    assert after != before
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Results").click()
    page.get_by_text("No results yet").wait_for()
    open_page(page, "Scenario", "Scheduling what-if")
    page.get_by_role("tab", name="2 · GPU mix & network").click()
    assert caption.inner_text() == after
    screenshot(page, "cluster_tab")


def test_a_paper_preset_runs_and_shows_its_claims_and_copies(server: str, page) -> None:
    """Pick the Hadar paper preset, run it, read the claims beside the simulation, and see
    HadarE's copies as lanes of one Gantt row."""
    sync_api = pytest.importorskip("playwright.sync_api")
    open_scenario_page(page, server)
    page.get_by_test_id("stSelectbox").filter(has_text="Paper preset").click()
    page.get_by_role("option", name=re.compile("^Hadar")).click()
    page.get_by_text("Loaded the Hadar").wait_for()
    click_run(page)
    page.get_by_text("Simulated 4 policies").wait_for()

    open_page(page, "Results")  # Run already shows Results with its flash; this rerun drops it,
    # so until the rerun ends the old (stale) copy of the heading may stand one slot lower
    page.get_by_text("claim vs simulation").first.wait_for()
    heading = page.get_by_text("claim vs simulation")
    sync_api.expect(heading).to_have_count(1)  # the stale copy goes once the rerun ends
    claims = page.get_by_test_id("stDataFrame").filter(has_text="Claim")
    claims.wait_for()
    screenshot(page, "paper_preset_results")

    _show_two_gantts(page, "HadarE")
    screenshot(page, "paper_preset_schedule")


def _network_scenario() -> ScenarioConfig:
    """A small what-if with two congestion episodes: 4 racks (120 GPUs of three types), a busy
    synthetic workload, shared links and 2:1 oversubscribed uplinks."""
    cluster = ClusterSpec(
        (
            NodeGroup("v100", 4, 8, "rack0"), NodeGroup("v100", 4, 8, "rack1"),
            NodeGroup("p100", 6, 4, "rack2"), NodeGroup("k80", 4, 8, "rack3"),
        )
    )  # fmt: skip
    network = NetworkConfig(
        uplink_oversubscription=2.0, share_links=True,
        congestion=(
            CongestionEpisode(20_000, 60_000, 4.0, "uplink:rack1"),
            CongestionEpisode(30_000, 50_000, 2.0, "node:n2"),
        ),
    )  # fmt: skip
    return ScenarioConfig(
        trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(150, 12.0)),
        cluster=cluster, network=network, policies=(PolicySpec("fifo"), PolicySpec("las")),
    )  # fmt: skip


def test_the_network_page_shows_congested_links_and_racks(server: str, page, tmp_path) -> None:
    """Load a scenario with congestion episodes, run it, and read the Network page: the
    topology at a moment inside an episode (red links), load per rack, the episodes over time."""
    load_scenario(page, server, _network_scenario(), tmp_path, "network.json")
    click_run(page)
    page.get_by_text("Simulated 2 policies").wait_for()

    open_page(page, "Network")
    page.locator(".js-plotly-plot").nth(2).wait_for()
    assert page.locator(".js-plotly-plot").count() == 3
    title = page.locator(".js-plotly-plot .gtitle").first.text_content() or ""
    assert "congested" in title and "no congested" not in title, title
    screenshot(page, "network")

    open_page(page, "Schedule")
    page.get_by_text("network sensitivity", exact=True).click()
    page.locator(".js-plotly-plot .colorbar").first.wait_for()
    screenshot(page, "schedule_sensitivity")


def test_run_shows_each_policys_progress_while_they_run_side_by_side(server: str, page) -> None:
    """Four policies run in the server's process pool: while they run, one bar per policy says
    which are done, which running and which waiting; then the Results page shows all four."""
    open_scenario_page(page, f"{server}/?policies=fifo,srtf,las,gavel_maxmin&seed=5")
    page.get_by_text("Jobs", exact=True).first.wait_for()
    click_run(page)
    page.get_by_text(re.compile("Simulating 4 policies")).wait_for()
    bars = page.get_by_test_id("stProgress")
    bars.nth(3).wait_for()
    assert bars.count() == 4
    texts = " ".join(bars.all_inner_texts())
    for name in ("FIFO", "SRTF", "Tiresias LAS", "Gavel max-min"):
        assert name in texts
    bars.filter(has_text=re.compile(r"· running · \d+% of jobs finished")).first.wait_for()
    screenshot(page, "run_progress")
    page.get_by_role("heading", name="Results").first.wait_for()
    page.get_by_text("Simulated 4 policies").wait_for()
    page.locator(".js-plotly-plot").first.wait_for()

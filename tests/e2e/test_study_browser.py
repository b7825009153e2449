"""The study pages in a real browser: a variant with another GPU mix against the baseline, the
Planner (today's cluster and the chosen mix), and a shared link that reproduces the KPI table
in a fresh browser.

Same harness as :mod:`tests.e2e.test_browser` (Debian's Chromium, screenshots in ``artifacts/``),
with a server of its own whose trace and result stores live in a temporary directory and whose
studies run in the server process (``GPUSCHED_EXECUTOR=serial``) to keep CI small.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
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
from tests.e2e.test_browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    WAIT_MS,
    _click_run,
    _screenshot,
    serve_dashboard,
)

pytestmark = pytest.mark.e2e
SMALL = ScenarioConfig(
    trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(120, 20.0)),
    cluster=ClusterSpec((NodeGroup("v100", 2, 8, "rack0"), NodeGroup("k80", 2, 8, "rack1"))),
    policies=(PolicySpec("fifo"), PolicySpec("las")),
)


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    """A dashboard server with its own stores (always stopped afterwards)."""
    yield from serve_dashboard(
        {"GPUSCHED_STORE": str(tmp_path_factory.mktemp("store")), "GPUSCHED_EXECUTOR": "serial"}
    )


@pytest.fixture
def browser():
    """A Chromium browser; each test opens its own contexts (fresh cookies and storage)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def _new_page(browser):
    page = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    page.set_default_timeout(WAIT_MS)
    return page


def _load_small_scenario(page, server: str, tmp_path: Path, config: ScenarioConfig = SMALL) -> None:
    scenario = tmp_path / "small.json"
    scenario.write_text(config.to_json(), encoding="utf-8")
    page.goto(server)
    page.get_by_role("heading", name="Scheduling what-if").wait_for()
    page.get_by_role("tab", name="Save / load").click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Load a scenario JSON")
    uploader.locator("input[type=file]").set_input_files(str(scenario))
    page.get_by_text("Loaded scenario small.json").wait_for()


def _fill_number(page, label: str, value: str) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(value)
    box.press("Enter")
    page.wait_for_timeout(600)


def _edit_nodes_until_caption_changes(page, before: str, attempts: int = 3) -> None:
    """Types 10 into the GPU mix's first "Nodes" cell (second column of a canvas grid that
    spans the page here) until the capacity caption changes; retried as in test_browser."""
    changed = (
        "(before) => ![...document.querySelectorAll('p, div')].some("
        "e => e.innerText && e.innerText.trim() === before)"
    )
    for attempt in range(attempts):
        box = page.locator("[data-testid=stDataFrame]:visible").first.bounding_box()
        page.mouse.click(box["x"] + box["width"] * 0.40, box["y"] + 35 * 1.5 + 2)
        page.keyboard.press("Enter")
        page.wait_for_timeout(400)
        page.keyboard.press("Control+A")
        page.keyboard.type("10", delay=30)
        page.keyboard.press("Tab")
        try:
            page.wait_for_function(changed, arg=before, timeout=15_000)
            return
        except Exception:  # playwright's TimeoutError
            if attempt == attempts - 1:
                raise


def _open(page, link: str, heading: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=link).click()
    page.get_by_role("heading", name=heading).first.wait_for()


def test_a_variant_with_more_v100s(server: str, browser, tmp_path) -> None:
    """Duplicate the scenario as "more v100", give it 10 V100 nodes, run both over two seeds,
    read the deltas."""
    page = _new_page(browser)
    _load_small_scenario(page, server, tmp_path)
    _open(page, "Compare", "Compare")
    page.get_by_label("New name").fill("more v100")
    page.get_by_label("New name").press("Enter")
    page.get_by_role("button", name="Duplicate").click()
    page.get_by_text("is a copy").wait_for()
    before = page.get_by_text(re.compile(r"\d+ GPUs in \d+ rack")).inner_text()
    _edit_nodes_until_caption_changes(page, before)
    page.get_by_text("96 GPUs in 2 rack(s)").wait_for()  # 10 V100 nodes of 8 + 2 K80 nodes
    _fill_number(page, "Seeds", "2")
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
    _screenshot(page, "compare")
    legend = page.locator(".js-plotly-plot .legend").first.text_content() or ""  # the CDF's
    assert "base" in legend and "more v100" in legend


def test_a_shared_link_reproduces_the_kpi_table_in_a_fresh_browser(
    server: str, browser, tmp_path
) -> None:
    """Change the background load (no short URL key of its own), run, copy the Results URL;
    a fresh browser context opening it shows the same KPI table, cell for cell."""
    page = _new_page(browser)
    _load_small_scenario(page, server, tmp_path)
    page.get_by_role("tab", name="2 · GPU mix & network").click()
    url_before = page.url
    _fill_number(page, "Background load (share of each link)", "0.3")
    page.wait_for_function("(u) => location.href !== u", arg=url_before)  # the edit landed
    _click_run(page)
    page.get_by_text("Simulated 2 policies").wait_for()
    _open(page, "Results", "Results")
    # the KPI table: a canvas grid whose accessible table holds the cell texts
    table = page.get_by_test_id("stDataFrame").filter(has_text="Mean JCT").first
    table.wait_for()
    kpis = table.text_content() or ""
    assert "FIFO" in kpis and "Tiresias LAS" in kpis and any(c.isdigit() for c in kpis)
    url = page.url
    link = parse_qs(urlparse(url).query)["scenario"][0]
    assert decode_link(link).scenarios["base"].network.background_load == 0.3

    sync_api = pytest.importorskip("playwright.sync_api")
    fresh = _new_page(browser)
    fresh.goto(url)
    again = fresh.get_by_test_id("stDataFrame").filter(has_text="Mean JCT").first
    again.wait_for()
    assert (again.text_content() or "") == kpis
    _screenshot(fresh, "link_results")
    _open(fresh, "Scenario", "Scheduling what-if")
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


def test_five_sessions_run_different_scenarios_at_once(server: str, browser) -> None:
    """Five browser contexts open five different links at the same time; the server runs
    them side by side, and each person sees the KPI table of their own scenario, no error."""
    from dashboard.links import LinkState, encode_link
    from engine.policies.base import policy_display_name

    pages = []
    for policies, seed in SESSIONS:
        config = dataclasses.replace(
            SMALL, policies=tuple(PolicySpec(p) for p in policies), seed=seed
        )
        link = encode_link(LinkState(scenarios={"base": config}, current="base"))
        page = _new_page(browser)
        page.goto(f"{server}/results?scenario={link}", wait_until="commit")
        pages.append(page)
    everyone = {policy_display_name(p) for policies, _ in SESSIONS for p in policies}
    for page, (policies, _seed) in zip(pages, SESSIONS, strict=True):
        table = page.get_by_test_id("stDataFrame").filter(has_text="Mean JCT").first
        table.wait_for()
        text = table.text_content() or ""
        mine = {policy_display_name(p) for p in policies}
        assert all(name in text for name in mine), (mine, text[:200])
        assert not any(name in text for name in everyone - mine), (mine, text[:200])
        assert page.get_by_test_id("stException").count() == 0
    _screenshot(pages[-1], "five_sessions_last")


def test_the_planner_shows_today_and_the_chosen_mix(server: str, browser, tmp_path) -> None:
    """Run the planner on the small scenario: today's cluster and the chosen mix are metrics
    above the chart and marked points on it, beside the Pareto front (issue 23)."""
    page = _new_page(browser)
    _load_small_scenario(page, server, tmp_path)
    _open(page, "Planner", "Planner")
    _fill_number(page, "At most (h)", "60")
    _fill_number(page, "Seeds", "2")
    page.get_by_role("button", name="Plan", exact=True).click()
    page.get_by_text(re.compile(r"\d+ simulations in this plan")).wait_for(timeout=300_000)
    page.locator(".js-plotly-plot").first.wait_for()
    legend = page.locator(".js-plotly-plot .legend").first.text_content() or ""
    assert "today's cluster:" in legend and "chosen:" in legend and "Pareto front" in legend
    metrics = page.get_by_test_id("stMetric").all_text_contents()
    assert any("Today's cluster" in m and "USD/h" in m for m in metrics)
    assert any("Chosen mix" in m for m in metrics)
    page.get_by_text("Cheapest mix found that meets the target").wait_for()
    _screenshot(page, "planner")


def test_with_failures_the_planner_shows_spares_and_goodput(server: str, browser, tmp_path) -> None:
    """Failures on (node MTBF 50 h, 24 h repair): the Planner offers a spares bound, and today's
    cluster, the chosen mix and the table of mixes show their goodput (issue 27)."""
    failing = dataclasses.replace(
        SMALL, failures=FailureConfig(enabled=True, node_mtbf_h=50.0, repair_h=24.0)
    )
    page = _new_page(browser)
    _load_small_scenario(page, server, tmp_path, failing)
    _open(page, "Planner", "Planner")
    page.get_by_text("Failures are on").wait_for()
    _fill_number(page, "Spare nodes per GPU type, at most", "1")
    _fill_number(page, "At most (h)", "60")
    _fill_number(page, "Seeds", "2")
    page.get_by_role("button", name="Plan", exact=True).click()
    page.get_by_text(re.compile(r"\d+ simulations in this plan")).wait_for(timeout=600_000)
    page.locator(".js-plotly-plot").first.wait_for()
    page.get_by_text(re.compile(r"Chosen: .*goodput \d+\.\d%")).first.wait_for()
    page.get_by_text(re.compile(r"Today's cluster, .*goodput \d+\.\d%")).first.wait_for()
    # the captions under the two metrics and the success line carry it too
    assert page.get_by_text(re.compile(r", goodput \d+\.\d%")).count() >= 5
    page.get_by_text("Goodput (%)").first.wait_for(state="attached")  # the table (a canvas)
    assert page.get_by_test_id("stException").count() == 0
    _screenshot(page, "planner_spares")

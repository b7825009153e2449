"""A planning meeting in a real browser: inputs that cannot be run, a UTF-16 file, why a job
waited, the one-file report opened from disk, twenty policies at once, and no request to any
host but this machine."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

import pytest

from engine.config import (
    ClusterSpec,
    NodeGroup,
    PolicySpec,
    ScenarioConfig,
    SyntheticSpec,
    TraceSpec,
)
from engine.policies import list_policies
from engine.scenario import run_scenario
from tests.e2e.harness import (
    TRACE,
    assert_tables_fit,
    click_run,
    load_scenario,
    open_page,
    open_scenario_page,
    screenshot,
    upload_trace,
)

pytestmark = pytest.mark.e2e
LOCAL_HOSTS = {"127.0.0.1", "localhost", ""}
SMALL_CLUSTER = ClusterSpec(
    (NodeGroup("v100", 2, 4, "rack0"), NodeGroup("p100", 2, 4, "rack0"),
     NodeGroup("k80", 2, 4, "rack1"))
)  # fmt: skip


@pytest.fixture
def page(new_page):
    """A fresh page that records every request; the test fails if one leaves the machine."""
    tab = new_page(accept_downloads=True)
    hosts: list[str] = []
    tab.on("request", lambda request: hosts.append(urlparse(request.url).hostname or ""))
    yield tab
    outside = sorted({h for h in hosts if h not in LOCAL_HOSTS})
    assert not outside, f"requests left the machine: {outside}"


def _load_and_run(page, server: str, config: ScenarioConfig, tmp_path: Path) -> None:
    load_scenario(page, server, config, tmp_path)
    click_run(page)
    page.get_by_role("heading", name="Results").first.wait_for(timeout=180_000)
    page.get_by_text(re.compile(r"Simulated \d+ policies")).wait_for()


def test_upload_without_a_file_cannot_run(server: str, page) -> None:
    open_scenario_page(page, server)
    page.get_by_text("Jobs", exact=True).first.wait_for()  # the sample's preview
    page.get_by_text("Upload a file").click()
    page.get_by_text("Upload a trace file (tab 1").wait_for()
    expect = pytest.importorskip("playwright.sync_api").expect  # retries until the rerun ends
    expect(page.get_by_role("button", name="Run", exact=True)).to_be_disabled()
    expect(page.get_by_test_id("stMetric")).to_have_count(0)  # the sample's preview is gone


def test_a_utf16_tab_separated_file_loads(server: str, page, tmp_path: Path) -> None:
    lines = TRACE.read_text().splitlines()[:41]
    path = tmp_path / "excel_unicode.txt"
    path.write_bytes("\r\n".join(x.replace(",", "\t") for x in lines).encode("utf-16"))
    open_scenario_page(page, server)
    upload_trace(page, path)
    page.get_by_text("UTF-16, tab-separated").first.wait_for()
    metric = page.get_by_test_id("stMetric").filter(has_text="Jobs").first
    assert "40" in metric.inner_text()
    run = page.get_by_role("button", name="Run", exact=True)
    page.wait_for_function(  # the preview shows before the script reaches the Run button
        "() => [...document.querySelectorAll('button')].some("
        "b => b.innerText.trim().endsWith('Run') && !b.disabled)"
    )
    expect = pytest.importorskip("playwright.sync_api").expect  # retries until the rerun ends
    expect(run).to_have_count(1)  # a loaded machine may briefly show the rerun's stale copy too
    expect(run).to_be_enabled()


def test_explain_a_job_shows_why_it_waited(server: str, page, tmp_path: Path) -> None:
    config = ScenarioConfig(
        trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(30, 30.0)),
        cluster=SMALL_CLUSTER, policies=(PolicySpec("fifo"),),
    )  # fmt: skip
    log = run_scenario(config).results[0].decisions
    waited = str(log.loc[log["event"] == "waiting", "job_id"].iloc[0])
    _load_and_run(page, server, config, tmp_path)
    open_page(page, "Schedule")
    page.get_by_role("heading", name="Explain a job").wait_for()
    page.get_by_test_id("stSelectbox").filter(has_text="Job (type to search").click()
    page.keyboard.type(waited)
    page.get_by_role("option", name=waited, exact=True).click()
    page.get_by_text(re.compile(r"waiting, #\d+ in the queue, because")).first.wait_for()
    screenshot(page, "explain_job")


def test_the_report_opens_from_disk_offline(server: str, page, browser, tmp_path: Path) -> None:
    config = ScenarioConfig(
        trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(30, 30.0)),
        cluster=SMALL_CLUSTER, policies=(PolicySpec("fifo"), PolicySpec("las")),
    )  # fmt: skip
    _load_and_run(page, server, config, tmp_path)
    with page.expect_download(timeout=120_000) as info:
        page.get_by_role("button", name=re.compile("Download report")).click()
    report = tmp_path / "report.html"
    info.value.save_as(report)
    offline = browser.new_context(offline=True, viewport={"width": 1400, "height": 1000})
    seen: list[str] = []
    tab = offline.new_page()
    tab.on("request", lambda request: seen.append(request.url))
    tab.goto(report.as_uri())
    tab.locator(".js-plotly-plot").nth(3).wait_for(timeout=60_000)
    assert tab.get_by_text(re.compile(r"^Mean JCT \((s|min|h|d)\)")).count() >= 1  # its unit
    assert all(url.startswith(("file:", "data:", "blob:")) for url in seen), seen
    offline.close()


def test_twenty_policies_read_clearly(server: str, page, tmp_path: Path) -> None:
    config = ScenarioConfig(
        trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(40, 20.0)),
        cluster=SMALL_CLUSTER, policies=tuple(PolicySpec(p) for p in list_policies()),
    )  # fmt: skip
    assert len(config.policies) >= 20
    _load_and_run(page, server, config, tmp_path)
    page.locator(".js-plotly-plot").first.wait_for()
    screenshot(page, "many_results")
    assert_tables_fit(page)  # every policy's name and every column in view
    for title in ("Fairness", "Utilization", "Schedule"):
        open_page(page, title)
        page.locator(".js-plotly-plot").first.wait_for()
        screenshot(page, f"many_{title.lower()}")
    open_page(page, "Scenario", "Scheduling what-if")
    page.get_by_role("tab", name="3 · Policies").click()
    screenshot(page, "many_scenario_policies")

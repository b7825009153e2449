"""A planning meeting in a real browser: inputs that cannot be run, a UTF-16 file, why a job
waited, the one-file report opened from disk, twenty policies at once, and no request to any
host but this machine."""

# ruff: noqa: F811  (the `server` fixture is imported from test_browser and requested by name)
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
from tests.e2e.test_browser import (  # noqa: F401  (fixtures)
    CHROMIUM,
    CHROMIUM_ARGS,
    TRACE,
    WAIT_MS,
    _click_run,
    _open_page,
    _screenshot,
    server,
)

pytestmark = pytest.mark.e2e
LOCAL_HOSTS = {"127.0.0.1", "localhost", ""}
SMALL_CLUSTER = ClusterSpec(
    (NodeGroup("v100", 2, 4, "rack0"), NodeGroup("p100", 2, 4, "rack0"),
     NodeGroup("k80", 2, 4, "rack1"))
)  # fmt: skip


@pytest.fixture
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser):
    """A fresh page that records every request; the test fails if one leaves the machine."""
    context = browser.new_context(viewport={"width": 1600, "height": 1000}, accept_downloads=True)
    tab = context.new_page()
    tab.set_default_timeout(WAIT_MS)
    hosts: list[str] = []
    tab.on("request", lambda request: hosts.append(urlparse(request.url).hostname or ""))
    yield tab
    outside = sorted({h for h in hosts if h not in LOCAL_HOSTS})
    assert not outside, f"requests left the machine: {outside}"


def _scenario(tmp_path: Path, config: ScenarioConfig) -> Path:
    path = tmp_path / "scenario.json"
    path.write_text(config.to_json(), encoding="utf-8")
    return path


def _load_and_run(page, server: str, scenario: Path) -> None:
    page.goto(server)
    page.get_by_role("heading", name="Scheduling what-if").wait_for()
    page.get_by_role("tab", name="Save / load").click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Load a scenario JSON")
    uploader.locator("input[type=file]").set_input_files(str(scenario))
    page.get_by_text(f"Loaded scenario {scenario.name}").wait_for()
    _click_run(page)
    page.get_by_role("heading", name="Results").first.wait_for(timeout=180_000)
    page.get_by_text(re.compile(r"Simulated \d+ policies")).wait_for()


def test_upload_without_a_file_cannot_run(server: str, page) -> None:
    page.goto(server)
    page.get_by_role("heading", name="Scheduling what-if").wait_for()
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
    page.goto(server)
    page.get_by_role("heading", name="Scheduling what-if").wait_for()
    page.get_by_text("Upload a file").click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Trace file")
    uploader.locator("input[type=file]").set_input_files(str(path))
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
    _load_and_run(page, server, _scenario(tmp_path, config))
    _open_page(page, "Schedule")
    page.get_by_role("heading", name="Explain a job").wait_for()
    page.get_by_test_id("stSelectbox").filter(has_text="Job (type to search").click()
    page.keyboard.type(waited)
    page.get_by_role("option", name=waited, exact=True).click()
    page.get_by_text(re.compile(r"waiting, #\d+ in the queue, because")).first.wait_for()
    _screenshot(page, "explain_job")


def test_the_report_opens_from_disk_offline(server: str, page, browser, tmp_path: Path) -> None:
    config = ScenarioConfig(
        trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(30, 30.0)),
        cluster=SMALL_CLUSTER, policies=(PolicySpec("fifo"), PolicySpec("las")),
    )  # fmt: skip
    _load_and_run(page, server, _scenario(tmp_path, config))
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
    assert tab.get_by_text("Mean JCT (h)").count() >= 1
    assert all(url.startswith(("file:", "data:", "blob:")) for url in seen), seen
    offline.close()


def test_twenty_policies_read_clearly(server: str, page, tmp_path: Path) -> None:
    config = ScenarioConfig(
        trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(40, 20.0)),
        cluster=SMALL_CLUSTER, policies=tuple(PolicySpec(p) for p in list_policies()),
    )  # fmt: skip
    assert len(config.policies) >= 20
    _load_and_run(page, server, _scenario(tmp_path, config))
    page.locator(".js-plotly-plot").first.wait_for()
    _screenshot(page, "many_results")
    for title in ("Fairness", "Utilization", "Schedule"):
        _open_page(page, title)
        page.locator(".js-plotly-plot").first.wait_for()
        _screenshot(page, f"many_{title.lower()}")
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Scenario").click()
    page.get_by_role("heading", name="Scheduling what-if").wait_for()
    page.get_by_role("tab", name="3 · Policies").click()
    _screenshot(page, "many_scenario_policies")

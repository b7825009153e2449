"""What a person does in a real browser: upload a trace, pick two policies, run, read the charts.

Starts ``streamlit run dashboard/app.py`` on a free port and drives it with Playwright in Debian's
Chromium (``PLAYWRIGHT_CHROMIUM_EXECUTABLE``, default ``/usr/bin/chromium``). Screenshots go to
``artifacts/`` (gitignored) for a person to look at.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
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

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
TRACE = ROOT / "sample_traces" / "philly_2000.csv"
CHROMIUM = os.environ.get("PLAYWRIGHT_CHROMIUM_EXECUTABLE", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
MIN_PNG_BYTES = 20_000
WAIT_MS = 60_000

pytestmark = pytest.mark.e2e


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_healthy(url: str, process: subprocess.Popen, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited early with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"streamlit did not become healthy at {url}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of a dashboard server started for these tests (always stopped afterwards), with a
    result and trace store of its own: runs stored by an earlier server on this machine
    (``~/.cache/gpusched``) would come back at once and hide the progress a test reads."""
    yield from serve_dashboard({"GPUSCHED_STORE": str(tmp_path_factory.mktemp("store"))})


def serve_dashboard(env: dict[str, str] | None = None) -> Iterator[str]:
    """Starts ``streamlit run dashboard/app.py`` on a free port (with ``env`` added to the
    environment), yields its URL once healthy, and always stops it."""
    port = _free_port()
    command = [
        sys.executable, "-m", "streamlit", "run", "dashboard/app.py", "--server.port", str(port),
        "--server.headless", "true", "--server.address", "127.0.0.1",
        "--browser.gatherUsageStats", "false",
    ]  # fmt: skip
    process = subprocess.Popen(
        command, cwd=ROOT, env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, process)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture
def page(server: str):
    """A fresh Chromium page (1600 x 1000)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1600, "height": 1000})
            tab = context.new_page()
            tab.set_default_timeout(WAIT_MS)
            yield tab
        finally:
            browser.close()


def _screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.set_viewport_size({"width": 1600, "height": 2000})  # Streamlit scrolls inside the page
    page.wait_for_timeout(1200)  # let plotly re-layout and finish its transitions
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size({"width": 1600, "height": 1000})
    assert path.stat().st_size > MIN_PNG_BYTES, f"{path} looks empty"
    return path


def _open_page(page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
    page.get_by_role("heading", name=title).first.wait_for()


def _click_run(page) -> None:
    """Clicks Run once the page has settled on one Run button: while Streamlit redraws after
    an edit, the old button and its new copy can both be on the page for a moment (seen under
    load as a strict-mode error, "resolved to 2 elements")."""
    from playwright.sync_api import expect

    run = page.get_by_role("button", name="Run", exact=True)
    expect(run).to_have_count(1)
    run.click()


def _upload_trace_and_pick_policies(page) -> None:
    page.get_by_text("Upload a file").click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Trace file")
    uploader.locator("input[type=file]").set_input_files(str(TRACE))
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
    _open_page(page, "Schedule")
    page.get_by_role("heading", name=second_policy, exact=True).wait_for()
    page.locator(".js-plotly-plot").nth(1).wait_for()


def test_upload_run_and_read_the_charts(server: str, page) -> None:
    page.goto(f"{server}/?policies=fifo")
    page.get_by_role("heading", name="Scheduling what-if").wait_for()
    _upload_trace_and_pick_policies(page)
    _click_run(page)
    page.get_by_role("heading", name="Results").first.wait_for()  # Run switches to Results
    page.get_by_text("Simulated 2 policies").wait_for()
    link = parse_qs(urlparse(page.url).query)["scenario"][0]  # the whole scenario, compressed
    scenario = decode_link(link).scenarios["base"]
    assert [p.name for p in scenario.policies] == ["fifo", "las"]
    assert scenario.trace.source == "upload:philly_2000.csv"
    page.locator(".js-plotly-plot").first.wait_for()
    legend = page.locator(".js-plotly-plot .legend").first.text_content() or ""
    assert "FIFO" in legend and "Tiresias LAS" in legend
    _screenshot(page, "results")

    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Scenario").click()
    page.get_by_role("heading", name="Scheduling what-if").wait_for()
    page.get_by_role("tab", name="1 · Jobs").click()
    _screenshot(page, "scenario")

    _show_two_gantts(page, "Tiresias LAS")
    assert page.locator(".js-plotly-plot").count() == 2  # FIFO's and LAS's, stacked
    _screenshot(page, "schedule")

    for title in ("Utilization", "Fairness"):
        _open_page(page, title)
        page.locator(".js-plotly-plot").first.wait_for()
        _screenshot(page, title.lower())


def _edit_first_nodes_cell(page, value: str) -> None:
    """Types ``value`` into the GPU mix's first "Nodes" cell (the grid is a canvas)."""
    grid = page.locator("[data-testid=stDataFrame]:visible").first
    box = grid.bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.55, box["y"] + 35 * 1.5 + 2)
    page.keyboard.press("Enter")
    page.wait_for_timeout(400)
    page.keyboard.press("Control+A")
    page.keyboard.type(value, delay=30)
    page.keyboard.press("Tab")


def _edit_until_caption_changes(page, before: str, attempts: int = 3) -> None:
    """Edits the grid until the capacity caption differs from ``before``. On a busy machine the
    canvas grid may take the first click before it accepts edits, so the edit is retried."""
    changed = (
        "(before) => ![...document.querySelectorAll('p, div')].some("
        "e => e.innerText && e.innerText.trim() === before)"
    )
    for attempt in range(attempts):
        _edit_first_nodes_cell(page, "10")
        try:
            page.wait_for_function(changed, arg=before, timeout=15_000)
            return
        except Exception:  # playwright's TimeoutError
            if attempt == attempts - 1:
                raise


def test_gpu_mix_edits_survive_a_page_switch(server: str, page) -> None:
    """Edit a cell of the GPU mix, leave the page, come back: the edited cluster is still there.

    The grid is a canvas, so the test edits whichever numeric cell sits under the click and
    checks the capacity caption ("N GPUs in R rack(s)") before, after, and after returning.
    """
    caption = page.get_by_text(re.compile(r"\d+ GPUs in \d+ rack"))
    page.goto(server)
    page.get_by_role("heading", name="Scheduling what-if").wait_for()
    page.get_by_role("tab", name="2 · GPU mix & network").click()
    before = caption.inner_text()
    _edit_until_caption_changes(page, before)
    after = caption.inner_text()
    assert after != before
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Results").click()
    page.get_by_text("No results yet").wait_for()
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Scenario").click()
    page.get_by_role("tab", name="2 · GPU mix & network").click()
    assert caption.inner_text() == after
    _screenshot(page, "cluster_tab")


def test_a_paper_preset_runs_and_shows_its_claims_and_copies(server: str, page) -> None:
    """Pick the Hadar paper preset, run it, read the claims beside the simulation, and see
    HadarE's copies as lanes of one Gantt row."""
    sync_api = pytest.importorskip("playwright.sync_api")
    page.goto(server)
    page.get_by_role("heading", name="Scheduling what-if").wait_for()
    page.get_by_test_id("stSelectbox").filter(has_text="Paper preset").click()
    page.get_by_role("option", name=re.compile("^Hadar")).click()
    page.get_by_text("Loaded the Hadar").wait_for()
    _click_run(page)
    page.get_by_text("Simulated 4 policies").wait_for()

    _open_page(page, "Results")  # Run already shows Results with its flash; this rerun drops it,
    # so until the rerun ends the old (stale) copy of the heading may stand one slot lower
    page.get_by_text("claim vs simulation").first.wait_for()
    heading = page.get_by_text("claim vs simulation")
    sync_api.expect(heading).to_have_count(1)  # the stale copy goes once the rerun ends
    claims = page.get_by_test_id("stDataFrame").filter(has_text="Claim")
    claims.wait_for()
    _screenshot(page, "paper_preset_results")

    _show_two_gantts(page, "HadarE")
    _screenshot(page, "paper_preset_schedule")


def _network_scenario_json() -> str:
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
    ).to_json()  # fmt: skip


def test_the_network_page_shows_congested_links_and_racks(server: str, page, tmp_path) -> None:
    """Load a scenario with congestion episodes, run it, and read the Network page: the
    topology at a moment inside an episode (red links), load per rack, the episodes over time."""
    scenario = tmp_path / "network.json"
    scenario.write_text(_network_scenario_json(), encoding="utf-8")
    page.goto(server)
    page.get_by_role("heading", name="Scheduling what-if").wait_for()
    page.get_by_role("tab", name="Save / load").click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Load a scenario JSON")
    uploader.locator("input[type=file]").set_input_files(str(scenario))
    page.get_by_text("Loaded scenario network.json").wait_for()
    _click_run(page)
    page.get_by_text("Simulated 2 policies").wait_for()

    _open_page(page, "Network")
    page.locator(".js-plotly-plot").nth(2).wait_for()
    assert page.locator(".js-plotly-plot").count() == 3
    title = page.locator(".js-plotly-plot .gtitle").first.text_content() or ""
    assert "congested" in title and "no congested" not in title, title
    _screenshot(page, "network")

    _open_page(page, "Schedule")
    page.get_by_text("network sensitivity", exact=True).click()
    page.locator(".js-plotly-plot .colorbar").first.wait_for()
    _screenshot(page, "schedule_sensitivity")


def test_run_shows_each_policys_progress_while_they_run_side_by_side(server: str, page) -> None:
    """Four policies run in the server's process pool: while they run, one bar per policy says
    which are done, which running and which waiting; then the Results page shows all four."""
    page.goto(f"{server}/?policies=fifo,srtf,las,gavel_maxmin&seed=5")
    page.get_by_role("heading", name="Scheduling what-if").wait_for()
    page.get_by_text("Jobs", exact=True).first.wait_for()
    _click_run(page)
    page.get_by_text(re.compile("Simulating 4 policies")).wait_for()
    bars = page.get_by_test_id("stProgress")
    bars.nth(3).wait_for()
    assert bars.count() == 4
    texts = " ".join(bars.all_inner_texts())
    for name in ("FIFO", "SRTF", "Tiresias LAS", "Gavel max-min"):
        assert name in texts
    bars.filter(has_text=re.compile(r"· running · \d+% of jobs finished")).first.wait_for()
    _screenshot(page, "run_progress")
    page.get_by_role("heading", name="Results").first.wait_for()
    page.get_by_text("Simulated 4 policies").wait_for()
    page.locator(".js-plotly-plot").first.wait_for()

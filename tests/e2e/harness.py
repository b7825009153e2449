"""The browser tests' harness, written once: the dashboard server, Debian's Chromium, and the
steps every browser test takes (open a page, load a scenario, click Run, take a screenshot).

The fixtures that use it (``server``, ``browser``, ``new_page``, ``page``) are in
:mod:`tests.e2e.conftest`; the benchmarks that drive a browser start their server with
:func:`serve_dashboard`. Chromium is ``PLAYWRIGHT_CHROMIUM_EXECUTABLE`` (default
``/usr/bin/chromium``); screenshots go to ``artifacts/`` (gitignored) for a person to look at.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from engine.config import ScenarioConfig

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
TRACE = ROOT / "sample_traces" / "philly_2000.csv"
CHROMIUM = os.environ.get("PLAYWRIGHT_CHROMIUM_EXECUTABLE", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
DESKTOP = {"width": 1600, "height": 1000}
"""The window of every browser test but the classroom's (a projector's 1280 x 720)."""
WAIT_MS = 60_000
"""Playwright's default timeout per step."""
MIN_PNG_BYTES = 20_000
"""A screenshot smaller than this is an empty or blank page."""
SCREENSHOT_HEIGHT = 2000
"""Window height for a whole-page screenshot: Streamlit scrolls inside its own element, so a
full-page screenshot shows only the window; a taller window shows the page."""


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


def serve_dashboard(env: dict[str, str] | None = None) -> Iterator[str]:
    """Starts ``streamlit run dashboard/app.py`` on a free port (with ``env`` added to the
    environment), yields its URL once healthy, and always stops it. Tests get it through the
    ``server`` fixture, which gives each server a result and trace store of its own."""
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


def screenshot(page, name: str, whole_page: bool = True) -> Path:
    """Saves ``artifacts/<name>.png`` for a person to look at and fails if it looks empty.

    ``whole_page``: the page from top to bottom at the window's width (the window is made
    :data:`SCREENSHOT_HEIGHT` tall for the shot, then restored); otherwise the window as it is
    (what a projector shows)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    window = page.viewport_size
    if whole_page:
        page.set_viewport_size({"width": window["width"], "height": SCREENSHOT_HEIGHT})
    page.wait_for_timeout(1200)  # let plotly re-layout and finish its transitions
    page.screenshot(path=str(path), full_page=whole_page)
    if whole_page:
        page.set_viewport_size(window)
    assert path.stat().st_size > MIN_PNG_BYTES, f"{path} looks empty"
    return path


def open_scenario_page(page, url: str) -> None:
    """Opens ``url`` (the server, maybe with a query) and waits for the Scenario page."""
    page.goto(url)
    page.get_by_role("heading", name="Scheduling what-if").wait_for()


def open_page(page, link: str, heading: str | None = None) -> None:
    """Clicks ``link`` in the sidebar and waits for the page's ``heading`` (default: the
    link's own text; the Scenario page's heading is "Scheduling what-if")."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=link).click()
    page.get_by_role("heading", name=heading or link).first.wait_for()


def click_run(page) -> None:
    """Clicks Run once the page has settled on one Run button: while Streamlit redraws after
    an edit, the old button and its new copy can both be on the page for a moment (seen under
    load as a strict-mode error, "resolved to 2 elements")."""
    from playwright.sync_api import expect

    run = page.get_by_role("button", name="Run", exact=True)
    expect(run).to_have_count(1)
    run.click()


def fill_number(page, label: str, value: str) -> None:
    """Types ``value`` into the number input labelled ``label`` and lets the page rerun."""
    box = page.get_by_label(label, exact=True)
    box.fill(value)
    box.press("Enter")
    page.wait_for_timeout(600)


def upload_trace(page, path: Path) -> None:
    """Switches the Scenario page's trace source to "Upload a file" and uploads ``path``."""
    page.get_by_text("Upload a file").click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Trace file")
    uploader.locator("input[type=file]").set_input_files(str(path))


def load_scenario(
    page, server: str, config: ScenarioConfig, folder: Path, name: str = "scenario.json"
) -> None:
    """Writes ``config`` as ``folder/name`` and loads it on the Scenario page's "Save / load"
    tab, as a person loads a saved scenario."""
    path = folder / name
    path.write_text(config.to_json(), encoding="utf-8")
    open_scenario_page(page, server)
    page.get_by_role("tab", name="Save / load").click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Load a scenario JSON")
    uploader.locator("input[type=file]").set_input_files(str(path))
    page.get_by_text(f"Loaded scenario {name}").wait_for()


def edit_until_caption_changes(page, before: str, at_x: float = 0.55, attempts: int = 3) -> None:
    """Types 10 into the GPU mix's first "Nodes" cell until the capacity caption ("N GPUs in
    R rack(s)") differs from ``before``. The grid is a canvas: the click lands at ``at_x`` of
    its width, one and a half rows down (the column's place depends on the grid's width). On a
    busy machine the grid may take the first click before it accepts edits, so the edit is
    retried."""
    changed = (
        "(before) => ![...document.querySelectorAll('p, div')].some("
        "e => e.innerText && e.innerText.trim() === before)"
    )
    for attempt in range(attempts):
        box = page.locator("[data-testid=stDataFrame]:visible").first.bounding_box()
        page.mouse.click(box["x"] + box["width"] * at_x, box["y"] + 35 * 1.5 + 2)
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


def kpi_table(page):
    """The Results page's first KPI table (the one with Mean JCT; a canvas grid whose
    accessible table holds the cell texts)."""
    return page.get_by_test_id("stDataFrame").filter(has_text="Mean JCT").first


def open_links_at_once(new_page, server: str, configs: list[ScenarioConfig]) -> list:
    """One fresh browser context per scenario, each opening the scenario's Results link
    without waiting, so the server gets the runs at the same time."""
    from dashboard.links import LinkState, encode_link

    pages = []
    for config in configs:
        link = encode_link(LinkState(scenarios={"base": config}, current="base"))
        page = new_page()
        page.goto(f"{server}/results?scenario={link}", wait_until="commit")
        pages.append(page)
    return pages


def assert_each_sees_own_kpis(
    pages: list, configs: list[ScenarioConfig], timeout_ms: float = WAIT_MS
) -> None:
    """Each page's KPI table names its own scenario's policies and no other page's, and the
    page shows no error."""
    from engine.policies.base import policy_display_name

    def names(config: ScenarioConfig) -> set[str]:
        return {policy_display_name(p.name) for p in config.policies}

    everyone = set().union(*(names(c) for c in configs))
    for page, config in zip(pages, configs, strict=True):
        table = kpi_table(page)
        table.wait_for(timeout=timeout_ms)
        text = table.text_content() or ""
        mine = names(config)
        assert all(name in text for name in mine), (mine, text[:200])
        assert not any(name in text for name in everyone - mine), (mine, text[:200])
        assert page.get_by_test_id("stException").count() == 0


_WIDER_THAN_THE_PAGE = """() => {
    const main = document.querySelector('[data-testid=stMainBlockContainer]');
    const style = getComputedStyle(main);
    const right = main.getBoundingClientRect().right - parseFloat(style.paddingRight);
    return [...document.querySelectorAll('[data-testid=stDataFrame]')]
        .filter(grid => grid.offsetParent !== null)
        .map(grid => {
            const scroller = grid.querySelector('.dvn-scroller');
            const hidden = scroller ? scroller.scrollWidth - scroller.clientWidth : 0;
            const beyond = grid.getBoundingClientRect().right - right;
            const headers = [...grid.querySelectorAll('th')].map(th => th.innerText).join(' | ');
            return {headers: headers.slice(0, 200), hidden_px: hidden, beyond_px: beyond};
        })
        .filter(grid => grid.hidden_px > 1 || grid.beyond_px > 1);
}"""


def tables_too_wide(page) -> list[dict]:
    """The tables on the page that scroll sideways inside themselves (Streamlit's grid then
    hides their last columns behind a scroll bar) or reach past the main column's right edge:
    their headers, hidden and beyond widths (px)."""
    return page.evaluate(_WIDER_THAN_THE_PAGE)


def assert_tables_fit(page) -> None:
    """Every table on the page shows all its columns inside the page's main column
    (:func:`tables_too_wide` finds none)."""
    wide = tables_too_wide(page)
    assert not wide, f"tables wider than the page: {wide}"

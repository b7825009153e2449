"""The browser row of ``bench_engine.py``: click on Run to the Results page's first chart.

A fresh ``streamlit run dashboard/app.py`` (process pool, as a user gets it), Chromium driven by
Playwright (``PLAYWRIGHT_CHROMIUM_EXECUTABLE``, default ``/usr/bin/chromium``). One warm-up run
(FIFO, another seed) first, so the pool's server and plotly are loaded as in a live meeting; then
a new session opens with the dashboard's three default policies plus ``hadar`` and the clock
runs from the click on Run until the first chart on the Results page is drawn.
"""

from __future__ import annotations

import time

from tests.e2e.harness import CHROMIUM, CHROMIUM_ARGS, serve_dashboard

POLICIES = "fifo,las,gavel_maxmin,hadar"
WAIT_MS = 600_000


def _run_and_wait(page, url: str) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Opens ``url``, clicks Run once the trace preview is in; (s to Results, s to chart)."""
    from playwright.sync_api import expect

    page.goto(url)
    page.get_by_role("heading", name="Scheduling what-if").wait_for()
    page.get_by_text("Jobs", exact=True).first.wait_for()
    run = page.get_by_role("button", name="Run", exact=True)
    expect(run).to_be_enabled(timeout=WAIT_MS)
    started = time.perf_counter()
    run.click()
    page.get_by_role("heading", name="Results").first.wait_for()
    switched = time.perf_counter()
    page.locator(".js-plotly-plot .main-svg").first.wait_for()
    return switched - started, time.perf_counter() - started


def click_to_first_chart() -> dict[str, object]:
    from playwright.sync_api import sync_playwright

    server = serve_dashboard()
    url = next(server)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
            page.set_default_timeout(WAIT_MS)
            _run_and_wait(page, f"{url}/?policies=fifo&seed=99")  # warm-up
            to_results, to_chart = _run_and_wait(page, f"{url}/?policies={POLICIES}")
            browser.close()
    finally:
        server.close()  # stops the server
    return {"seconds": to_chart, "to_results_page_s": to_results, "policies": POLICIES}

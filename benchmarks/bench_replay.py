"""Prints the Step-through page's redraw time (a benchmark, not a test): 50 jobs x 4 policies
(FIFO, SRTF, Tiresias LAS, Gavel max-min), the first 50 jobs of the Philly sample, on a 64-GPU
classroom cluster and on the dashboard's default 512-GPU cluster (issue 26: under 200 ms).

A redraw is what the page's fragment computes at a moment for every policy: the GPU owners,
the cluster's HTML, the queue and its HTML, and the decision just made in words
(:func:`dashboard.components.step_through.moment_html`, which ``draw_moment`` hands to
Streamlit). It is timed at every
event of the run (the moments "Next event" steps to); indexing the runs (once per result) is
printed apart. Then the whole page through Streamlit's AppTest, stepping with "Next"
(a full script run, an upper bound on the fragment's rerun). Last, what a class sees: a
``streamlit run`` server and Chromium at 1280 x 720 (Playwright, ``/usr/bin/chromium``), the
same scenario opened by link, the Right key pressed 20 times; each time from the key press
until all four policies' GPU views show the new moment (skipped without Playwright/Chromium).

    .venv/bin/python benchmarks/bench_replay.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

POLICIES = ("fifo", "srtf", "las", "gavel_maxmin")


def scenario(cluster):
    from engine.config import PolicySpec, ScenarioConfig, TraceSpec

    return ScenarioConfig(
        trace=TraceSpec(max_jobs=50),
        cluster=cluster,
        policies=tuple(PolicySpec(p) for p in POLICIES),
    )


def clusters() -> dict:
    from engine.config import ClusterSpec, NodeGroup, default_cluster

    small = ClusterSpec((NodeGroup("v100", 4, 8, "rack0"), NodeGroup("p100", 2, 8, "rack1"),
                         NodeGroup("k80", 2, 8, "rack1")))  # fmt: skip
    return {"64 GPUs": small, "512 GPUs (default)": default_cluster()}


def redraw(shown, time_s: float) -> int:
    """What the page's fragment computes for one moment (:func:`draw_moment` without
    Streamlit); returns the HTML's length."""
    from dashboard.components.step_through import moment_html

    return len(moment_html(shown, time_s))


def bench_compute(label: str, cluster) -> None:
    from dashboard.cluster_view import job_colors
    from dashboard.components.step_through import Shown
    from dashboard.decision_words import Explainer
    from dashboard.replay import Replay
    from engine.allocation.layout import NodeLayout
    from engine.scenario import run_scenario, scenario_matrix

    config = scenario(cluster)
    result = run_scenario(config)
    started = time.perf_counter()
    layout, matrix = NodeLayout.of(config.cluster), scenario_matrix(config)
    replays = [Replay(sim, layout, config.rounds.round_duration_s) for sim in result.results]
    explainers = [Explainer(r, s, matrix) for r, s in zip(replays, config.policies, strict=True)]
    colors = job_colors(result.results[0].jobs["job_id"].astype(str))
    shown = Shown(replays, explainers, colors, max(r.end_s for r in replays))
    index_ms = (time.perf_counter() - started) * 1000
    moments = sorted({float(t) for r in replays for t in r.events["time_s"]})
    times_ms, cpu_ms, size = [], [], 0
    for moment in moments:
        tick, cpu = time.perf_counter(), time.process_time()
        size = redraw(shown, moment)
        times_ms.append((time.perf_counter() - tick) * 1000)
        cpu_ms.append((time.process_time() - cpu) * 1000)
    print(
        f"{label:>20}: index {index_ms:6.1f} ms once; redraw over {len(moments)} moments: "
        f"median {statistics.median(times_ms):5.1f} ms, p95 "
        f"{sorted(times_ms)[int(0.95 * (len(times_ms) - 1))]:5.1f} ms, max "
        f"{max(times_ms):5.1f} ms (CPU median {statistics.median(cpu_ms):4.1f} ms, max "
        f"{max(cpu_ms):5.1f} ms); HTML {size / 1024:,.0f} KB"
    )


def bench_page() -> None:
    from streamlit.testing.v1 import AppTest

    from engine.scenario import run_scenario

    os.environ["GPUSCHED_EXECUTOR"] = "serial"
    config = scenario(clusters()["64 GPUs"])
    result = run_scenario(config)
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=120).run()
    at.session_state["result"] = result
    at.switch_page("app_pages/step_through.py").run()
    steps_ms = []
    for _ in range(20):
        tick = time.perf_counter()
        next(b for b in at.button if b.key == "step_next").click().run()
        steps_ms.append((time.perf_counter() - tick) * 1000)
    assert not at.exception, at.exception
    print(
        f"{'page (AppTest)':>20}: 'Next event' x 20, whole script each: median "
        f"{statistics.median(steps_ms):5.1f} ms, max {max(steps_ms):5.1f} ms"
    )


def bench_browser(label: str, cluster) -> None:
    from pathlib import Path as _Path

    from dashboard.links import LinkState, encode_link
    from tests.e2e.harness import CHROMIUM, CHROMIUM_ARGS, serve_dashboard

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print(f"{'browser':>20}: skipped (no Playwright)")
        return
    if not _Path(CHROMIUM).exists():
        print(f"{'browser':>20}: skipped (no Chromium at {CHROMIUM})")
        return
    link = encode_link(LinkState({"base": scenario(cluster)}, "base"))
    server = serve_dashboard()
    url = next(server)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
            page.set_default_timeout(300_000)
            page.goto(f"{url}/?scenario={link}")
            page.get_by_role("heading", name="Results").first.wait_for()
            page.get_by_test_id("stSidebarNav").get_by_role("link", name="Step through").click()
            views = page.locator(".cv[data-policy]")
            views.nth(3).wait_for()
            page.wait_for_timeout(2000)
            page.get_by_role("heading", name="Step through").first.click()
            steps_ms = []
            for _ in range(20):
                before = views.first.get_attribute("data-time-s")
                tick = time.perf_counter()
                page.keyboard.press("ArrowRight")
                page.wait_for_function(
                    "([before]) => [...document.querySelectorAll('.cv[data-policy]')]"
                    ".every((view) => view.dataset.timeS !== before)",
                    arg=[before], polling=5,
                )  # fmt: skip
                steps_ms.append((time.perf_counter() - tick) * 1000)
                page.wait_for_timeout(300)  # the old copies leave the page
            browser.close()
    finally:
        server.close()
    print(
        f"{'browser, ' + label:>20}: Right key x 20 at 1280x720, key press to all four views "
        "redrawn: "
        f"median {statistics.median(steps_ms):5.1f} ms, max {max(steps_ms):5.1f} ms"
    )


def main() -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        "Step-through redraw, 50 jobs x 4 policies (FIFO, SRTF, LAS, Gavel max-min); "
        f"load average {load:.1f} on {os.cpu_count()} cores (wall times grow with it)"
    )
    for label, cluster in clusters().items():
        bench_compute(label, cluster)
    bench_page()
    for label, cluster in clusters().items():
        bench_browser(label, cluster)


if __name__ == "__main__":
    main()

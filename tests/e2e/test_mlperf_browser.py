"""In a real browser: pick the mlperf matrix, build an H100/B200 mix, run, read the Matrix page,
and see that the planner asks for the prices that cannot be cited (issue 24). Planning in the
browser (typing prices into the canvas grid) is left out; benchmarks/bench_plan_2026.py plans."""

from __future__ import annotations

import re

import pytest

from tests.e2e.test_browser import (  # noqa: F401  (fixtures)
    _click_run,
    _edit_until_caption_changes,
    _open_page,
    _screenshot,
    page,
    server,
)

pytestmark = pytest.mark.e2e


def test_mlperf_matrix_h100_b200_mix_run_matrix_page_and_plan(server: str, page) -> None:  # noqa: F811
    page.goto(server)
    page.get_by_role("heading", name="Scheduling what-if").wait_for()
    page.get_by_role("tab", name="2 · GPU mix & network").click()
    page.get_by_test_id("stSelectbox").filter(has_text="Throughput matrix").click()
    page.get_by_role("option", name=re.compile("^mlperf: MLPerf Training")).click()
    page.get_by_role("button", name="Load the 2026 cluster (MLPerf)").click()
    caption = page.get_by_text(re.compile(r"\d+ GPUs in \d+ rack"))
    page.get_by_text("Loaded the 2026 cluster").wait_for()
    page.get_by_role("tab", name="2 · GPU mix & network").click()
    page.get_by_text("768 GPUs in 6 rack(s)").wait_for()
    _edit_until_caption_changes(page, caption.inner_text())  # a cell of the first H100 row
    edited = caption.inner_text()
    assert "768 GPUs" not in edited and "× B200" in edited and "× H100-SXM" in edited
    _click_run(page)
    page.get_by_role("heading", name="Results").first.wait_for()
    page.get_by_text("Simulated 3 policies").wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    _screenshot(page, "mlperf_results")

    _open_page(page, "Matrix")
    page.get_by_role("heading", name="Throughput matrix").wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    page.get_by_test_id("stSelectbox").filter(has_text="Benchmark").click()
    page.get_by_role("option", name="resnet", exact=True).click()
    page.get_by_text("resnet has no MLPerf result on B200, MI300X").wait_for()
    _screenshot(page, "mlperf_matrix")

    _open_page(page, "Planner")
    page.get_by_text("no citable public price found").first.wait_for()
    page.get_by_text(re.compile(r"candidates row 3 \(B200\): no price")).wait_for()
    _screenshot(page, "mlperf_planner")  # sources of each price; B200 and MI300X need yours

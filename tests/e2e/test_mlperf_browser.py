"""In a real browser: pick the mlperf matrix, build an H100/B200 mix, run, read the Matrix page,
enter the prices that cannot be cited, and plan (issue 24)."""

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


def _type_into_cell(page, grid, x_share: float, row: int, value: str) -> None:
    """Types ``value`` into a canvas grid's cell: ``row`` 1-based under the header (35 px
    rows), at ``x_share`` of the grid's width."""
    box = grid.bounding_box()
    page.mouse.click(box["x"] + box["width"] * x_share, box["y"] + 35 * (row + 0.5))
    page.keyboard.press("Enter")
    page.wait_for_timeout(400)
    page.keyboard.press("Control+A")
    page.keyboard.type(value, delay=30)
    page.keyboard.press("Enter")
    page.wait_for_timeout(800)


def test_mlperf_matrix_h100_b200_mix_run_matrix_page_and_plan(server: str, page) -> None:
    page.goto(server)
    page.get_by_role("heading", name="Scheduling what-if").wait_for()
    page.get_by_role("tab", name="2 · GPU mix & network").click()
    page.get_by_test_id("stSelectbox").filter(has_text="Throughput matrix").click()
    page.get_by_role("option", name=re.compile("^mlperf: MLPerf Training")).click()
    page.get_by_text("unknown worker type 'v100'").first.wait_for()  # Gavel's mix is not valid
    page.get_by_role("button", name="Load the 2026 cluster (MLPerf)").click()
    caption = page.get_by_text(re.compile(r"\d+ GPUs in \d+ rack"))
    page.get_by_text("768 GPUs in 6 rack(s): 256 × B200, 512 × H100-SXM.").wait_for()
    _edit_until_caption_changes(page, caption.inner_text())  # first H100 group: 16 -> 10 nodes
    page.get_by_text("720 GPUs in 6 rack(s): 256 × B200, 464 × H100-SXM.").wait_for()
    _click_run(page)
    page.get_by_role("heading", name="Results").first.wait_for()
    page.get_by_text("Simulated 3 policies").wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    _screenshot(page, "mlperf_results")

    _open_page(page, "Matrix")
    page.get_by_role("heading", name="Throughput matrix").wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    page.get_by_text("llama2_70b_lora has no MLPerf result on A100-SXM-80GB").wait_for()
    _screenshot(page, "mlperf_matrix")

    _open_page(page, "Planner")
    page.get_by_text("no citable public price found").first.wait_for()
    page.get_by_text(re.compile(r"candidates row 3 \(B200\): no price")).wait_for()
    grid = page.locator("[data-testid=stDataFrame]:visible").first
    _type_into_cell(page, grid, 0.35, 3, "8")  # B200: the user's number
    _type_into_cell(page, grid, 0.35, 4, "4")  # MI300X
    page.get_by_text(re.compile(r"candidates row \d \(\w+\): no price")).wait_for(state="hidden")
    box = page.get_by_label("At most (h)", exact=True)
    box.fill("8")
    box.press("Enter")
    box = page.get_by_label("Seeds", exact=True)
    box.fill("1")
    box.press("Enter")
    page.wait_for_timeout(600)
    page.get_by_role("button", name="Plan", exact=True).click()
    page.get_by_text(re.compile(r"\d+ simulations run")).wait_for(timeout=240_000)
    page.locator(".js-plotly-plot").first.wait_for()
    _screenshot(page, "mlperf_planner")

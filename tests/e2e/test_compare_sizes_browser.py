"""Issue 38, point 8, in a real browser at 1600 x 1000 and 1280 x 720: Compare's paired table
gives each difference as a share of the baseline's value and Holm-adjusted p-values, its
caption says so, and the table shows every column inside the page. Screenshots:
``artifacts/compare_sizes_<size>.png``."""

from __future__ import annotations

import re

import pytest

from tests.e2e.harness import DESKTOP, assert_tables_fit, fill_number, open_page, screenshot
from tests.e2e.test_study_browser import SERIAL, _load_small_scenario

pytestmark = pytest.mark.e2e
SIZES = {"1600x1000": DESKTOP, "1280x720": {"width": 1280, "height": 720}}


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    """The module's server runs studies serially."""
    return SERIAL


@pytest.mark.parametrize("size", list(SIZES))
def test_compares_verdicts_give_the_relative_size_and_holms_p(
    server: str, new_page, tmp_path, size: str
) -> None:
    page = new_page(SIZES[size])
    _load_small_scenario(page, server, tmp_path)
    open_page(page, "Compare")
    fill_number(page, "Seeds", "3")
    page.get_by_role("button", name="Run all").click()
    page.get_by_text(re.compile(r"6 runs: \d+ (simulated|stored)")).first.wait_for()
    table = page.get_by_test_id("stDataFrame").filter(has_text="% of B").first
    table.wait_for()
    text = table.text_content() or ""
    assert "% of B" in text and "p (Holm)" in text, text[:300]
    assert "vs FIFO" not in text  # the pair said once above the grid, not in every row
    page.get_by_text("A vs B: Tiresias LAS vs FIFO").wait_for()
    assert re.search(r"[+-]\d+(\.\d+)?%", text), text[:300]  # the difference relative to B
    caption = page.get_by_text(re.compile("adjusted by Holm's method for the \\d+ metrics"))
    caption.first.wait_for()
    table.scroll_into_view_if_needed()
    assert_tables_fit(page)
    assert page.get_by_test_id("stException").count() == 0
    screenshot(page, f"compare_sizes_{size}", whole_page=False)

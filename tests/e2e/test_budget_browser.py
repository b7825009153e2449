"""Issue 38, point 9, in a real browser at 1600 x 1000 and 1280 x 720: on the README's
localhost server, a trace beyond a limit the server's operator set is refused on the Scenario
page, before any Run, in words that name the limit, the setting that changes it and the budget
in force (one person's machine).
Screenshots: ``artifacts/budget_refused_<size>.png``."""

from __future__ import annotations

import pytest

from tests.e2e.harness import DESKTOP, open_scenario_page, screenshot

pytestmark = pytest.mark.e2e
SIZES = {"1600x1000": DESKTOP, "1280x720": {"width": 1280, "height": 720}}


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    """The operator allows 100 jobs a run (the sample trace has 2,000)."""
    return {"GPUSCHED_MAX_JOBS": "100"}


@pytest.mark.parametrize("size", list(SIZES))
def test_a_refused_run_names_the_limit_its_setting_and_the_budget(
    server: str, new_page, size: str
) -> None:
    page = new_page(SIZES[size])
    open_scenario_page(page, server)
    refusal = page.get_by_test_id("stAlert").filter(has_text="GPUSCHED_MAX_JOBS")
    refusal.first.wait_for()
    text = refusal.first.inner_text()
    assert "number of jobs (counted as the trace file's lines, header included" in text, text
    assert '"Use only the first N jobs" lowers it) is 2,001; this server allows at most 100' in text
    assert "in force: the budget of one person's machine" in text, text
    page.wait_for_timeout(1000)
    page.get_by_test_id("stStatusWidgetRunningIcon").wait_for(state="hidden")  # page drawn
    refusal.first.scroll_into_view_if_needed()
    assert page.get_by_test_id("stException").count() == 0
    screenshot(page, f"budget_refused_{size}", whole_page=False)

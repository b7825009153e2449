"""Step through on a projector (1280 x 720): the lesson's story and its moments stand beside
the view, and every policy's decision words are inside the 720-pixel window together, whole
(no box scrolls inside), at every moment of each of the four lessons; a click on a box shows
the decision in full (screenshots ``artifacts/step_projector_<lesson>.png`` and
``step_projector_<lesson>_full.png``)."""

from __future__ import annotations

import pytest

from dashboard.lessons import lesson
from engine.policies.base import display_name
from tests.e2e.harness import open_page, screenshot

pytestmark = pytest.mark.e2e
PROJECTOR = {"width": 1280, "height": 720}


@pytest.fixture
def page(new_page):
    return new_page(PROJECTOR)


def _inside_window(locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PROJECTOR["height"]


@pytest.mark.parametrize("key", ["fifo_hol", "las_starve", "v100", "one_rack"])
def test_the_lesson_and_every_policys_words_fit_a_projector(server: str, page, key: str) -> None:
    chosen = lesson(key)
    page.goto(server)
    open_page(page, "Step through")
    page.get_by_role("button", name=chosen.title).click()
    policies = [display_name(p) for p in chosen.policies]
    page.locator(f'[data-policy="{policies[0]}"]').wait_for()
    page.wait_for_timeout(1000)
    page.get_by_test_id("stStatusWidgetRunningIcon").wait_for(state="hidden")
    from dashboard.decision_words import clock

    story = page.get_by_test_id("stAlert").filter(has_text=chosen.title)
    for moment_s in chosen.moments_s:
        page.get_by_role("button", name=f"{clock(moment_s)} ·").click()
        _wait_time(page, policies[0], moment_s)
        if moment_s == chosen.moments_s[1]:
            screenshot(page, f"step_projector_{key}", whole_page=False)
        assert _inside_window(story), (moment_s, story.bounding_box())
        for i, _ in enumerate(chosen.moments):
            assert _inside_window(page.locator(f".st-key-moment_{i}")), (moment_s, i)
        for policy in policies:
            words = page.locator(f'[data-words="{policy}"]')
            assert _inside_window(words), (moment_s, policy, words.bounding_box())
            assert words.evaluate("e => e.scrollHeight <= e.clientHeight"), (moment_s, policy)
    box = page.locator(f'[data-words="{policies[0]}"]')
    brief = box.inner_text()
    box.locator("summary").click()  # the decision in full, one click away
    full = box.locator(".full")
    full.wait_for()
    assert len(full.inner_text()) > 0 and brief in box.inner_text()
    screenshot(page, f"step_projector_{key}_full", whole_page=False)


def _wait_time(page, policy: str, time_s: float) -> None:
    """Waits until the cluster view of ``policy`` shows the moment ``time_s`` (one copy)."""
    from playwright.sync_api import expect

    view = page.locator(f'[data-policy="{policy}"]')
    expect(view.last).to_have_attribute("data-time-s", repr(time_s))
    expect(view).to_have_count(1)
    page.wait_for_timeout(300)

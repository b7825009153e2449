"""Step through on a projector (1280 x 720): the lesson's story and its moments stand beside
the view, and every policy's decision words are inside the 720-pixel window together, without
scrolling, for each of the four lessons (screenshots ``artifacts/step_projector_<lesson>.png``)."""

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
    moment_s = chosen.moments_s[1]
    from dashboard.decision_words import clock

    page.get_by_role("button", name=f"{clock(moment_s)} ·").click()
    page.wait_for_timeout(1500)
    screenshot(page, f"step_projector_{key}", whole_page=False)
    story = page.get_by_test_id("stAlert").filter(has_text=chosen.title)
    assert _inside_window(story), story.bounding_box()
    for i, _ in enumerate(chosen.moments):
        assert _inside_window(page.locator(f".st-key-moment_{i}")), i
    for policy in policies:
        words = page.locator(f'[data-words="{policy}"]')
        assert _inside_window(words), (policy, words.bounding_box())

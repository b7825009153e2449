"""Step through with policies whose words come from their own explanation alone (issue 36):
Muri-L and Muri-S preempt at 0:18:57 on a small cluster, and each says its own ranking key and
rule, although the dashboard names neither (screenshot ``artifacts/step_words_muri.png``)."""

from __future__ import annotations

import pytest

from dashboard.links import LinkState, encode_link
from engine.config import ClusterSpec, NodeGroup, PolicySpec, ScenarioConfig, TraceSpec
from tests.e2e.harness import screenshot

pytestmark = pytest.mark.e2e
PREEMPTION_S = 1137.0  # Muri-L's and Muri-S's first preemption in this scenario (decision log)
CONFIG = ScenarioConfig(
    trace=TraceSpec(max_jobs=30),
    cluster=ClusterSpec((NodeGroup("v100", 1, 4), NodeGroup("k80", 1, 4))),
    policies=tuple(PolicySpec(name) for name in ("srsf", "muri_l", "hadar", "muri_s")),
)


@pytest.fixture
def page(new_page):
    return new_page({"width": 1280, "height": 720})


def test_each_policy_says_its_own_key_at_a_preemption(server: str, page) -> None:
    link = encode_link(LinkState({"base": CONFIG}, "base"))
    page.goto(f"{server}/?scenario={link}")
    page.get_by_role("heading", name="Results").first.wait_for()
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Step through").click()
    view = page.locator('.cv[data-policy="Muri-L"]')
    view.wait_for()
    page.wait_for_timeout(1500)
    page.get_by_role("heading", name="Step through").first.click()
    for _ in range(60):  # Next event until Muri-L's view shows the preemption's moment
        before = view.get_attribute("data-time-s")
        if float(before or 0.0) >= PREEMPTION_S:
            break
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "([before]) => document.querySelector('.cv[data-policy=\"Muri-L\"]')"
            ".dataset.timeS !== before",
            arg=[before],
        )
    page.wait_for_timeout(800)
    assert float(view.get_attribute("data-time-s") or 0.0) == PREEMPTION_S
    screenshot(page, "step_words_muri", whole_page=False)
    for policy in ("Muri-L", "Muri-S"):  # the brief is shown; a click opens the full words
        page.locator(f'[data-words="{policy}"] summary').click()
        page.locator(f'[data-words="{policy}"] .full').wait_for()
    muri_l = page.locator('[data-words="Muri-L"]').inner_text()
    assert "Muri-L preempted job" in muri_l and "GPU-h attained" in muri_l
    assert "in increasing attained GPU time" in muri_l
    muri_s = page.locator('[data-words="Muri-S"]').inner_text()
    assert "Muri-S preempted job" in muri_s and "GPU-h of work left on its fastest GPUs" in muri_s

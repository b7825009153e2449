"""The Planner's power cap and total cost of ownership in a real browser (issue 34): a link
carries the candidates with their purchase prices; the person types a cap, picks "Total cost
of ownership", plans, and reads which cost it is and each mix's full-load power. Screenshot in
``artifacts/planner_power.png``."""

from __future__ import annotations

import re

import pytest

from dashboard.links import LinkState, encode_link
from dashboard.page_settings import FRAME
from tests.e2e.harness import fill_number, screenshot
from tests.e2e.test_plan_confirm_browser import SMALL

pytestmark = pytest.mark.e2e
TABLE = {FRAME: [
    {"worker_type": "v100", "price_usd_per_gpu_h": 0.74, "max_nodes": 3, "gpus_per_node": 8,
     "max_spares": None, "purchase_usd_per_gpu": 9000.0},
    {"worker_type": "k80", "price_usd_per_gpu_h": 0.135, "max_nodes": 3, "gpus_per_node": 8,
     "max_spares": None, "purchase_usd_per_gpu": 1000.0},
]}  # fmt: skip


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    return {"GPUSCHED_EXECUTOR": "serial"}


def test_a_plan_under_a_power_cap_at_ownership_cost_says_which_cost(server: str, page) -> None:
    study = {"planner": {"plan_candidates": TABLE, "plan_target_jct_mean_s": 300.0,
                         "plan_seeds": 2}}  # fmt: skip
    link = encode_link(LinkState({"base": SMALL}, "base", study=study, page="planner"))
    page.goto(f"{server}/planner?scenario={link}")
    page.get_by_role("heading", name="Planner").first.wait_for()
    fill_number(page, "Facility power cap (kW, 0 = none)", "20")
    page.get_by_label("Cost to minimise").click()  # a Streamlit selectbox: its options list
    page.get_by_role("option", name="Total cost of ownership (USD/h)").click()
    page.wait_for_timeout(800)
    fill_number(page, "Years to spread the purchase over", "3")
    page.get_by_role("button", name="Plan", exact=True).click()
    page.get_by_text(re.compile(r"\d+ simulations in this plan")).wait_for(timeout=600_000)
    page.get_by_text(re.compile(r"Costs below are the total cost of ownership per hour "
                                r"\(purchase over 3 years")).wait_for()  # fmt: skip
    page.get_by_text(re.compile(r"power cap of 20 kW at full load")).wait_for()
    screenshot(page, "planner_power")
    answer = page.get_by_test_id("stAlertContentSuccess").first.inner_text()
    assert "(ownership)" in answer and "kW at full load" in answer, answer
    assert page.get_by_test_id("stException").count() == 0

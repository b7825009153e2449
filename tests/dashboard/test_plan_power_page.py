"""AppTest of the Planner's power cap and total-cost-of-ownership objective (issue 34): every
missing purchase price is named at once, the plan fits the cap, its cost is the hand-computed
ownership cost, the words say which cost it is, and the settings travel in a link."""

from __future__ import annotations

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.test_study_pages import APP, TIMEOUT_S, button, make_app, url_param

V100_NODE_KW, K80_NODE_KW = 3.588, 2.184  # 4 GPUs + node, PUE: engine/data/power_figures.csv
PURCHASE = {"v100": 9000.0, "k80": 1000.0}  # USD per GPU, typed by the user


@pytest.fixture(autouse=True)
def _store(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("GPUSCHED_STORE", str(tmp_path / "store"))
    monkeypatch.setenv("GPUSCHED_EXECUTOR", "serial")


def _planner(purchase: list[float | None]) -> AppTest:
    at = make_app()
    at.switch_page("app_pages/planner.py").run()
    at.session_state["plan_candidates"] = pd.DataFrame({
        "worker_type": ["v100", "k80"], "price_usd_per_gpu_h": [0.74, 0.135],
        "max_nodes": [3, 3], "gpus_per_node": [4, 4], "purchase_usd_per_gpu": purchase,
    })  # fmt: skip
    at.selectbox(key="plan_policy").set_value("FIFO")
    at.number_input(key="plan_target_jct_mean_s").set_value(300.0)
    at.number_input(key="plan_seeds").set_value(2)
    at.number_input(key="plan_power_cap_kw").set_value(12.0)
    at.selectbox(key="plan_objective").set_value("ownership").run()  # enables the two below
    at.number_input(key="plan_years").set_value(3.0)
    return at.number_input(key="plan_electricity_usd_per_kwh").set_value(0.12).run()


def test_every_missing_purchase_price_is_named_at_once() -> None:
    at = _planner([None, None])
    assert not at.exception
    errors = [e.value for e in at.error]
    assert any("purchase price (USD per GPU) for v100, k80" in e for e in errors), errors


def test_a_plan_under_a_cap_at_ownership_cost_fits_and_says_so() -> None:
    at = _planner([PURCHASE["v100"], PURCHASE["k80"]])
    assert not at.error, [e.value for e in at.error]
    button(at, "run_plan").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    chosen = at.session_state["plan_result"].chosen_row
    assert chosen is not None
    v, k = chosen["nodes:v100"], chosen["nodes:k80"]
    kw = v * V100_NODE_KW + k * K80_NODE_KW
    assert chosen["power_full_kw"] == pytest.approx(kw) and kw <= 12.0
    owned = 4 * (v * PURCHASE["v100"] + k * PURCHASE["k80"]) / (3 * 8760) + kw * 0.12
    assert chosen["cost_usd_per_h"] == pytest.approx(owned)
    words = " ".join(c.value for c in at.caption) + " ".join(s.value for s in at.success)
    assert "total cost of ownership per hour (purchase over 3 years" in words
    assert "kW at full load" in words and "power cap of 12 kW" in words
    table = at.dataframe[-1].value  # [0] is the candidates editor
    assert "power_full_kw" in table.columns
    refused = table[table["error"].str.contains("over the power cap", na=False)]
    assert len(refused) >= 1  # e.g. 3 V100 + 1 K80 nodes: 12.9 kW


def test_the_cap_and_objective_travel_in_the_link() -> None:
    at = _planner([PURCHASE["v100"], PURCHASE["k80"]])
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    fresh.query_params["scenario"] = url_param(at, "scenario")
    fresh.run()
    assert not fresh.exception
    assert fresh.number_input(key="plan_power_cap_kw").value == 12.0
    assert fresh.selectbox(key="plan_objective").value == "ownership"
    assert fresh.number_input(key="plan_years").value == 3.0
    assert fresh.number_input(key="plan_electricity_usd_per_kwh").value == 0.12
    carried = fresh.session_state["plan_candidates"]
    assert list(carried["purchase_usd_per_gpu"]) == [9000.0, 1000.0]


def test_the_default_electricity_price_is_the_cited_eia_figure() -> None:
    at = make_app()
    at.switch_page("app_pages/planner.py").run()
    field = at.number_input(key="plan_electricity_usd_per_kwh")
    assert field.value == pytest.approx(0.0806)  # US EIA, Electric Power Annual 2023
    assert "8.06 cents/kWh (US EIA, Electric Power Annual 2023)" in field.help

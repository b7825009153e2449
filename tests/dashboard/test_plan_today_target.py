"""AppTest of the Planner's default target (issue 38.3): left blank, it is today's cluster's own
value on the plan's seeds, so the first plan asks for the cheapest mix as good as today's; the
page says so, and today's metric carries no arrow (its old "delta" compared nothing)."""

from __future__ import annotations

import pandas as pd
import pytest

from engine.study.planner import today_value
from engine.study.store import default_results_dir
from tests.dashboard.test_study_pages import button, make_app


@pytest.fixture(autouse=True)
def _store(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("GPUSCHED_STORE", str(tmp_path / "store"))
    monkeypatch.setenv("GPUSCHED_EXECUTOR", "serial")


def test_a_blank_target_is_todays_value_and_the_page_says_so() -> None:
    at = make_app()
    at.switch_page("app_pages/planner.py").run()
    field = at.number_input(key="plan_target_jct_mean_s")
    assert field.value is None and "today's cluster's own value" in field.help
    at.session_state["plan_candidates"] = pd.DataFrame({
        "worker_type": ["v100", "k80"], "price_usd_per_gpu_h": [0.74, 0.135],
        "max_nodes": [3, 3], "gpus_per_node": [4, 4],
    })  # fmt: skip
    at.selectbox(key="plan_policy").set_value("FIFO")
    at.number_input(key="plan_seeds").set_value(2).run()
    button(at, "run_plan").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    result = at.session_state["plan_result"]
    # today's bound over the plan's own seeds (the plan may add seeds to today's row after)
    again = today_value(result.spec, executor="serial", results_dir=default_results_dir())
    assert result.spec.target_value == pytest.approx(again) and result.today["seeds"] >= 2
    assert any(h.value.endswith("(today's value)") for h in at.subheader)
    words = " ".join(c.value for c in at.caption)
    assert "as far as the plan's 2 seeds tell: we are 95% sure today's average is below" in words
    mean_h = result.today["mean"] / 3600  # the caption also gives today's average, unrounded
    assert f"its average over them is {mean_h:.2f} h" in words and "bound is loose" in words
    assert result.today["meets"] and result.chosen_row is not None
    today = next(m for m in at.metric if m.label == "Today's cluster")
    assert today.value.endswith("USD/h") and not today.proto.delta


def test_the_2026_clusters_candidates_have_8_gpus_per_node_as_an_hgx_board() -> None:
    # HGX H100 / H200 / B200 boards and an MI300X platform hold 8 GPUs (NVIDIA and AMD data
    # sheets); the table takes today's node size for today's types and 8 for the others
    from dashboard.components.plan_prices import default_candidates
    from engine.presets import cluster_2026_scenario

    table = default_candidates(cluster_2026_scenario()).set_index("worker_type")
    assert dict(table["gpus_per_node"]) == {"H100-SXM": 8, "B200": 8, "H200-SXM": 8, "MI300X": 8}
    assert dict(table["max_nodes"]) == {"H100-SXM": 128, "B200": 64, "H200-SXM": 64, "MI300X": 64}


def test_a_missing_price_has_a_field_whose_number_goes_into_the_table() -> None:
    at = make_app()
    at.switch_page("app_pages/planner.py").run()
    at.session_state["plan_candidates"] = pd.DataFrame({
        "worker_type": ["v100", "k80"], "price_usd_per_gpu_h": [0.74, float("nan")],
        "max_nodes": [3, 3], "gpus_per_node": [4, 4],
    })  # fmt: skip
    at.run()
    assert any("Enter a price (USD per GPU-hour) for k80 in the fields above" in e.value
               for e in at.error)  # fmt: skip
    field = at.number_input(key="plan_fill:price_usd_per_gpu_h:k80")
    assert field.label == "Price of k80 (USD per GPU-hour)" and field.value is None
    field.set_value(0.2).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert list(at.session_state["plan_candidates"]["price_usd_per_gpu_h"]) == [0.74, 0.2]
    assert not any(n.key == "plan_fill:price_usd_per_gpu_h:k80" for n in at.number_input)


def test_a_blank_cell_of_the_candidates_table_shows_blank_not_none() -> None:
    # Issue 38.10: Streamlit's editor writes "None" in a missing value unless told otherwise;
    # the 2026 cluster's table has blank prices (no public list price) and blank spares
    at = make_app()
    at.switch_page("app_pages/planner.py").run()
    at.session_state["plan_candidates"] = pd.DataFrame({
        "worker_type": ["v100", "k80"], "price_usd_per_gpu_h": [0.74, float("nan")],
        "max_nodes": [3, 3], "gpus_per_node": [4, 4],
    })  # fmt: skip
    at.run()
    editors = [d for d in at.dataframe if "price_usd_per_gpu_h" in d.proto.column_order]
    assert len(editors) == 1 and editors[0].proto.HasField("placeholder")
    assert editors[0].proto.placeholder == ""

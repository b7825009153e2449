"""The mlperf matrix in the dashboard: the 2026 cluster button, the Matrix page, the planner's
candidates and prices (AppTest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
TIMEOUT_S = 180


@pytest.fixture(autouse=True)
def _store(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("GPUSCHED_STORE", str(tmp_path / "store"))


def _app_with_2026_cluster() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    next(b for b in at.button if b.key == "load_2026").click().run()
    return at


def test_the_2026_button_loads_the_mlperf_scenario_and_its_editable_mix() -> None:
    at = _app_with_2026_cluster()
    assert not at.exception and not at.error
    scenarios = at.session_state["scenarios"]
    assert list(scenarios) == ["base", "2026 cluster (MLPerf)"]  # added, not replacing base
    assert at.session_state["current_scenario"] == "2026 cluster (MLPerf)"
    assert scenarios["base"].throughputs == "gavel"
    config = scenarios["2026 cluster (MLPerf)"]
    assert config.throughputs == "mlperf"
    assert config.cluster.capacity() == {"H100-SXM": 512, "B200": 256}
    assert [p.name for p in config.policies] == ["fifo", "las", "gavel_maxmin"]
    assert config.trace.synthetic.workload == "llm"
    assert config.trace.assumed_worker_type == "H100-SXM"
    classes = at.session_state["llm_classes"]
    assert list(classes["name"]) == ["small", "fine-tune", "pre-training"]


def test_a_blank_cell_of_the_job_mix_is_named() -> None:
    at = _app_with_2026_cluster()
    classes = at.session_state["llm_classes"].copy()
    classes.loc[1, "max_gpus"] = None
    at.session_state["llm_classes"] = classes
    at.session_state["table_version"] = at.session_state["table_version"] + 1
    at.run()
    assert any("job mix row 2: column 'max_gpus' is empty" in e.value for e in at.error)


def test_matrix_page_shows_times_curves_provenance_and_uncited_prices() -> None:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    at.switch_page("app_pages/matrix.py").run()
    assert not at.exception
    table = at.dataframe[0].value
    assert table.loc["llama2_70b_lora", "H100-SXM"] == "0.49"  # 1780.225 s
    assert table.loc["bert", "MI300X"] == "not runnable"
    assert table.loc["llama31_405b", "H100-SXM"].endswith("*")  # measured from 512 GPUs up
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert spec["layout"]["title"]["text"].startswith("llama2_70b_lora: time to train")
    sources = at.dataframe[1].value
    row = sources[(sources["worker_type"] == "H100-SXM") & (sources["accelerators"] == 8)]
    assert "v4.1 NVIDIA" in row["sources"].iloc[0] and row["submitters"].iloc[0] == 10
    assert any("No citable public price for" in w.value and "B200" in w.value for w in at.warning)


def test_planner_offers_h100_h200_b200_mi300x_and_asks_for_uncited_prices() -> None:
    at = _app_with_2026_cluster()
    at.switch_page("app_pages/planner.py").run()
    candidates = at.session_state["plan_candidates:mlperf"]
    # today's GPU types (the 2026 cluster's H100 and B200) first, then the other candidates
    assert list(candidates["worker_type"]) == ["H100-SXM", "B200", "H200-SXM", "MI300X"]
    assert candidates["price_usd_per_gpu_h"].iloc[0] == pytest.approx(4.916)
    # every missing price at once, in plain words, never "row 2 (B200): no price"
    words = [e.value for e in at.error]
    assert any(w.startswith("Enter a price (USD per GPU-hour) for B200, MI300X") for w in words), (
        words
    )
    assert not any("no price" in w for w in words), words
    assert any("2025-01-01" in c.value for c in at.caption)

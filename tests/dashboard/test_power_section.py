"""The power layer in the dashboard: the Results page's "Power and energy" section (its panel,
KPIs and chart), the GPU mix's facility power beside its cost, and the 2026 cluster's."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.charts_power import bin_width_s, binned_mean_kw, make_facility_power
from dashboard.components.power_section import cluster_power_text, shown_power_table
from engine.config import ClusterSpec, NodeGroup
from engine.errors import ConfigError
from engine.power.model import PowerSpec
from engine.presets import cluster_2026_scenario
from tests.dashboard.fakes import fake_comparison

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")


def _results_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.session_state["result"] = fake_comparison(("fifo", "las"), n_jobs=30)
    return at.switch_page("app_pages/results.py").run()


def _energy_mwh_or_kwh(at: AppTest) -> pd.Series:
    frame = next(df for df in at.dataframe if "Facility energy" in " ".join(df.value.columns))
    return frame.value.filter(like="Facility energy").iloc[:, 0]


def test_results_page_shows_the_power_section_and_follows_the_pue() -> None:
    at = _results_page()
    assert not at.exception
    assert "Power and energy" in [h.value for h in at.subheader]
    charts = [c for c in at.get("plotly_chart") if "Facility power" in c.proto.spec]
    assert len(charts) == 1
    energy = _energy_mwh_or_kwh(at)
    at.number_input(key="power_pue").set_value(2.34).run()  # 1.5 x the default 1.56
    assert not at.exception
    assert (_energy_mwh_or_kwh(at) / energy).tolist() == pytest.approx([1.5, 1.5])


def test_the_panel_starts_at_the_scenarios_own_pue_and_keeps_an_edit() -> None:
    at = AppTest.from_file(APP, default_timeout=120).run()
    result = fake_comparison(("fifo", "las"), n_jobs=30)
    own = dataclasses.replace(result.config, power=PowerSpec(pue=1.2))
    at.session_state["result"] = dataclasses.replace(result, config=own)
    at = at.switch_page("app_pages/results.py").run()
    assert not at.exception
    assert at.number_input(key="power_pue").value == pytest.approx(1.2)
    at.number_input(key="power_pue").set_value(1.4).run()
    assert at.number_input(key="power_pue").value == pytest.approx(1.4)  # the edit holds
    at.session_state["result"] = result  # a scenario without its own power spec
    at.run()
    assert at.number_input(key="power_pue").value == pytest.approx(PowerSpec().pue)


def test_the_default_mix_shows_its_full_load_power_beside_its_cost() -> None:
    # 24 V100 nodes x (8 x 300 + 1,100) + 24 P100 x (8 x 300 + 800) + 16 K80 x (8 x 150 + 800)
    # = 84.0 + 76.8 + 32.0 = 192.8 kW of IT; x 1.56 = 300.8 kW; 7.2 MWh a day.
    # Rent: 192 x 0.74 + 192 x 0.43 + 128 x 0.135 = 241.92 USD/h.
    at = AppTest.from_file(APP, default_timeout=120).run()
    captions = " ".join(c.value for c in at.caption)
    assert "**301 kW** facility power at PUE 1.56, **7.2 MWh a day** · rental 242 USD/h" in (
        captions
    )


def test_the_2026_cluster_says_its_power_when_loaded() -> None:
    # 64 x 10.2 + 32 x 14.3 = 1,110.4 kW of IT; x 1.56 = 1,732.2 kW; 41.6 MWh a day.
    at = AppTest.from_file(APP, default_timeout=120).run()
    next(b for b in at.button if b.key == "load_2026").click().run()
    shown = " ".join(s.value for s in at.success)
    assert "Every GPU busy: 1,732 kW facility power at PUE 1.56, 41.6 MWh a day" in shown
    assert "B200: no citable price" in shown


def test_a_type_without_figures_is_named() -> None:
    cluster = ClusterSpec((NodeGroup("a100", 2, 8),))
    with pytest.raises(ConfigError, match="no gpu_full_w figure for worker type 'a100'"):
        cluster_power_text(cluster, PowerSpec())


def test_big_columns_read_in_mwh_mw_and_t() -> None:
    table = pd.DataFrame({
        "energy_kwh": [2500.0, 900.0], "energy_per_job_kwh": [10.0, 5.0],
        "power_peak_kw": [2500.0, 800.0], "power_mean_kw": [90.0, 80.0], "co2e_kg": [1200.0, 1.0],
    }, index=["fifo", "las"])  # fmt: skip
    shown = shown_power_table(table)
    assert shown["Facility energy (MWh) ↓"].tolist() == [2.5, 0.9]
    assert shown["Energy per completed job (kWh) ↓"].tolist() == [10.0, 5.0]
    assert shown["Peak facility power (MW) ↓"].tolist() == [2.5, 0.8]  # MW from 2,000 kW
    assert shown["Mean facility power (MW) ↓"].tolist() == [0.09, 0.08]  # the peak's unit
    assert "Peak facility power (kW) ↓" in shown_power_table(table.assign(power_peak_kw=1999.0))
    assert shown["CO2e (t) ↓"].tolist() == [1.2, 0.001]


def test_the_chart_has_one_line_per_policy_in_its_color_and_the_ceiling() -> None:
    series = {
        "FIFO": pd.DataFrame({"time_s": [0.0, 3600.0], "facility_kw": [3000.0, 1000.0]}),
        "LAS": pd.DataFrame({"time_s": [0.0], "facility_kw": [2000.0]}),
    }
    figure = make_facility_power(series, {"FIFO": "#0072B2", "LAS": "#E69F00"}, 7200.0, 4000.0)
    lines = {t.name: t for t in figure.data}
    assert lines["FIFO"].line.color == "#0072B2" and lines["LAS"].line.color == "#E69F00"
    # 2 h in 1-minute bins (120 <= 300): 3 MW for the first 60, then 1 MW; x in hours.
    assert list(lines["FIFO"].y) == [3.0] * 60 + [1.0] * 61
    assert lines["FIFO"].x[60] == pytest.approx(1.0) and lines["FIFO"].x[-1] == pytest.approx(2.0)
    assert figure.layout.yaxis.title.text == "Facility power (MW)"
    assert "every GPU busy: 4.00 MW" in figure.layout.annotations[0].text
    assert "mean over each 60 s" in figure.layout.title.text


def test_the_binned_mean_is_the_energy_in_each_bin_over_its_width() -> None:
    # 3,000 kW until 3,600 s, then 1,000 kW. Bins [0, 1800, 5400, 7200]: 3,000; half an hour
    # at each level: 2,000; 1,000.
    rows = pd.DataFrame({"time_s": [0.0, 3600.0], "facility_kw": [3000.0, 1000.0]})
    edges = np.array([0.0, 1800.0, 5400.0, 7200.0])
    assert binned_mean_kw(rows, edges).tolist() == pytest.approx([3000.0, 2000.0, 1000.0])
    assert bin_width_s(4.3 * 86400) == 1800.0  # 207 half-hours; 413 quarter-hours is too many


def test_a_scenarios_own_power_spec_keeps_its_figures() -> None:
    config = dataclasses.replace(cluster_2026_scenario(), power=PowerSpec(busy_power_factor=0.5))
    half = cluster_power_text(config.cluster, config.power or PowerSpec())
    # 64 x (8 x 350 + 4,600) + 32 x (8 x 500 + 6,300) = 473.6 + 329.6 = 803.2 kW; x 1.56
    assert "**1,253 kW**" in half

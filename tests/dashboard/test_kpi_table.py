"""The KPI table: headers from METRICS, one unit per duration column, best values marked."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from dashboard.components.kpi_table import BEST_STYLE, best_mask, column_format, kpi_styler


def test_best_value_follows_lower_is_better() -> None:
    kpi = pd.DataFrame(
        {"jct_mean_s": [100.0, 50.0], "utilization_mean": [0.4, 0.8], "jain_index": [0.9, 0.9]},
        index=["fifo", "las"],
    )
    mask = best_mask(kpi)
    assert list(mask["jct_mean_s"]) == [False, True]
    assert list(mask["utilization_mean"]) == [False, True]
    assert not mask["jain_index"].any()  # a tie marks nothing


def test_duration_columns_share_one_unit() -> None:
    header, fmt = column_format("jct_mean_s", pd.Series([7200.0, 36000.0]))
    assert header == "Mean JCT (h) ↓"
    assert fmt(5400.0) == "1.5"


def test_styler_has_one_row_per_policy_and_shades_the_best(comparison) -> None:
    styler = kpi_styler(comparison.kpi_table())
    assert list(styler.data.index) == ["fifo", "las"]
    assert "Mean JCT" in styler.data.columns[0]
    assert BEST_STYLE.split(";")[0] in styler.to_html()


def test_consolidation_wait_shows_only_when_some_policy_delays() -> None:
    kpi = pd.DataFrame(
        {"jct_mean_s": [100.0, 50.0], "consolidation_wait_mean_s": [0.0, 0.0]},
        index=["fifo", "las"],
    )
    assert not any("consolidation" in c for c in kpi_styler(kpi).data.columns)
    kpi["consolidation_wait_mean_s"] = [0.0, 600.0]
    assert any("consolidation wait" in c for c in kpi_styler(kpi).data.columns)


def test_duration_columns_keep_one_unit_whatever_the_values() -> None:
    from dashboard.components.kpi_table import column_format

    for values in (pd.Series([30.0, 50.0]), pd.Series([3e6, 5e6])):
        header, fmt = column_format("jct_mean_s", values)
        assert header.startswith("Mean JCT (h)")
    assert column_format("makespan_s", pd.Series([60.0]))[0].startswith("Makespan (d)")
    header, fmt = column_format("queueing_delay_mean_s", pd.Series([90.0]))
    assert header.startswith("Mean queueing delay (min)") and fmt(90.0) == "1.5"


def test_kpi_csv_headers_say_the_unit(comparison) -> None:
    from dashboard.components.kpi_table import kpi_csv

    kpi = comparison.kpi_table()
    frame = pd.read_csv(io.StringIO(kpi_csv(kpi)), index_col=0)
    assert {"jct_mean_h", "makespan_d", "queueing_delay_mean_min"} <= set(frame.columns)
    expected = kpi["jct_mean_s"].iloc[0] / 3600
    assert frame["jct_mean_h"].iloc[0] == pytest.approx(expected, abs=1e-6)

"""The KPI table: headers from METRICS, one unit per duration column, best values marked."""

from __future__ import annotations

import pandas as pd

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

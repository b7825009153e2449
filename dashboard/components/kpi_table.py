"""The KPI table for a planning meeting: one row per policy, humane units, best value marked."""

from __future__ import annotations

import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from dashboard.formatting import human_number
from engine.metrics import METRICS
from engine.results import ComparisonResult

BEST_STYLE = "background-color: #d8f0dc; font-weight: 700"


def header(metric: str) -> str:
    """Column header of a metric: its label, its unit when cells do not show one, and an arrow."""
    spec = METRICS[metric]
    unit = f" ({spec.unit})" if spec.unit in ("ratio", "0..1") else ""
    return f"{spec.label}{unit} {'↓' if spec.lower_is_better else '↑'}"


def best_mask(kpi: pd.DataFrame) -> pd.DataFrame:
    """True where a cell holds the best value of its metric column (ties all marked)."""
    mask = pd.DataFrame(False, index=kpi.index, columns=kpi.columns)
    for metric in kpi.columns:
        values = pd.to_numeric(kpi[metric], errors="coerce")
        if metric not in METRICS or values.isna().all() or values.nunique() < 2:
            continue
        best = values.min() if METRICS[metric].lower_is_better else values.max()
        mask[metric] = values == best
    return mask


def kpi_styler(kpi: pd.DataFrame) -> Styler:
    """``ComparisonResult.kpi_table()`` with METRICS headers, humane cells, best values shaded."""
    metrics = [m for m in METRICS if m in kpi.columns]
    mask = best_mask(kpi[metrics]).rename(columns=header)
    shown = kpi[metrics].rename(columns=header)
    formats = {header(m): (lambda v, u=METRICS[m].unit: human_number(v, u)) for m in metrics}
    return shown.style.format(formats).apply(
        lambda col: [BEST_STYLE if flag else "" for flag in mask[col.name]], axis=0
    )


def render_kpi_table(kpi: pd.DataFrame) -> None:
    """The styled KPI table with a legend line."""
    st.dataframe(kpi_styler(kpi), key="kpi_table")
    st.caption(
        "↓ lower is better · ↑ higher is better · the best policy per column is shaded green."
    )


def render_downloads(result: ComparisonResult) -> None:
    """CSV downloads of the KPI table and of the per-job results (with a policy column)."""
    left, right = st.columns(2)
    left.download_button(
        "Download KPI table (CSV)", result.kpi_table().to_csv(), file_name="kpis.csv",
        mime="text/csv",
    )  # fmt: skip
    jobs = result.combined("jobs")
    right.download_button(
        "Download per-job results (CSV)", jobs.to_csv(index=False), file_name="jobs.csv",
        mime="text/csv",
    )  # fmt: skip

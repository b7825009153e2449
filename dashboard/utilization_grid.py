"""Small multiples of utilization: one small panel per policy, all on the same axes.

With many policies, one full-size chart per policy makes a page thousands of pixels tall; a grid
of small panels (busy GPUs over time, all types together) shows every policy at a glance, and the
page shows the full stacked-by-type chart only for the policies picked.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.chart_style import style
from dashboard.charts import focused_grid, step_values
from dashboard.formatting import time_unit

COLUMNS = 4
PANEL_PX = 170


def total_busy(utilization: pd.DataFrame, grid: np.ndarray) -> np.ndarray:
    """Busy GPUs of all worker types together at the times of ``grid`` (s)."""
    total = np.zeros_like(grid)
    for _, rows in utilization.sort_values("time_s").groupby("worker_type", sort=True):
        times, busy = rows["time_s"].to_numpy(float), rows["busy_gpus"].to_numpy(float)
        total += step_values(times, busy, grid)
    return total


def make_utilization_grid(
    utilization_all: pd.DataFrame,
    colors: Mapping[str, str],
    end_s: float,
    focus_end_s: float,
    points: int = 400,
) -> go.Figure:
    """One panel per policy (in ``colors`` order): busy GPUs over time, capacity dashed.

    Args:
        utilization_all: ``ComparisonResult.combined("utilization")`` (with a ``policy`` column).
        colors: policy -> color; sets the panel order.
        end_s, focus_end_s: end of the data and of the initially shown range (s), shared.
    """
    policies = list(colors)
    rows = max(1, math.ceil(len(policies) / COLUMNS))
    fig = make_subplots(
        rows=rows, cols=COLUMNS, shared_xaxes=True, shared_yaxes=True,
        subplot_titles=policies, vertical_spacing=0.5 / max(rows, 1) / 2, horizontal_spacing=0.03,
    )  # fmt: skip
    unit, scale = time_unit(focus_end_s)
    grid = focused_grid(focus_end_s, end_s, points)
    capacity = float(
        utilization_all.groupby("worker_type")["capacity_gpus"].first().sum()
        if len(utilization_all)
        else 0.0
    )
    for i, policy in enumerate(policies):
        rows_of = utilization_all[utilization_all["policy"] == policy]
        row, col = i // COLUMNS + 1, i % COLUMNS + 1
        fig.add_trace(
            go.Scatter(
                x=grid / scale, y=total_busy(rows_of, grid), mode="lines", fill="tozeroy",
                line={"shape": "hv", "color": colors[policy], "width": 1.5}, name=policy,
                hovertemplate=f"{policy}: %{{y:.0f}} GPUs busy at %{{x:,.2f}} {unit}"
                "<extra></extra>",
            ),
            row=row, col=col,
        )  # fmt: skip
        fig.add_hline(
            y=capacity, line={"dash": "dash", "color": "#444", "width": 1}, row=row, col=col
        )
    fig.update_xaxes(range=[0, focus_end_s / scale])
    fig.update_yaxes(range=[0, capacity * 1.1 if capacity else 1])
    fig.update_annotations(font_size=13)
    fig.update_layout(showlegend=False)
    style(fig, f"GPUs busy over time (all types; dashed: {capacity:.0f} GPUs), x in {unit}")
    fig.update_layout(height=rows * PANEL_PX + 110, margin={"l": 50, "r": 20, "t": 90, "b": 40})
    return fig

"""Pure chart builders for the power layer (:mod:`engine.power`): facility power over time.

One line per policy in the policies' colors (:func:`dashboard.chart_style.policy_colors`), a step
function on the time axis's readable unit, and the cluster at full load as a dashed ceiling.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.chart_style import height_for, style
from dashboard.charts import step_values
from dashboard.formatting import time_unit

MW_FROM_KW = 2000.0
"""[R] A power axis reads in MW from 2,000 kW up (a data hall's unit), in kW below."""


def power_unit(largest_kw: float) -> tuple[str, float]:
    """("MW", 1000.0) for a largest value of at least :data:`MW_FROM_KW` kW, else ("kW", 1.0)."""
    return ("MW", 1000.0) if largest_kw >= MW_FROM_KW else ("kW", 1.0)


def make_facility_power(
    series: Mapping[str, pd.DataFrame],
    colors: Mapping[str, str],
    end_s: float,
    full_load_kw: float | None = None,
    max_points: int = 2000,
) -> go.Figure:
    """Facility power over time, one step line per policy.

    Args:
        series: policy -> its :func:`engine.power.energy.power_series` (time_s, facility_kw).
        colors: policy -> color; also fixes the trace order.
        end_s: the end of the time axis (s): the last policy's makespan, so the lines line up.
        full_load_kw: the cluster with every GPU busy (kW), drawn as a dashed line; None: none.
        max_points: a line longer than this is sampled on a uniform grid of this many points.
    """
    largest = max([full_load_kw or 0.0, *(float(s["facility_kw"].max()) for s in series.values())])
    p_unit, p_scale = power_unit(largest)
    t_unit, t_scale = time_unit(end_s)
    fig = go.Figure()
    for policy, color in colors.items():
        rows = series.get(policy)
        if rows is None or rows.empty:
            continue
        times, kw = _shown(rows, end_s, max_points)
        fig.add_trace(
            go.Scatter(
                x=times / t_scale, y=kw / p_scale, name=policy, mode="lines",
                line={"color": color, "width": 2.5, "shape": "hv"},
                hovertemplate=f"{policy}: %{{y:,.2f}} {p_unit} at %{{x:,.2f}} {t_unit}"
                "<extra></extra>",
            )
        )  # fmt: skip
    if full_load_kw:
        fig.add_hline(
            y=full_load_kw / p_scale, line={"dash": "dash", "color": "#444"},
            annotation_text=f"every GPU busy: {full_load_kw / p_scale:,.2f} {p_unit}",
            annotation_position="bottom right",
        )  # fmt: skip
    fig.update_xaxes(title=f"Simulated time ({t_unit})", range=[0, end_s / t_scale])
    fig.update_yaxes(title=f"Facility power ({p_unit})", range=[0, largest / p_scale * 1.1 or 1])
    return style(fig, "Facility power over time", height_for(len(colors), 420))


def _shown(rows: pd.DataFrame, end_s: float, max_points: int) -> tuple[np.ndarray, np.ndarray]:
    """The step rows up to ``end_s`` with a last point at ``end_s``; sampled on a uniform grid
    when there are more than ``max_points``."""
    times = rows["time_s"].to_numpy(float)
    kw = rows["facility_kw"].to_numpy(float)
    keep = times <= end_s
    times, kw = times[keep], kw[keep]
    if times.size > max_points:
        grid = np.linspace(0.0, end_s, max_points)
        return grid, step_values(times, kw, grid)
    return np.append(times, end_s), np.append(kw, kw[-1] if kw.size else 0.0)

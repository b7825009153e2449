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
from dashboard.formatting import human_duration, time_unit

BIN_WIDTHS_S = (60.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0, 21600.0, 43200.0, 86400.0)
MAX_BINS = 300
"""[R] The chart shows each policy's power averaged over bins of the smallest of these widths
that cuts the run into at most :data:`MAX_BINS`: a policy that re-plans every round flips
between power levels many times an hour, and its raw step line paints a solid band over the
others. The peak KPI keeps the exact step function."""
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
) -> go.Figure:
    """Facility power over time, one line per policy: its mean over each bin
    (:func:`bin_width_s`), drawn as steps.

    Args:
        series: policy -> its :func:`engine.power.energy.power_series` (time_s, facility_kw).
        colors: policy -> color; also fixes the trace order.
        end_s: the end of the time axis (s): the last policy's makespan, so the lines line up.
        full_load_kw: the cluster with every GPU busy (kW), drawn as a dashed line; None: none.
    """
    largest = max([full_load_kw or 0.0, *(float(s["facility_kw"].max()) for s in series.values())])
    p_unit, p_scale = power_unit(largest)
    t_unit, t_scale = time_unit(end_s)
    width_s = bin_width_s(end_s)
    edges = np.arange(0.0, end_s + width_s, width_s)
    fig = go.Figure()
    for policy, color in colors.items():
        rows = series.get(policy)
        if rows is None or rows.empty:
            continue
        kw = binned_mean_kw(rows, edges)
        fig.add_trace(
            go.Scatter(
                x=edges / t_scale, y=np.append(kw, kw[-1:]) / p_scale, name=policy, mode="lines",
                line={"color": color, "width": 2.5, "shape": "hv"},
                hovertemplate=f"{policy}: %{{y:,.2f}} {p_unit} at %{{x:,.2f}} {t_unit}"
                "<extra></extra>",
            )
        )  # fmt: skip
    if full_load_kw:
        fig.add_hline(
            y=full_load_kw / p_scale, line={"dash": "dash", "color": "#444"},
            annotation_text=f"every GPU busy: {full_load_kw / p_scale:,.2f} {p_unit}",
            annotation_position="top left",
        )  # fmt: skip
    fig.update_xaxes(title=f"Simulated time ({t_unit})", range=[0, end_s / t_scale])
    fig.update_yaxes(title=f"Facility power ({p_unit})", range=[0, largest / p_scale * 1.1 or 1])
    bin_text = human_duration(width_s)
    return style(
        fig, f"Facility power over time (mean over each {bin_text})", height_for(len(colors), 420)
    )


def bin_width_s(end_s: float) -> float:
    """The smallest of :data:`BIN_WIDTHS_S` that cuts [0, end_s] into at most
    :data:`MAX_BINS` bins (the largest for a longer run)."""
    fitting = [w for w in BIN_WIDTHS_S if end_s / w <= MAX_BINS]
    return fitting[0] if fitting else BIN_WIDTHS_S[-1]


def binned_mean_kw(rows: pd.DataFrame, edges: np.ndarray) -> np.ndarray:
    """The time-weighted mean of a power step series (time_s, facility_kw) between each pair
    of consecutive ``edges`` (s): the energy in the bin over its width."""
    times = rows["time_s"].to_numpy(float)
    kw = rows["facility_kw"].to_numpy(float)
    cumulative = np.concatenate([[0.0], np.cumsum(np.diff(times) * kw[:-1])])
    index = np.clip(np.searchsorted(times, edges, side="right") - 1, 0, None)
    energy = cumulative[index] + kw[index] * (edges - times[index])
    return np.diff(energy) / np.diff(edges)

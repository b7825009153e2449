"""The Planner page's chart: cost against the target metric of every cluster evaluated, today's
cluster and the chosen mix marked, the Pareto front, the region that meets the target shaded.

Each mix is drawn where it is judged (issue 38 point 4): at its one-sided bound at the plan's
confidence (``bound``; a mix meets the target exactly when that bound is inside the shaded
band), with its mean over seeds as a lighter mark joined to it. A mix run on one seed has no
bound; it is drawn only as a lighter mean mark, and judged as missing.

The y axis is kept readable near the target: it spans the target, today's cluster and the
chosen mix with some room (:func:`y_range`); clusters beyond it are drawn on its edge as
triangles and counted in the legend, and keep their exact values in the table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.chart_style import style
from engine.study.planner_target import Target

RIGHT_LEGEND = {"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1, "yanchor": "top"}
MEETS, MISSES, TODAY, CHOSEN = "#009E73", "#9E9E9E", "#000000", "#D55E00"


def y_range(target: Target, rows: list[Mapping[str, Any]]) -> tuple[float, float]:
    """The y range in display units: for "at most" targets from 0 to the largest of twice the
    target and 1.15 x the bounds of ``rows`` (today's cluster, the chosen mix); for the share,
    from 100% down to three times the target's distance from 100%, or below those rows; against
    today's, +- three times the largest of those bounds and means, the margin and a quarter
    unit (today's own difference is 0, so the chosen mix's mean keeps it on the chart)."""
    shown = [float(r["bound"]) / target.per_unit for r in rows
             if r and not math.isnan(r["bound"])]  # fmt: skip
    goal = target.goal / target.per_unit
    if target.versus_today:  # differences from today's, around 0: three times the widest [R]
        means = [float(r["mean"]) / target.per_unit for r in rows
                 if r and not math.isnan(r["mean"])]  # fmt: skip
        spread = 3 * max([abs(v) for v in shown + means] + [abs(goal), 0.25])
        return -spread, spread
    if target.at_most:
        return 0.0, max([2 * goal] + [1.15 * v for v in shown])
    low = min([100 - 3 * (100 - goal)] + [v - 5 for v in shown])
    return max(0.0, low), 100.5


def make_plan_chart(
    tried: pd.DataFrame,
    pareto: pd.DataFrame,
    target: Target,
    today: Mapping[str, Any],
    chosen: Mapping[str, Any] | None,
) -> go.Figure:
    """Cost per hour (x) against the metric's bound in its display unit (y), the mean lighter."""
    unit = target.per_unit
    low, high = y_range(target, [today, chosen] if chosen else [today])
    goal = target.goal / unit
    fig = go.Figure()
    band = (low, goal) if target.at_most else (goal, high)
    fig.add_hrect(y0=band[0], y1=band[1], fillcolor="rgba(0,158,115,0.10)", line_width=0,
                  annotation_text="meets the target", annotation_position="top left")  # fmt: skip
    fig.add_hline(y=goal, line_dash="dash", line_color=MEETS,
                  annotation_text=f"target {target.words(target.goal)}",
                  annotation_position="bottom right")  # fmt: skip
    runs = tried[tried["mean"].notna()]
    _means(fig, runs, unit, target, (low, high))
    judged = runs[runs["bound"].notna()]
    for meets, name, color in ((True, "meets the target", MEETS), (False, "misses it", MISSES)):
        _points(fig, judged[judged["meets"] == meets], name, color, unit, target, (low, high))
    fig.add_trace(go.Scatter(
        x=pareto["cost_usd_per_h"], y=np.clip(pareto["mean"] / unit, low, high), mode="lines",
        name="Pareto front (cost against the average)", hoverinfo="skip",
        line={"color": "#0072B2", "width": 1.5, "shape": "hv", "dash": "dot"},
    ))  # fmt: skip
    _mark(fig, today, "today's cluster", TODAY, "diamond", unit, (-40, -30))
    if chosen is not None:
        _mark(fig, chosen, "chosen", CHOSEN, "star", unit, (40, 30))
    fig.update_xaxes(title="Cluster cost (USD per hour)", rangemode="tozero")
    side = "below" if target.at_most else "above"
    fig.update_yaxes(title=f"{target.label[0].upper()}{target.label[1:]} ({target.unit}): "
                     f"we are sure it is {side} the dot", range=[low, high])  # fmt: skip
    style(fig, f"Cost against {target.label}: the cheapest mix that meets the target", 520)
    fig.update_layout(legend=RIGHT_LEGEND, margin={"r": 260, "t": 70})
    return fig


def _means(
    fig: go.Figure, rows: pd.DataFrame, unit: float, target: Target, bounds: tuple[float, float]
) -> None:
    """The mean over seeds of every mix as a light hollow mark, joined to its bound by a thin
    line (one trace: segments separated by gaps)."""
    mean = np.clip(rows["mean"] / unit, *bounds)
    bound = np.clip(rows["bound"] / unit, *bounds)
    xs = np.repeat(rows["cost_usd_per_h"].to_numpy(), 3).astype(float)
    ys = np.column_stack([mean, bound, np.full(len(rows), np.nan)]).ravel()
    fig.add_trace(go.Scatter(
        x=xs, y=ys, mode="lines", line={"color": "rgba(120,120,120,0.35)", "width": 1},
        hoverinfo="skip", showlegend=False,
    ))  # fmt: skip
    fig.add_trace(go.Scatter(
        x=rows["cost_usd_per_h"], y=mean, mode="markers", name="average over seeds",
        marker={"color": "rgba(120,120,120,0.45)", "size": 7, "symbol": "circle-open"},
        text=rows["mix"],
        hovertemplate="%{text}<br>%{x:,.2f} USD/h · average %{y:,.2f} " + target.unit
        + "<extra></extra>",
    ))  # fmt: skip


def _points(
    fig: go.Figure, rows: pd.DataFrame, name: str, color: str, unit: float, target: Target,
    bounds: tuple[float, float],
) -> None:  # fmt: skip
    """The judged marks: each mix at its bound (``meta`` on the trace: "judged")."""
    bound = rows["bound"] / unit
    inside = (bound >= bounds[0]) & (bound <= bounds[1])
    shown = rows[inside]
    side = "below" if target.at_most else "above"
    fig.add_trace(go.Scatter(
        x=shown["cost_usd_per_h"], y=bound[inside], mode="markers", name=name, meta="judged",
        marker={"color": color, "size": 10, "line": {"color": "white", "width": 1}},
        text=shown["mix"], customdata=shown["mean"] / unit,
        hovertemplate="%{text}<br>%{x:,.2f} USD/h · average %{customdata:,.2f} "
        + target.unit + f"; sure it is {side} %{{y:,.2f}} " + target.unit + "<extra></extra>",
    ))  # fmt: skip
    off = rows[~inside]
    if len(off):
        edge = np.where(bound[~inside] > bounds[1], bounds[1], bounds[0])
        fig.add_trace(go.Scatter(
            x=off["cost_usd_per_h"], y=edge, mode="markers", meta="off the chart",
            name=f"{name}, {len(off)} off the chart", text=off["mix"],
            customdata=bound[~inside],
            marker={"color": color, "size": 9, "symbol": "triangle-up" if target.at_most
                    else "triangle-down", "opacity": 0.7},
            hovertemplate="%{text}<br>%{x:,.2f} USD/h · sure it is " + side
            + " %{customdata:,.2f} " + target.unit + "<extra></extra>",
        ))  # fmt: skip


def _mark(
    fig: go.Figure, row: Mapping[str, Any], name: str, color: str, symbol: str, unit: float,
    offset: tuple[int, int],
) -> None:  # fmt: skip
    """Today's cluster or the chosen mix at its bound, labelled right beside its marker."""
    if not row or math.isnan(row["bound"]):
        return
    x, y = float(row["cost_usd_per_h"]), float(row["bound"]) / unit
    fig.add_trace(go.Scatter(
        x=[x], y=[y], mode="markers", name=f"{name}: {row['mix']}",
        marker={"symbol": symbol, "size": 22, "color": color,
                "line": {"color": "white", "width": 1}},
        hovertemplate=f"{name}: {row['mix']}<br>%{{x:,.2f}} USD/h · bound %{{y:,.2f}}"
        "<extra></extra>",
    ))  # fmt: skip
    fig.add_annotation(x=x, y=y, text=name, showarrow=True, arrowhead=0, ax=offset[0],
                       ay=offset[1], standoff=12, bgcolor="white", bordercolor=color,
                       font={"color": color})  # fmt: skip

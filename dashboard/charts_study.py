"""Pure figure builders of the Compare and Sweep pages (the Planner's are in
`dashboard.charts_planner`) (tables in, Figures out).

Variants get the policy palette in study order (:func:`dashboard.chart_style.policy_colors`);
legends sit outside the plot on the right so they never cover data or titles.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.chart_style import policy_colors, style, team_colors
from engine.study.paired import metric_info
from engine.units import time_unit

RIGHT_LEGEND = {"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1, "yanchor": "top"}


def _outside_legend(fig: go.Figure, title: str, height: int = 460) -> go.Figure:
    style(fig, title, height)
    fig.update_layout(legend=RIGHT_LEGEND, margin={"r": 220, "t": 70})
    return fig


def _rgba(hex_color: str, alpha: float) -> str:
    r, g, b = (int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def make_delta_chart(paired: pd.DataFrame, metric: str, baseline: str, unit: str) -> go.Figure:
    """Horizontal bars: each (variant, policy)'s mean paired difference to the baseline (in
    ``unit``) with its 95% interval as whiskers; a zero line. Bars green when better, red when
    worse (by the metric's direction), grey when the interval straddles zero."""
    info = metric_info(metric)
    rows = paired.iloc[::-1]
    names = [f"{v} · {p}" for v, p in zip(rows["variant"], rows["policy"], strict=True)]
    better = -1 if info.lower_is_better else 1
    colors = [
        "#9E9E9E" if lo <= 0 <= hi or math.isnan(m) else
        ("#009E73" if np.sign(m) == better else "#D55E00")
        for m, lo, hi in zip(rows["mean_diff"], rows["ci_low"], rows["ci_high"], strict=True)
    ]  # fmt: skip
    fig = go.Figure(
        go.Bar(
            x=rows["mean_diff"], y=names, orientation="h", marker_color=colors,
            error_x={"type": "data", "symmetric": False,
                     "array": rows["ci_high"] - rows["mean_diff"],
                     "arrayminus": rows["mean_diff"] - rows["ci_low"], "thickness": 2},
            hovertemplate="%{y}: %{x:+.2f} " + unit + "<extra></extra>",
        )
    )  # fmt: skip
    fig.add_vline(x=0, line_color="#333", line_width=1)
    fig.update_xaxes(title=f"Δ {_titled(info.label, unit)} vs {baseline} (95% interval)")
    height = max(260, 70 + 46 * len(names))
    return style(fig, f"{info.label}: difference to {baseline}", height)


def make_variant_cdf(jobs: pd.DataFrame, policy: str, variants: list[str]) -> go.Figure:
    """Overlaid empirical JCT CDFs of one policy, one line per variant (all seeds pooled),
    on a log time axis in the unit the longest JCT picks (`engine.units.time_unit`)."""
    colors = policy_colors(variants)
    fig = go.Figure()
    shown = jobs.loc[jobs["policy"] == policy, "jct_s"]
    unit, scale = time_unit(float(shown.max()) if shown.notna().any() else 0.0)
    for variant in variants:
        jct = np.sort(
            jobs.loc[(jobs["variant"] == variant) & (jobs["policy"] == policy), "jct_s"]
            .dropna()
            .to_numpy(dtype=float)
        )
        if not jct.size:
            continue
        step = max(1, jct.size // 2000)
        x, y = jct[::step] / scale, (np.arange(1, jct.size + 1) / jct.size)[::step]
        fig.add_trace(
            go.Scatter(
                x=x, y=y, name=variant, mode="lines",
                line={"color": colors[variant], "width": 3, "shape": "hv"},
                hovertemplate=f"{variant}: %{{y:.0%}} done within %{{x:.2f}} {unit}<extra></extra>",
            )
        )  # fmt: skip
    fig.update_xaxes(title=f"Job completion time ({unit}, log scale)", type="log")
    fig.update_yaxes(title="Jobs completed", range=[0, 1.02], tickformat=".0%")
    return _outside_legend(fig, f"{policy}: JCT CDF per variant (further left is better)")


def make_sweep_lines(
    stats: pd.DataFrame, axis: str, metric: str, unit: str, axis_title: str = ""
) -> go.Figure:
    """Mean of ``metric`` (in ``unit``) against one axis (a column of ``stats``: numbers in
    order, else categories as given), one line per policy, with its 95% band."""
    info = metric_info(metric)
    axis_title = axis_title or axis_label(axis)
    policies = list(dict.fromkeys(stats["policy"]))
    colors = policy_colors(policies)
    fig = go.Figure()
    for policy in policies:
        _band_and_line(fig, stats[stats["policy"] == policy], axis, policy, colors[policy], unit)
    _x_axis(fig, stats[axis], axis_title)
    fig.update_yaxes(title=_titled(info.label, unit))
    return _outside_legend(fig, f"{info.label} by {axis_title.lower()} (band: 95% interval)")


def make_team_facets(
    stats: pd.DataFrame, axis: str, unit: str, label: str, axis_title: str, columns: int = 3
) -> go.Figure:
    """One small chart per team (``stats``' "team" column, in its order and the team colors):
    the mean of the KPI ``label`` (in ``unit``) against the axis with its 95% band, each team
    on its own y scale so a small team's change is not flattened by a large team's."""
    teams = list(dict.fromkeys(stats["team"]))
    colors = team_colors(teams)
    rows = math.ceil(len(teams) / columns)
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=teams, vertical_spacing=0.5 / rows,
                        horizontal_spacing=0.07)  # fmt: skip
    for i, team in enumerate(teams):
        cell = {"row": i // columns + 1, "col": i % columns + 1}
        _band_and_line(fig, stats[stats["team"] == team], axis, team, colors[team], unit, cell)
    fig.update_xaxes(**({} if _numeric(stats[axis]) else {"type": "category"}))
    fig.update_yaxes(rangemode="tozero")
    for row in range(1, rows + 1):
        fig.update_yaxes(title=unit, row=row, col=1)
    title = (f"{label} ({unit}) per team, each on its own scale<br><sup>x: {axis_title}; "
             "band: 95% interval</sup>")  # fmt: skip
    style(fig, title, 140 + 230 * rows)
    fig.update_layout(showlegend=False, margin={"t": 110})
    return fig


def _band_and_line(fig: go.Figure, rows: pd.DataFrame, axis: str, name: str, color: str,
                   unit: str, cell: dict[str, int] | None = None) -> None:  # fmt: skip
    """The mean of ``rows`` (columns ``axis``, mean, ci_low, ci_high) as a line with markers
    over its 95% band, into ``fig`` (or its subplot ``cell``: row and col)."""
    rows = _along(rows, axis)
    x = rows[axis].tolist()
    fig.add_trace(
        go.Scatter(
            x=x + x[::-1], y=rows["ci_high"].tolist() + rows["ci_low"].tolist()[::-1],
            fill="toself", fillcolor=_rgba(color, 0.18), line={"width": 0}, mode="lines",
            hoverinfo="skip", showlegend=False, legendgroup=name,
        ),
        **(cell or {}),
    )  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=x, y=rows["mean"].tolist(), name=name, mode="lines+markers", legendgroup=name,
            line={"color": color, "width": 3}, marker={"size": 8},
            hovertemplate=f"{name}: %{{y:.2f}} {unit}<extra></extra>",
        ),
        **(cell or {}),
    )  # fmt: skip


def _numeric(values: pd.Series) -> bool:
    return all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values)


def _along(rows: pd.DataFrame, axis: str) -> pd.DataFrame:
    """Rows in the axis' order: sorted for numbers, as given (typed) for words."""
    return rows.sort_values(axis) if _numeric(rows[axis]) else rows


def _x_axis(fig: go.Figure, values: pd.Series, title: str) -> None:
    fig.update_xaxes(title=title, **({} if _numeric(values) else {"type": "category"}))


def make_sweep_heatmap(
    stats: pd.DataFrame,
    x_axis: str,
    y_axis: str,
    metric: str,
    unit: str,
    x_title: str = "",
    y_title: str = "",
    title: str = "",
) -> go.Figure:
    """Mean of ``metric`` (in ``unit``) over a two-axis grid, values written in the cells; the
    y axis may be the policy (``y_axis="policy"``)."""
    info = metric_info(metric)
    grid = stats.pivot_table(index=y_axis, columns=x_axis, values="mean", aggfunc="first")
    text = [[f"{v:.2f}" if pd.notna(v) else "" for v in row] for row in grid.to_numpy()]
    fig = go.Figure(
        go.Heatmap(
            z=grid.to_numpy(), x=[str(c) for c in grid.columns], y=[str(i) for i in grid.index],
            text=text, texttemplate="%{text}", textfont={"size": 16},
            colorscale="Viridis" if not info.lower_is_better else "Viridis_r",
            colorbar={"title": {"text": unit}},
            hovertemplate=f"%{{x}}, %{{y}}: %{{z:.2f}} {unit}<extra></extra>",
        )
    )  # fmt: skip
    fig.update_xaxes(title=x_title or axis_label(x_axis), type="category")
    fig.update_yaxes(title=y_title or axis_label(y_axis), type="category")
    title = title or f"{_titled(info.label, unit)}, mean over seeds (brighter is better)"
    return style(fig, title, 480)


def make_pair_lines(frame: pd.DataFrame, axis: str, unit: str, pair: str, axis_title: str,
                    lower_is_better: bool) -> go.Figure:  # fmt: skip
    """The paired difference A - B (``mean_diff`` with its 95% band ``ci_low``..``ci_high``, in
    ``unit``) against a sweep axis, with a zero line: below zero A is lower."""
    rows = _along(frame, axis)
    x = rows[axis].tolist()
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=x + x[::-1], y=rows["ci_high"].tolist() + rows["ci_low"].tolist()[::-1],
            fill="toself", fillcolor=_rgba("#0072B2", 0.18), line={"width": 0}, mode="lines",
            hoverinfo="skip", name="95% interval",
        )
    )  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=x, y=rows["mean_diff"].tolist(), mode="lines+markers", name=pair,
            line={"color": "#0072B2", "width": 3}, marker={"size": 8},
            hovertemplate=f"%{{x}}: %{{y:+.2f}} {unit}<extra></extra>",
        )
    )  # fmt: skip
    fig.add_hline(y=0, line_color="#333", line_width=1)
    _x_axis(fig, frame[axis], axis_title)
    better = "below zero: A better" if lower_is_better else "above zero: A better"
    fig.update_yaxes(title=f"A − B ({unit}); {better}")
    return _outside_legend(fig, f"{pair}: paired difference by {axis_title.lower()}")


def _titled(label: str, unit: str) -> str:
    return f"{label} ({unit})" if unit else label


def axis_label(path: str) -> str:
    """A dotted scenario path as words: "load.arrival_scale" -> "arrival scale"."""
    return path.rsplit(".", 1)[-1].replace("_", " ")

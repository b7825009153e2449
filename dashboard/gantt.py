"""The schedule as a Gantt chart: one row per job, one bar per segment on the same GPUs.

A thin grey bar spans each job's life (arrival to completion), so waiting shows as grey before
the first colored bar and between bars. Segment ends caused by a preemption or a migration get
a marker, so a teacher can point at them. A job that holds several lanes at once (HadarE's
copies, one per node, or a mix of worker types) stays one row, split into thinner lanes.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.chart_style import style
from dashboard.formatting import time_unit
from dashboard.gantt_sharing import with_sharing

LEVEL_COLORS = {"node": "#1B9E77", "rack": "#E6AB02", "network": "#D95F02"}
END_MARKERS = {
    "preempted": {"symbol": "x-thin", "size": 8, "line": {"width": 2, "color": "#C00000"}},
    "migrated": {"symbol": "triangle-right", "color": "#222222", "size": 8},
    "failed": {"symbol": "star", "size": 12, "color": "#FF2A00",  # a node it held failed
               "line": {"width": 1, "color": "#000000"}},
}  # fmt: skip
CONTINUOUS = {  # color_by -> (colorbar title, colorscale): a jobs-table column, per job
    "network_sensitivity": (
        "Network sensitivity (× slower across racks)",
        [[0.0, "#FFE8A3"], [0.35, "#FDAE61"], [0.7, "#E34A33"], [1.0, "#7F0000"]],
    ),
}
ROW_PX = 22
TEXT_BARS_MAX = 2000
"""Most bars of one trace that get the partners of a shared segment written in them [R]."""
BAR_WIDTH = 0.7  # of a row; lanes share it
LABEL_MIN_PX = 10
"""Smallest font a bar's label is drawn at; a label that does not fit its bar at this size is
hidden, not shrunk (Plotly's ``uniformtext``), and the bar's hover still names its partners [R]."""


def make_gantt(
    segments: pd.DataFrame,
    jobs: pd.DataFrame,
    colors: Mapping[str, str],
    color_by: str = "worker_type",
    max_jobs: int = 300,
    title: str = "",
    order: list[str] | None = None,
    shown_end_s: float | None = None,
    shown_start_s: float = 0.0,
) -> go.Figure:
    """Horizontal bars per job (y = job, x = time) for one policy.

    Args:
        segments: that policy's segments table (job_id, start_s, end_s, restore_s, worker_type,
            num_gpus, nodes, racks, level, end_reason).
        jobs: that policy's jobs table (job_id, arrival_s, completion_s, job_type, ...); sets the
            row order (by arrival) and the grey lifetime bars.
        colors: worker type -> color (:func:`dashboard.chart_style.worker_type_colors`); used
            when ``color_by="worker_type"``.
        color_by: ``"worker_type"``, ``"level"`` (node/rack/network consolidation), a text
            column of ``jobs`` (``"cluster_queue"``: the team, colored by ``colors``) or a numeric
            column of ``jobs`` in :data:`CONTINUOUS` (``"network_sensitivity"``: iteration time
            across racks over node-local), drawn on a continuous color scale with a colorbar.
        max_jobs: draw at most this many jobs (the earliest arrivals); filter first for others.
        title: chart title (none by default: pages put the policy name above the chart).
        order: job ids, top to bottom (default: by arrival); side-by-side charts pass the same
            list so that rows line up.
        shown_end_s: end of the initial time range (s); side-by-side charts pass the same value.
        shown_start_s: its start (s); the time unit follows the range's width (a busy hour
            late in a 10-day run reads in hours, not days).

    The initial time range covers 90% of the shown jobs' completions; longer jobs run off the
    right edge, marked with an arrow there (double-click the chart to see everything).
    """
    if order is None:
        order = list(jobs.sort_values(["arrival_s", "job_id"])["job_id"].astype(str))
    order = [str(job) for job in order][:max_jobs]
    jobs = jobs[jobs["job_id"].astype(str).isin(order)]
    segments = with_sharing(
        with_lane_counts(segments[segments["job_id"].astype(str).isin(order)]), jobs
    )
    if color_by not in segments and color_by in jobs:  # a job's column (its team)
        by_job = jobs.set_index(jobs["job_id"].astype(str))[color_by]
        segments[color_by] = segments["job_id"].astype(str).map(by_job)
    end_s = max(_max(segments["end_s"]), _max(jobs.get("completion_s", pd.Series(dtype=float))))
    if shown_end_s is None:
        shown_end_s = initial_end_s(jobs, end_s)
    unit, scale = time_unit(shown_end_s - shown_start_s)
    fig = go.Figure(_lifetime_bars(jobs, scale, unit))
    if color_by in CONTINUOUS:
        fig.add_trace(_continuous_bars(segments, jobs, color_by, scale, unit))
    else:
        palette = LEVEL_COLORS if color_by == "level" else colors
        for key, rows in segments.groupby(color_by, sort=True):
            color = palette.get(str(key), "#888")
            fig.add_trace(_segment_bars(rows, str(key), {"color": color}, scale, unit))
    for reason, marker in END_MARKERS.items():
        ends = segments[segments["end_reason"] == reason].drop_duplicates(["job_id", "end_s"])
        if len(ends):
            fig.add_trace(_end_markers(ends, reason, marker, scale))
    clipped = clipped_marks(jobs, shown_end_s, scale, unit)
    if clipped is not None:
        fig.add_trace(clipped)
    _layout_rows(fig, order, f"Simulated time ({unit})")
    fig.update_xaxes(range=[shown_start_s / scale, shown_end_s / scale])
    height_px = min(1400, max(360, ROW_PX * len(order) + 170))
    style(fig, title, height=height_px)
    _time_axis_on_top(fig, height_px, bool(title))
    return fig


def clipped_marks(
    jobs: pd.DataFrame, shown_end_s: float, scale: float, unit: str
) -> go.Scatter | None:
    """Arrows at the right edge on the rows of jobs still in the system beyond ``shown_end_s``."""
    if "completion_s" not in jobs or shown_end_s <= 0:
        return None
    beyond = jobs[jobs["completion_s"].fillna(float("inf")) > shown_end_s * 1.001]
    if beyond.empty:
        return None
    return go.Scatter(
        x=[shown_end_s / scale] * len(beyond), y=beyond["job_id"].astype(str), mode="markers",
        name="continues beyond the edge", cliponaxis=False,
        marker={"symbol": "arrow-bar-right", "size": 9, "color": "#444",
                "line": {"width": 1.5, "color": "#444"}},
        customdata=(beyond["completion_s"] / scale).to_numpy(),
        hovertemplate=f"job %{{y}} continues until %{{customdata:,.2f}} {unit}<extra></extra>",
    )  # fmt: skip


def initial_end_s(jobs: pd.DataFrame, end_s: float) -> float:
    """Where a time axis opens: the 90th percentile of completion times (x 1.1), capped at
    ``end_s``, so a few very long jobs do not hide the rest (Gantt and utilization charts)."""
    done = jobs["completion_s"].dropna() if "completion_s" in jobs else pd.Series(dtype=float)
    return min(end_s, float(done.quantile(0.9)) * 1.1) if len(done) else end_s


def with_lane_counts(segments: pd.DataFrame) -> pd.DataFrame:
    """Adds ``lane`` (0 when absent) and ``lane_count``: lanes the job holds in that stretch."""
    segments = segments.copy()
    if "lane" not in segments:
        segments["lane"] = 0
    segments["lane_count"] = segments.groupby(["job_id", "start_s"])["lane"].transform("count")
    return segments


def _max(values: pd.Series) -> float:
    values = values.dropna()
    return float(values.max()) if len(values) else 0.0


def _lifetime_bars(jobs: pd.DataFrame, scale: float, unit: str) -> go.Bar:
    end = (
        jobs["completion_s"].fillna(jobs["completion_s"].max()) if "completion_s" in jobs else None
    )
    end = jobs["arrival_s"] if end is None else end
    return go.Bar(
        y=jobs["job_id"].astype(str), base=jobs["arrival_s"] / scale,
        x=(end - jobs["arrival_s"]) / scale, orientation="h", width=0.25,
        marker={"color": "#BBBBBB"}, name="waiting (grey)",
        customdata=jobs[["job_type"]].astype(str) if "job_type" in jobs else None,
        hovertemplate=f"job %{{y}}<br>arrived %{{base:,.2f}} {unit}, in system %{{x:,.2f}} {unit}"
        "<extra></extra>",
    )  # fmt: skip


def _continuous_bars(
    segments: pd.DataFrame, jobs: pd.DataFrame, column: str, scale: float, unit: str
) -> go.Bar:
    """All segments as one trace colored by the job's ``column`` value."""
    title, colorscale = CONTINUOUS[column]
    values = segments["job_id"].astype(str).map(jobs.set_index(jobs["job_id"].astype(str))[column])
    low, high = float(values.min()), float(values.max())
    marker = {
        "color": values.to_numpy(float), "colorscale": colorscale, "cmin": low,
        "cmax": max(high, low + 0.01),
        "colorbar": {"title": {"text": title, "side": "right"}, "thickness": 14,
                     "lenmode": "pixels", "len": 320, "y": 1, "yanchor": "top"},
    }  # fmt: skip
    bars = _segment_bars(segments, column.replace("_", " "), marker, scale, unit, values)
    bars.hovertemplate = bars.hovertemplate.replace(
        "<extra>", f"<br>{column.replace('_', ' ')}: %{{customdata[7]:.2f}}<extra>"
    )
    return bars


def _segment_bars(
    rows: pd.DataFrame,
    name: str,
    marker: dict,
    scale: float,
    unit: str,
    value: pd.Series | None = None,
) -> go.Bar:
    custom = rows[["worker_type", "num_gpus", "nodes", "level", "end_reason", "restore_s"]].copy()
    custom["lane"] = _lane_label(rows)
    custom["value"] = 0.0 if value is None else value
    shared = rows["sharing"] if "sharing" in rows else pd.Series("", index=rows.index)
    custom["sharing"] = ("<br>" + shared).where(shared != "", "")
    width = BAR_WIDTH / rows["lane_count"]
    if (shared != "").any():  # shared GPUs: hatched, the partners written in the bar
        marker = {**marker, "pattern": {
            "shape": np.where(shared != "", "/", "").tolist(),
            "fgcolor": "#000000", "fgopacity": 0.45, "size": 7,
        }}  # fmt: skip
    text = shared.str.replace("shares its GPUs with", "shares with").str.replace("slowdown ", "")
    if len(rows) > TEXT_BARS_MAX:  # too many bars to write in: the hover says it
        text = pd.Series("", index=rows.index)
    return go.Bar(
        y=rows["job_id"].astype(str), base=rows["start_s"] / scale,
        x=(rows["end_s"] - rows["start_s"]) / scale, orientation="h", name=name,
        width=width.to_numpy(), offset=(-BAR_WIDTH / 2 + rows["lane"] * width).to_numpy(),
        marker={
            **marker,
            "line": {"color": "#333333", "width": (0.6 / rows["lane_count"]).to_numpy()},
        },
        customdata=custom.to_numpy(),
        hovertemplate=(
            "job %{y}%{customdata[6]}<br>%{customdata[1]} × %{customdata[0]} on %{customdata[2]}"
            " (%{customdata[3]}-local)<br>"
            f"from %{{base:,.2f}} {unit} for %{{x:,.2f}} {unit}"
            "<br>restore %{customdata[5]:.0f} s · ended: %{customdata[4]}%{customdata[8]}"
            "<extra></extra>"
        ),
        text=text.to_numpy(), textposition="inside", insidetextanchor="start",
        textfont={"size": 12, "color": "#000000"},
    )  # fmt: skip


def _lane_label(rows: pd.DataFrame) -> pd.Series:
    """ " · copy 2 of 3" for a lane of a several-lane stretch, else empty."""
    kind = rows["combine"].map({"copies": "copy"}).fillna("lane") if "combine" in rows else "lane"
    label = " · " + kind + " " + (rows["lane"] + 1).astype(str) + " of "
    label = label + rows["lane_count"].astype(str)
    return label.where(rows["lane_count"] > 1, "")


def _end_markers(ends: pd.DataFrame, reason: str, marker: dict, scale: float) -> go.Scatter:
    return go.Scatter(
        x=ends["end_s"] / scale, y=ends["job_id"].astype(str), mode="markers", name=reason,
        marker=marker, hovertemplate=f"job %{{y}} {reason} here<extra></extra>",
    )  # fmt: skip


def _time_axis_on_top(fig: go.Figure, height_px: int, titled: bool) -> None:
    """The legend in one row at the top, the time axis under it, above the bars [R]: a chart of
    30 rows (830 px) is taller than a projector's 720-px window, and a time axis at the bottom
    would then be out of sight whenever the first rows are in sight; one row of legend, not a
    column beside the bars, also leaves them the chart's whole width."""
    top_px = 44 if titled else 4  # the title's band
    fig.update_layout(
        legend={"orientation": "h", "yref": "container", "y": 1 - top_px / height_px,
                "yanchor": "top", "x": 0, "xanchor": "left"},
        margin={"t": top_px + 96, "b": 16},
    )  # fmt: skip
    fig.update_xaxes(side="top")


def _layout_rows(fig: go.Figure, order: list[str], x_title: str) -> None:
    fig.update_layout(
        barmode="overlay", bargap=0.2, uniformtext={"minsize": LABEL_MIN_PX, "mode": "hide"}
    )
    fig.update_yaxes(
        type="category", categoryorder="array", categoryarray=order, autorange="reversed",
        title="Job (by arrival)", showticklabels=len(order) <= 60, tickfont={"size": 11},
    )  # fmt: skip
    fig.update_xaxes(title=x_title, showgrid=True)

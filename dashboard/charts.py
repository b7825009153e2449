"""Pure chart builders: tables in, plotly Figures out (no Streamlit here).

One color per policy everywhere (:func:`policy_colors`, keyed in scenario order) and one color per
worker type (:func:`worker_type_colors`), so a policy or a GPU type looks the same on every page.
Time axes pick a readable unit (s, min, h, d) from the data. The palettes live in
:mod:`dashboard.chart_style`, the Gantt chart in :mod:`dashboard.gantt`; both are re-exported.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.chart_style import (
    POLICY_PALETTE,
    height_for,
    policy_colors,
    style,
    worker_type_colors,
)
from dashboard.formatting import human_duration, plain_number, time_unit
from dashboard.gantt import make_gantt


def make_jct_cdf(
    jobs_all: pd.DataFrame, colors: Mapping[str, str], log_x: bool = True
) -> go.Figure:
    """Overlaid empirical CDFs of job completion time, one line per policy.

    Args:
        jobs_all: per-job results with a ``policy`` column (``ComparisonResult.combined("jobs")``).
        colors: policy -> color (:func:`policy_colors`); also fixes the trace order.
        log_x: logarithmic time axis labelled in human durations (JCTs span minutes to days).
    """
    from engine.metrics import jct_cdf

    jct = jobs_all["jct_s"].dropna()
    unit, scale = ("s", 1.0) if log_x else time_unit(float(jct.max()) if len(jct) else 0.0)
    fig = go.Figure()
    for policy, color in colors.items():
        cdf = _thin(jct_cdf(jobs_all[jobs_all["policy"] == policy]), 2000)
        fig.add_trace(
            go.Scatter(
                x=cdf["jct_s"] / scale, y=cdf["fraction"], name=policy, mode="lines",
                line={"color": color, "width": 3, "shape": "hv"},
                customdata=[human_duration(v) for v in cdf["jct_s"]],
                hovertemplate=f"{policy}: %{{y:.0%}} of jobs done within %{{customdata}}"
                "<extra></extra>",
            )
        )  # fmt: skip
    if log_x and len(jct):
        fig.update_xaxes(type="log", **duration_ticks(float(jct.min()), float(jct.max())))
    fig.update_xaxes(title="Job completion time" + ("" if log_x else f" ({unit})"))
    fig.update_xaxes(type="log" if log_x else "linear")
    fig.update_yaxes(title="Jobs completed", range=[0, 1.02], tickformat=".0%")
    return style(
        fig, "Job completion time (CDF): further left is better", height_for(len(colors), 460)
    )


NICE_TICKS_S = (
    (1, "1 s"), (10, "10 s"), (60, "1 min"), (600, "10 min"), (3600, "1 h"), (6 * 3600, "6 h"),
    (86400, "1 d"), (7 * 86400, "1 wk"), (30 * 86400, "30 d"), (365 * 86400, "1 yr"),
)  # fmt: skip


def duration_ticks(low_s: float, high_s: float) -> dict:
    """Tick values (s) and labels ("10 min", "1 h", "1 d", ...) covering [low_s, high_s]."""
    inside = [(v, t) for v, t in NICE_TICKS_S if low_s / 10 <= v <= high_s * 10]
    return {"tickvals": [v for v, _ in inside], "ticktext": [t for _, t in inside]}


def _thin(frame: pd.DataFrame, max_rows: int) -> pd.DataFrame:
    """Every k-th row (always keeping the last) so a line has at most ``max_rows`` points."""
    if len(frame) <= max_rows:
        return frame
    keep = np.unique(
        np.append(np.linspace(0, len(frame) - 1, max_rows).astype(int), len(frame) - 1)
    )
    return frame.iloc[keep]


def make_utilization(
    utilization: pd.DataFrame,
    colors: Mapping[str, str],
    max_points: int = 2000,
    title: str = "GPUs busy over time, stacked by GPU type",
    end_s: float | None = None,
    focus_end_s: float | None = None,
    segments: pd.DataFrame | None = None,
) -> go.Figure:
    """Busy GPUs over time, stacked by worker type, as a step function.

    Args:
        utilization: one policy's step table (time_s, worker_type, busy_gpus, capacity_gpus).
        colors: worker type -> color (:func:`worker_type_colors`).
        max_points: the step function is sampled on a uniform grid of at most this many points.
        title: chart title.
        end_s: end of the data (s); pass the same value to every policy's chart so they line
            up. Defaults to the last row's time.
        focus_end_s: end of the initially shown range (s), e.g. when most jobs have finished,
            so a few very long jobs do not squeeze the busy period; the full range stays one
            zoom-out away. Three quarters of the samples fall inside it. Defaults to ``end_s``.
        segments: that policy's segments table; when jobs shared GPUs (its ``host_job``
            column, :mod:`engine.metrics_sharing`), a black line adds the GPUs the jobs ran on,
            a shared GPU once per job on it (:func:`jobs_gpus`): its gap above the stack is
            what sharing saved.
    """
    if end_s is None:
        end_s = float(utilization["time_s"].max()) if len(utilization) else 0.0
    focus_end_s = end_s if focus_end_s is None else min(focus_end_s, end_s)
    unit, scale = time_unit(focus_end_s)
    grid = focused_grid(focus_end_s, end_s, max(2, min(max_points, len(utilization) + 2)))
    fig = go.Figure()
    capacity = 0.0
    for worker_type, rows in utilization.sort_values("time_s").groupby("worker_type", sort=True):
        capacity += float(rows["capacity_gpus"].iloc[0])
        busy = step_values(rows["time_s"].to_numpy(float), rows["busy_gpus"].to_numpy(float), grid)
        fig.add_trace(
            go.Scatter(
                x=grid / scale, y=busy, name=str(worker_type), stackgroup="busy", mode="lines",
                line={"shape": "hv", "width": 0.5, "color": "#555"},
                fillcolor=colors.get(str(worker_type)),
                hovertemplate=f"{worker_type}: %{{y:.0f}} GPUs busy at %{{x:,.2f}} {unit}"
                "<extra></extra>",
            )
        )  # fmt: skip
    top = capacity
    if segments is not None and "host_job" in segments:
        on_jobs = jobs_gpus(segments, grid)
        top = max(top, float(on_jobs.max(initial=0.0)))
        fig.add_trace(go.Scatter(
            x=grid / scale, y=on_jobs, name="GPUs the jobs run on (a shared GPU once per job)",
            mode="lines", line={"shape": "hv", "width": 2.5, "color": "#000000"},
            hovertemplate=f"jobs on %{{y:.0f}} GPUs' worth at %{{x:,.2f}} {unit}<extra></extra>",
        ))  # fmt: skip
    fig.add_hline(
        y=capacity, line={"dash": "dash", "color": "#444"},
        annotation_text=f"cluster capacity: {capacity:.0f} GPUs", annotation_position="top right",
    )  # fmt: skip
    fig.update_xaxes(title=f"Simulated time ({unit})", range=[0, focus_end_s / scale])
    fig.update_yaxes(title="GPUs busy", range=[0, top * 1.12 if top else 1])
    return style(fig, title, height=420)


def jobs_gpus(segments: pd.DataFrame, grid: np.ndarray) -> np.ndarray:
    """The GPUs the running jobs hold at the times of ``grid`` (s), a GPU jobs share counted
    once per job on it (each segment row's ``num_gpus`` from ``start_s`` to ``end_s``)."""
    times = np.r_[segments["start_s"].to_numpy(float), segments["end_s"].to_numpy(float)]
    gpus = segments["num_gpus"].to_numpy(float)
    change = np.r_[gpus, -gpus][np.argsort(times, kind="stable")]
    return step_values(np.sort(times, kind="stable"), np.cumsum(change), grid)


def focused_grid(focus_end_s: float, end_s: float, points: int) -> np.ndarray:
    """Sample times (s): three quarters up to ``focus_end_s``, the rest beyond it to ``end_s``
    (a time axis that opens on the busy part of a run but reaches its end)."""
    if focus_end_s >= end_s:
        return np.linspace(0.0, end_s, points)
    inside = max(2, points * 3 // 4)
    beyond = max(2, points - inside)
    return np.concatenate(
        [np.linspace(0.0, focus_end_s, inside), np.linspace(focus_end_s, end_s, beyond)[1:]]
    )


def step_values(times: np.ndarray, values: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Value of a right-continuous step function (``values[i]`` from ``times[i]``) on ``grid``."""
    index = np.searchsorted(times, grid, side="right") - 1
    return np.where(index >= 0, values[np.clip(index, 0, None)], 0.0)


def make_ftf_distribution(jobs_all: pd.DataFrame, colors: Mapping[str, str]) -> go.Figure:
    """Finish-time fairness ρ per policy as horizontal box plots, with a line at ρ = 1.

    ρ = JCT / JCT on a fair 1/N share of the cluster (Themis): ρ <= 1 means the job did at least
    as well as on its fair share. Log axis: ρ spans orders of magnitude.
    """
    fig = go.Figure()
    for policy, color in colors.items():
        rho = jobs_all.loc[jobs_all["policy"] == policy, "ftf_rho"].dropna()
        fig.add_trace(
            go.Box(
                x=rho, name=policy, orientation="h", marker_color=color, boxpoints="outliers",
                line={"width": 2}, hovertemplate=f"{policy}: ρ = %{{x:.2f}}<extra></extra>",
            )
        )  # fmt: skip
    fig.add_vline(
        x=1.0, line={"dash": "dash", "color": "#444"},
        annotation_text="ρ = 1: as fast as on a fair share", annotation_position="top right",
    )  # fmt: skip
    ticks = _decade_ticks(jobs_all["ftf_rho"])
    fig.update_xaxes(
        title="Finish-time fairness ρ (log scale, lower is better)", type="log",
        tickvals=ticks, ticktext=[plain_number(t) for t in ticks],
    )  # fmt: skip
    fig.update_yaxes(autorange="reversed", tickmode="array", tickvals=list(colors), automargin=True)
    fig.update_layout(showlegend=False)
    height = height_for(len(colors), 380, 34)
    return style(fig, "How much slower than a fair share did each job finish?", height=height)


def _decade_ticks(values: pd.Series) -> list[float]:
    """1-2-5 ticks spanning ``values`` on a log axis, labelled in full (0.2, not "2")."""
    positive = values[values > 0].dropna()
    if positive.empty:
        return [1.0]
    low = int(np.floor(np.log10(positive.min())))
    high = int(np.ceil(np.log10(positive.max())))
    ticks = [m * 10.0**e for e in range(low, high + 1) for m in (1, 2, 5)]
    if high - low > 3:  # a wide range: decades only, so labels do not collide
        ticks = [10.0**e for e in range(low, high + 1)]
    return ticks


def make_jain_bar(jain: Mapping[str, float], colors: Mapping[str, str]) -> go.Figure:
    """Jain's index of 1/ρ per policy (1 = every job got the same share of its fair speed)."""
    policies = [p for p in colors if p in jain]
    values = [float(jain[p]) for p in policies]
    fig = go.Figure(
        go.Bar(
            y=policies, x=values, orientation="h", marker_color=[colors[p] for p in policies],
            text=[f"{v:.2f}" for v in values], textposition="outside",
            hovertemplate="%{y}: Jain's index %{x:.3f}<extra></extra>",
        )
    )  # fmt: skip
    fig.update_xaxes(title="Jain's index of 1/ρ", range=[0, 1.25])
    fig.update_yaxes(
        autorange="reversed", tickmode="array", tickvals=policies, automargin=True, type="category"
    )
    fig.update_layout(showlegend=False)
    return style(
        fig, "Jain's fairness index (higher is fairer)", height=height_for(len(policies), 380, 34)
    )


DURATION_BINS_S = (0, 600, 1800, 3600, 3 * 3600, 10 * 3600, 86400, 3 * 86400, np.inf)
DURATION_LABELS = (
    "< 10 min",
    "10–30 min",
    "30 min–1 h",
    "1–3 h",
    "3–10 h",
    "10 h–1 d",
    "1–3 d",
    "> 3 d",
)


def make_duration_histogram(jobs: pd.DataFrame) -> go.Figure:
    """Jobs per observed-duration bucket (readable bins instead of a log axis).

    Args:
        jobs: a canonical jobs table; rows with unknown ``duration_s`` (NaN) are left out.
    """
    durations = jobs["duration_s"].dropna()
    buckets = pd.cut(
        durations, bins=list(DURATION_BINS_S), labels=list(DURATION_LABELS), right=False
    )
    counts = buckets.value_counts().reindex(list(DURATION_LABELS), fill_value=0)
    fig = go.Figure(
        go.Bar(
            x=list(counts.index), y=counts.to_numpy(), marker_color=POLICY_PALETTE[0],
            text=counts.to_numpy(), textposition="outside",
            hovertemplate="%{x}: %{y} jobs<extra></extra>",
        )
    )  # fmt: skip
    fig.update_xaxes(title="Duration observed in the trace")
    fig.update_yaxes(title="Jobs", range=[0, max(1, int(counts.max())) * 1.15])
    return style(fig, f"Job durations ({len(durations):,} jobs with a known duration)", height=360)


__all__ = [
    "make_duration_histogram", "make_ftf_distribution", "make_gantt", "make_jain_bar",
    "focused_grid", "make_jct_cdf", "make_utilization", "policy_colors", "step_values",
    "worker_type_colors",
]  # fmt: skip

"""Charts of a run under teams' quotas: waits per team, use against quota, borrowing.

Pure ``make_*`` builders on the engine's tables (the annotated jobs table and ``quota_usage``,
:mod:`engine.quota.results`); one color per team (:func:`dashboard.chart_style.team_colors`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.chart_style import height_for, style
from dashboard.charts import duration_ticks, focused_grid, step_values
from dashboard.formatting import human_duration, time_unit

MIN_WAIT_S = 1.0
"""On a logarithmic axis a wait below this is drawn at it (most jobs of an idle cluster wait 0)."""


def make_team_wait_cdf(
    jobs: pd.DataFrame, colors: Mapping[str, str], log_x: bool = True
) -> go.Figure:
    """Empirical CDF of each team's queueing delay (arrival to first start), one line per team.

    Args:
        jobs: one policy's annotated jobs table (``cluster_queue``, ``queueing_delay_s``).
        colors: team (ClusterQueue) -> color; fixes the order of lines and legend.
        log_x: logarithmic time axis (waits below :data:`MIN_WAIT_S` drawn at it).
    """
    waits = jobs["queueing_delay_s"].dropna()
    high = float(waits.max()) if len(waits) else 0.0
    unit, scale = ("s", 1.0) if log_x else time_unit(high)
    fig = go.Figure()
    for team, color in colors.items():
        own = np.sort(jobs.loc[jobs["cluster_queue"] == team, "queueing_delay_s"].dropna())
        if not len(own):
            continue
        shown = np.maximum(own, MIN_WAIT_S) if log_x else own
        fig.add_trace(go.Scatter(
            x=np.concatenate([[shown[0]], shown]) / scale,
            y=np.concatenate([[0.0], np.arange(1, len(own) + 1) / len(own)]),
            name=f"{team} ({len(own)} jobs)", mode="lines",
            line={"color": color, "width": 3, "shape": "hv"},
            customdata=[human_duration(v) for v in np.concatenate([[own[0]], own])],
            hovertemplate=f"{team}: %{{y:.0%}} of jobs started within %{{customdata}}"
            "<extra></extra>",
        ))  # fmt: skip
    if log_x:
        fig.update_xaxes(type="log", **duration_ticks(MIN_WAIT_S, max(high, 10 * MIN_WAIT_S)))
    note = f" (under {MIN_WAIT_S:g} s drawn at {MIN_WAIT_S:g} s)" if log_x else f" ({unit})"
    fig.update_xaxes(title="Wait from arrival to first start" + note)
    fig.update_yaxes(title="Jobs started", range=[0, 1.02], tickformat=".0%")
    title = "How long each team's jobs waited (CDF): further left is better"
    return style(fig, title, height_for(len(colors), 460))


def usage_on_grid(quota_usage: pd.DataFrame, grid: np.ndarray) -> dict[tuple[str, str], np.ndarray]:
    """(team, worker type) -> GPUs in use at each time of ``grid`` (s)."""
    table = quota_usage.sort_values("time_s", kind="stable")
    return {
        (str(team), str(wt)): step_values(
            rows["time_s"].to_numpy(float), rows["gpus"].to_numpy(float), grid
        )
        for (team, wt), rows in table.groupby(["cluster_queue", "worker_type"], sort=True)
    }


def _nominal(quota_usage: pd.DataFrame) -> dict[tuple[str, str], int]:
    last = quota_usage.groupby(["cluster_queue", "worker_type"], sort=True)["nominal_gpus"].last()
    return {(str(team), str(wt)): int(v) for (team, wt), v in last.items()}


def make_quota_usage(
    quota_usage: pd.DataFrame,
    colors: Mapping[str, str],
    end_s: float,
    focus_end_s: float | None = None,
    points: int = 600,
) -> go.Figure:
    """GPUs in use per team over time, one panel per GPU type, stacked by team; each team's
    nominal quota a dashed line in its color, stacked in the same order (where a band's top
    passes its line, the teams up to it use more than their quotas together: borrowing).

    Args:
        quota_usage: one policy's ``quota_usage`` table (time_s, cluster_queue, worker_type,
            gpus, nominal_gpus).
        colors: team -> color; the stacking order, bottom first.
        end_s: the run's end (s); ``focus_end_s``: where the time axis opens (default end_s).
    """
    worker_types = sorted(quota_usage["worker_type"].astype(str).unique())
    t = _TimeGrid.of(quota_usage, end_s, focus_end_s, points)
    unit, nominal = t.unit, t.nominal
    fig = make_subplots(rows=max(1, len(worker_types)), cols=1, shared_xaxes=True,
                        subplot_titles=[f"{wt} GPUs" for wt in worker_types],
                        vertical_spacing=0.08)  # fmt: skip
    for row, wt in enumerate(worker_types, start=1):
        stacked = 0
        for team, color in colors.items():
            stacked += nominal.get((team, wt), 0)
            fig.add_trace(t.band(
                team, color, t.usage.get((team, wt), np.zeros_like(t.grid)), f"use_{wt}",
                f"{wt} GPUs in use (nominal quota {nominal.get((team, wt), 0)})",
                legendgroup=team, showlegend=row == 1,
            ), row=row, col=1)  # fmt: skip
            for line in ({"color": "white", "width": 5}, {"color": color, "width": 2.5,
                                                            "dash": "dash"}):  # fmt: skip
                fig.add_trace(go.Scatter(  # a white edge: the dashes show on any band
                    x=[0, end_s / t.scale], y=[stacked, stacked], mode="lines", line=line,
                    legendgroup=team, showlegend=False,
                    hovertemplate=f"{team}'s nominal {wt} quota: "
                    f"{nominal.get((team, wt), 0)} GPUs (stacked: {stacked})<extra></extra>",
                ), row=row, col=1)  # fmt: skip
        fig.update_yaxes(title_text="GPUs", row=row, col=1)
    fig.update_xaxes(range=t.x_range)
    fig.update_xaxes(title_text=f"Simulated time ({unit})", row=len(worker_types), col=1)
    title = "GPUs in use per team; dashed: their nominal quotas, stacked in the same order"
    return style(fig, title, height=max(height_for(len(colors), 300), 280 * len(worker_types)))


def make_borrowing(
    quota_usage: pd.DataFrame,
    colors: Mapping[str, str],
    end_s: float,
    focus_end_s: float | None = None,
    points: int = 600,
) -> go.Figure:
    """GPUs each team borrowed over time (in use above its nominal quota, summed over GPU
    types), stacked by team."""
    t = _TimeGrid.of(quota_usage, end_s, focus_end_s, points)
    fig = go.Figure()
    for team, color in colors.items():
        over = np.zeros_like(t.grid)
        for key, gpus in t.usage.items():
            if key[0] == team:
                over += np.maximum(gpus - t.nominal.get(key, 0), 0.0)
        fig.add_trace(t.band(team, color, over, "borrowed", "GPUs borrowed"))
    fig.update_xaxes(title=f"Simulated time ({t.unit})", range=t.x_range)
    fig.update_yaxes(title="GPUs above nominal quota", rangemode="tozero")
    return style(fig, "GPUs borrowed from the cohort, by team", height_for(len(colors), 400))


@dataclass(frozen=True)
class _TimeGrid:
    """The time grid both quota charts draw on: its times (s), the axis unit and its seconds,
    each (team, worker type)'s GPUs in use on it, the nominal quotas, the opening range."""

    grid: np.ndarray
    unit: str
    scale: float
    usage: dict[tuple[str, str], np.ndarray]
    nominal: dict[tuple[str, str], int]
    x_range: tuple[float, float]

    @classmethod
    def of(cls, quota_usage: pd.DataFrame, end_s: float, focus_end_s: float | None,
           points: int) -> _TimeGrid:  # fmt: skip
        focus = end_s if focus_end_s is None else focus_end_s
        unit, scale = time_unit(focus)
        grid = focused_grid(focus, end_s, points)
        return cls(grid, unit, scale, usage_on_grid(quota_usage, grid), _nominal(quota_usage),
                   (0.0, focus / scale))  # fmt: skip

    def band(self, team: str, color: str, y: np.ndarray, stack: str, what: str,
             **extra: object) -> go.Scatter:  # fmt: skip
        """One team's band of the stack ``stack``: ``y`` GPUs over the grid, hover "team:
        N <what> at t"."""
        return go.Scatter(
            x=self.grid / self.scale, y=y, name=team, stackgroup=stack, mode="lines",
            fillcolor=color, line={"shape": "hv", "width": 0.5, "color": color},
            hovertemplate=f"{team}: %{{y:.0f}} {what} at %{{x:,.2f}} {self.unit}<extra></extra>",
            **extra,
        )  # fmt: skip

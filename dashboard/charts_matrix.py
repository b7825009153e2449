"""Charts of the Matrix page: scaling curves of a throughput matrix (pure figure builders)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.chart_style import POLICY_PALETTE, style
from engine.step_time.throughput import ThroughputMatrix


def make_scaling_curves(
    matrix: ThroughputMatrix, job_type: str, worker_types: list[str], measured: pd.DataFrame
) -> go.Figure:
    """Time-to-train (h, log axis) against GPUs (log axis) per worker type: markers at the
    measured counts (``measured``: rows of :func:`engine.mlperf.points`), a solid line between
    them (the log-log rule), dotted outside them (extrapolated). Types with no result are
    left out (the page lists them as not runnable)."""
    fig = go.Figure()
    for i, wt in enumerate(worker_types):
        rows = measured[(measured["job_type"] == job_type) & (measured["worker_type"] == wt)]
        if rows.empty:
            continue
        color = POLICY_PALETTE[i % len(POLICY_PALETTE)]
        lo, hi = int(rows["accelerators"].min()), int(rows["accelerators"].max())
        for start, stop, dash, legend in ((1, lo, "dot", False), (lo, hi, "solid", True),
                                          (hi, max(hi * 4, 16), "dot", False)):  # fmt: skip
            sizes = np.unique(np.geomspace(start, stop, 40).round().astype(int))
            hours = [1 / matrix.steps_per_s(job_type, wt, int(n)) / 3600 for n in sizes]
            fig.add_trace(go.Scatter(
                x=sizes, y=hours, mode="lines", line={"color": color, "dash": dash},
                name=wt, legendgroup=wt, showlegend=legend and lo < hi, hoverinfo="skip",
            ))  # fmt: skip
        fig.add_trace(go.Scatter(
            x=rows["accelerators"], y=1 / rows["runs_per_s"] / 3600, mode="markers",
            marker={"color": color, "size": 9}, name=wt, legendgroup=wt,
            showlegend=lo == hi, customdata=rows[["submitters", "held_from"]],
            hovertemplate=f"{wt}<br>%{{x}} GPUs: %{{y:.3g}} h<br>%{{customdata[0]}} submitter(s)"
            "<extra></extra>",
        ))  # fmt: skip
    style(fig, f"{job_type}: time to train against GPUs (dots: measured; dotted: extrapolated)")
    fig.update_xaxes(type="log", title="GPUs (accelerators)")
    fig.update_yaxes(type="log", title="time to train one run (h)")
    fig.update_layout(margin={"r": 200})
    return fig

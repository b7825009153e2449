"""The Network page's charts over time: the share of each rack's GPUs busy (a heatmap) and the
congestion episodes (bars per link target). Both share fixed side margins, so their time axes
line up under each other, and both can mark the moment the topology map shows. Tables come from
:mod:`dashboard.network_data`; the map itself is :mod:`dashboard.network_charts`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.chart_style import style
from dashboard.charts import focused_grid, step_values
from dashboard.formatting import human_duration, time_unit
from dashboard.network_charts import BUSY_SCALE
from dashboard.network_data import links_hit
from engine.config import CongestionEpisode
from engine.step_time.topology import Topology

CONGESTION_SCALE = [[0.0, "#FCBBA1"], [1.0, "#99000D"]]


def make_rack_load(
    steps: pd.DataFrame,
    capacity: dict[str, int],
    end_s: float,
    time_s: float | None = None,
    focus_end_s: float | None = None,
    points: int = 600,
    title: str = "",
) -> go.Figure:
    """A heatmap of the share of each rack's GPUs busy (rows) over time (columns).

    Args:
        steps: :func:`dashboard.network_data.rack_load` steps (time_s, rack, value: busy GPUs).
        capacity: GPUs per rack (:func:`dashboard.network_data.rack_capacity`); sets the rows.
        end_s: end of the data (s); the step functions are sampled at ``points`` times.
        time_s: a moment to mark with a vertical line (the topology's moment).
        focus_end_s: end of the initially shown range (s), as in
            :func:`dashboard.charts.make_utilization`; three quarters of the samples fall in it.
    """
    focus_end_s = end_s if focus_end_s is None else min(focus_end_s, end_s)
    unit, scale = time_unit(focus_end_s)
    grid = focused_grid(focus_end_s, end_s, points)
    racks = list(capacity)
    values = np.array([_sample(steps, rack, grid) for rack in racks]).reshape(len(racks), -1)
    z = values / np.array([max(capacity[r], 1) for r in racks])[:, None]
    text = [
        [f"{v:.0f} of {capacity[r]} GPUs busy" for v in row]
        for r, row in zip(racks, values, strict=True)
    ]
    bar = {"title": {"text": "GPUs busy"}, "tickformat": ".0%"}
    fig = go.Figure(
        go.Heatmap(
            x=grid / scale, y=racks, z=z, text=text, zmin=0, zmax=1,
            colorscale=BUSY_SCALE, colorbar={**bar, "thickness": 14},
            hovertemplate=f"%{{y}} at %{{x:,.2f}} {unit}: %{{text}}<extra></extra>",
        )
    )  # fmt: skip
    _mark_time(fig, time_s, scale)
    fig.update_xaxes(title=f"Simulated time ({unit})", range=[0, focus_end_s / scale])
    fig.update_yaxes(title="Rack", type="category", autorange="reversed")
    what = "Share of each rack's GPUs busy"
    return _time_margins(style(fig, title or f"{what} over time", height=170 + 42 * len(racks)))


def _sample(steps: pd.DataFrame, rack: str, grid: np.ndarray) -> np.ndarray:
    rows = steps[steps["rack"] == rack].sort_values("time_s")
    if rows.empty:
        return np.zeros(len(grid))
    return step_values(rows["time_s"].to_numpy(float), rows["value"].to_numpy(float), grid)


def _mark_time(fig: go.Figure, time_s: float | None, scale: float, layer: str = "above") -> None:
    """A dotted vertical line at the topology's moment, labelled just above the plot."""
    if time_s is None:
        return
    fig.add_vline(x=time_s / scale, line={"color": "#222", "width": 2, "dash": "dot"}, layer=layer)
    fig.add_annotation(
        x=time_s / scale, y=1.0, yref="paper", yanchor="bottom", showarrow=False,
        text=f"moment shown: {human_duration(time_s)}", font={"size": 13, "color": "#222"},
    )  # fmt: skip


def make_congestion_timeline(
    episodes: Sequence[CongestionEpisode],
    topology: Topology,
    end_s: float,
    time_s: float | None = None,
) -> go.Figure:
    """Congestion episodes as bars on one row per link target (``uplink:rack1``, ...), colored
    by the bandwidth divisor; hover lists the links each slows.

    Args:
        episodes: the scenario's ``network.congestion``.
        topology: the scenario's topology (which links each target hits).
        end_s: end of the initially shown time range (s); zoom out to see episodes beyond it.
        time_s: a moment to mark with a vertical line.
    """
    unit, scale = time_unit(end_s)
    targets = list(dict.fromkeys(e.links for e in episodes))
    top = max((e.factor for e in episodes), default=1.0)
    fig = go.Figure()
    if episodes:
        fig.add_trace(
            go.Bar(
                y=[e.links for e in episodes], base=[e.start_s / scale for e in episodes],
                x=[(e.end_s - e.start_s) / scale for e in episodes], orientation="h",
                marker={"color": [e.factor for e in episodes], "colorscale": CONGESTION_SCALE,
                        "cmin": 1, "cmax": max(top, 1.01), "line": {"color": "#333", "width": 1},
                        "colorbar": {"title": {"text": "÷ factor"}, "thickness": 14}},
                text=[f"÷{e.factor:g}" for e in episodes], textposition="inside",
                insidetextanchor="middle", textangle=0, constraintext="none", width=0.6,
                name="congestion",
                hovertext=[_episode_text(e, topology) for e in episodes],
                hovertemplate="%{hovertext}<extra></extra>",
            )
        )  # fmt: skip
    else:
        fig.add_annotation(
            text="No congestion episodes in this scenario", showarrow=False, x=0.5, y=0.5,
            xref="paper", yref="paper", font={"size": 15, "color": "#555"},
        )  # fmt: skip
    _mark_time(fig, time_s, scale, layer="below")  # behind the bars, so "÷4" stays readable
    fig.update_xaxes(title=f"Simulated time ({unit})", range=[0, end_s / scale])
    fig.update_yaxes(
        title="Links", type="category", categoryorder="array", categoryarray=targets,
        autorange="reversed", visible=bool(episodes),
    )  # fmt: skip
    fig.update_layout(showlegend=False)
    fig = style(fig, "Congested links over time", height=190 + 44 * max(len(targets), 1))
    return _time_margins(fig)


def _time_margins(fig: go.Figure) -> go.Figure:
    """Fixed side margins, so the rack and congestion charts' time axes line up."""
    fig.update_layout(margin={"l": 150, "r": 150})
    fig.update_yaxes(automargin=False)
    return fig


def _episode_text(episode: CongestionEpisode, topology: Topology) -> str:
    hit = links_hit(topology, episode)
    listed = ", ".join(hit[:6]) + (f", … ({len(hit)} in all)" if len(hit) > 6 else "")
    return (
        f"<b>{episode.links}</b>: bandwidth ÷{episode.factor:g} from "
        f"{human_duration(episode.start_s)} to {human_duration(episode.end_s)}"
        f"<br>slows {len(hit)} link(s): {listed or 'none (check the name)'}"
    )

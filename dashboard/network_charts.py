"""The Network page's topology at a moment (a pure chart builder; the page's time charts, rack
load and congestion, are in :mod:`dashboard.network_timelines`).

The topology is drawn from :class:`engine.step_time.topology.Topology`: the core switch on top, one
switch
per rack below it, the rack's nodes in a row under their switch. GPUs are not drawn one by one
(512 of them would be unreadable): a node is one square whose fill is the share of its GPUs
busy, with its GPUs ("n3: 8 × v100") and its jobs in the hover. Link width grows with capacity;
links congested at the chosen moment are red. Tables come from :mod:`dashboard.network_data`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.chart_style import style
from dashboard.formatting import human_duration
from dashboard.network_data import active_at, node_occupancy
from engine.step_time.topology import Topology

LINK_COLOR, CONGESTED_COLOR = "#9A9A9A", "#D62728"
BUSY_SCALE = [[0.0, "#F4F4F4"], [0.5, "#6BAED6"], [1.0, "#08306B"]]
RACK_GAP = 1.6  # empty node slots between racks


def layout_positions(topology: Topology) -> dict[str, tuple[float, float]]:
    """x, y of every drawn vertex: nodes in a row at y = 0, grouped by rack (racks sorted),
    each rack switch at y = 1 above its nodes' middle, the core at y = 2 above the switches."""
    positions: dict[str, tuple[float, float]] = {}
    x = 0.0
    for rack in sorted(set(topology.node_rack)):
        members = [i for i, r in enumerate(topology.node_rack) if r == rack]
        for offset, node in enumerate(members):
            positions[f"n{node}"] = (x + offset, 0.0)
        positions[f"tor:{rack}"] = (x + (len(members) - 1) / 2, 1.0)
        x += len(members) + RACK_GAP
    switches = [p[0] for v, p in positions.items() if v.startswith("tor:")]
    positions["core"] = (float(np.mean(switches)), 2.0)
    return positions


def node_gpus(topology: Topology, node: str) -> int:
    """GPUs of a node (``"n3"``), from the run's node layout."""
    return topology.layout.node_gpus[int(node[1:])]


def make_topology(
    topology: Topology, segments: pd.DataFrame, time_s: float, title: str = ""
) -> go.Figure:
    """The cluster's network at ``time_s`` for one policy.

    Args:
        topology: the scenario's :class:`Topology` (cluster and network config).
        segments: that policy's segments table (job_id, start_s, end_s, num_gpus, nodes, ...).
        time_s: the moment shown (s): jobs running then, links congested then.
        title: chart title; by default it names the moment, busy GPUs and congested links.
    """
    positions = layout_positions(topology)
    occupancy = node_occupancy(segments, topology.node_rack, time_s)
    fig = go.Figure()
    congested = _add_links(fig, topology, positions, time_s)
    _add_nodes(fig, topology, positions, occupancy)
    _add_switches(fig, topology, positions)
    busy = int(active_at(segments, time_s)["num_gpus"].sum())
    total = sum(node_gpus(topology, f"n{i}") for i in range(len(topology.node_rack)))
    title = title or (
        f"At {human_duration(time_s)}: {busy} of {total} GPUs busy"
        + (f", {congested} link(s) congested" if congested else ", no congested link")
    )
    fig.update_xaxes(visible=False, range=_x_range(positions))
    fig.update_yaxes(visible=False, range=[-0.6, 2.3])
    fig.update_layout(plot_bgcolor="white")
    fig = style(fig, title, height=440)
    # the legend in one row above the drawing: a column at the right overlapped the colorbar
    fig.update_layout(legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0,
                              "xanchor": "left"})  # fmt: skip
    return fig


def _x_range(positions: dict[str, tuple[float, float]]) -> list[float]:
    xs = [p[0] for p in positions.values()]
    return [min(xs) - 1.0, max(xs) + 1.0]


def _add_links(
    fig: go.Figure, topology: Topology, positions: dict[str, tuple[float, float]], time_s: float
) -> int:
    """Node links and rack uplinks as lines, width by capacity, red where congested; returns
    how many are congested at ``time_s``."""
    top = max(topology.capacity_gbps.values())
    lines: dict[tuple[bool, float], tuple[list, list]] = {}
    hover: dict[str, list] = {"x": [], "y": [], "text": [], "color": []}
    for a, b, data in topology.graph.edges(data=True):
        if data["kind"] not in ("node", "uplink"):
            continue
        (xa, ya), (xb, yb) = positions[a], positions[b]
        factor = topology.congestion_factor(data["link"], time_s)
        width = round(1.0 + 5.0 * data["capacity_gbps"] / top, 1)
        width = max(width, 3.0) if factor > 1 else width  # a congested node link stands out
        xs, ys = lines.setdefault((factor > 1, width), ([], []))
        xs += [xa, xb, None]
        ys += [ya, yb, None]
        hover["x"].append((xa + xb) / 2)
        hover["y"].append((ya + yb) / 2)
        hover["text"].append(_link_text(data["link"], data["capacity_gbps"], factor))
        hover["color"].append(CONGESTED_COLOR if factor > 1 else LINK_COLOR)
    for (is_congested, width), (xs, ys) in sorted(lines.items()):
        name = "congested link" if is_congested else "link (width ∝ capacity)"
        fig.add_trace(
            go.Scatter(
                x=xs, y=ys, mode="lines", name=name, legendgroup=name, hoverinfo="skip",
                line={"color": CONGESTED_COLOR if is_congested else LINK_COLOR, "width": width},
                showlegend=not any(t.name == name for t in fig.data),
            )
        )  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=hover["x"], y=hover["y"], mode="markers", showlegend=False, name="links",
            marker={"size": 12, "color": "rgba(0,0,0,0)"},  # invisible, hoverable
            text=hover["text"], hovertemplate="%{text}<extra></extra>",
        )
    )  # fmt: skip
    return sum(1 for c in hover["color"] if c == CONGESTED_COLOR)


def _link_text(link: str, capacity_gbps: float, factor: float) -> str:
    text = f"{link}: {capacity_gbps:,.0f} Gb/s"
    if factor > 1:
        text += f"<br><b>congested: bandwidth ÷{factor:g}</b> ({capacity_gbps / factor:,.1f} Gb/s)"
    return text


def _add_nodes(
    fig: go.Figure,
    topology: Topology,
    positions: dict[str, tuple[float, float]],
    occupancy: pd.DataFrame,
) -> None:
    """Nodes as squares filled by the share of their GPUs busy."""
    names = [f"n{i}" for i in range(len(topology.node_rack))]
    sizes = np.array([node_gpus(topology, n) for n in names])
    occ = occupancy.reindex(names)
    busy = occ["busy_gpus"].fillna(0).to_numpy()
    share = np.minimum(busy / sizes, 1.0)
    label = [f"{b:.0f}" for b in busy]
    span = _x_range(positions)
    marker_px = float(np.clip(800 / (span[1] - span[0]), 6, 30))  # about 3/4 of a node's slot
    hover = [
        _node_text(n, topology, int(s), busy_label, jobs)
        for n, s, busy_label, jobs in zip(names, sizes, label, occ["jobs"], strict=True)
    ]
    fig.add_trace(
        go.Scatter(
            x=[positions[n][0] for n in names], y=[0.0] * len(names), name="node (fill: GPUs busy)",
            mode="markers+text" if marker_px >= 20 else "markers", text=label,
            textfont={"size": 11, "color": ["white" if s > 0.55 else "#222" for s in share]},
            marker={
                "symbol": "square", "size": marker_px, "color": share, "cmin": 0, "cmax": 1,
                "colorscale": BUSY_SCALE, "line": {"color": "#555", "width": 1},
                "colorbar": {"title": {"text": "GPUs busy"}, "tickformat": ".0%", "len": 0.6,
                             "thickness": 14},
            },
            hovertext=hover, hovertemplate="%{hovertext}<extra></extra>",
        )
    )  # fmt: skip


def _node_text(name: str, topology: Topology, gpus: int, busy: str, jobs: object) -> str:
    """Hover of a node: "n3: 8 × v100 (rack0) · 6 busy" and its jobs (at most 10)."""
    worker_type = topology.graph.nodes[name]["worker_type"]
    rack = topology.graph.nodes[name]["rack"]
    head = f"<b>{name}: {gpus} × {worker_type}</b> ({rack}) · {busy} busy"
    jobs = jobs if isinstance(jobs, list) else []  # NaN for a node without jobs
    shown = "<br>".join(jobs[:10]) + (f"<br>… and {len(jobs) - 10} more" if len(jobs) > 10 else "")
    return head + ("<br>" + shown if jobs else "<br>idle")


def _add_switches(
    fig: go.Figure, topology: Topology, positions: dict[str, tuple[float, float]]
) -> None:
    racks = sorted(set(topology.node_rack))
    tors = [f"tor:{r}" for r in racks]
    fig.add_trace(
        go.Scatter(
            x=[positions[t][0] for t in tors], y=[1.0] * len(tors), mode="markers+text",
            name="rack switch", text=racks, textposition="middle right",
            marker={"symbol": "diamond", "size": 18, "color": "#4D4D4D"},
            hovertemplate="switch of %{text}<extra></extra>",
        )
    )  # fmt: skip
    core = positions["core"]
    fig.add_trace(
        go.Scatter(
            x=[core[0]], y=[core[1]], mode="markers+text", name="core switch", text=["core"],
            textposition="middle right", marker={"symbol": "circle", "size": 22, "color": "#222"},
            hovertemplate="core switch<extra></extra>",
        )
    )  # fmt: skip
    for rack in racks:
        members = [i for i, r in enumerate(topology.node_rack) if r == rack]
        fig.add_annotation(
            x=positions[f"tor:{rack}"][0], y=-0.42, showarrow=False,
            text=f"<b>{rack}</b>: {_rack_mix(topology, members)}", font={"size": 13},
        )  # fmt: skip


def _rack_mix(topology: Topology, members: list[int]) -> str:
    counts: dict[str, int] = {}
    for node in members:
        key = f"{node_gpus(topology, f'n{node}')} {topology.graph.nodes[f'n{node}']['worker_type']}"
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{n} × {k}" for k, n in counts.items())

"""The house look of every chart: one color per policy, one per worker type, large fonts."""

from __future__ import annotations

from collections.abc import Iterable

import plotly.graph_objects as go

# Okabe-Ito (color-blind safe) first, strongest first, yellow left out (unreadable on white);
# then dark, distinct colors from plotly's Dark24 and Alphabet for the 9th to 24th policy.
POLICY_PALETTE = (
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#4D4D4D", "#8C6D1F",
    "#750D86", "#1CA71C", "#FB0D0D", "#0D2A63", "#00A08B", "#FC0080", "#6C7C32", "#A777F1",
    "#862A16", "#1616A7", "#B68100", "#778AAE", "#620042", "#90AD1C", "#2ED9FF", "#B2828D",
)  # fmt: skip
LEGEND_ROW_PX = 24
# Muted, distinct from the policy colors; fixed for the common GPU generations.
KNOWN_WORKER_COLORS = {
    "k80": "#8FB8DE", "p100": "#9BD08A", "v100": "#F5B25F", "a100": "#B9A3D6",
    "h100": "#F28E9A", "t4": "#D9CF6A",
}  # fmt: skip
EXTRA_WORKER_PALETTE = ("#1F78B4", "#33A02C", "#FF7F00", "#6A3D9A", "#E31A1C", "#B15928")
FONT_SIZE = 15
# Teams: Paul Tol's "muted" scheme (color-blind safe), apart from the policies' Okabe-Ito colors.
TEAM_PALETTE = (  # strong colors first: the first teams' lines read on white
    "#332288", "#117733", "#CC6677", "#88CCEE", "#AA4499", "#44AA99", "#999933", "#882255",
    "#DDCC77", "#6699CC", "#661100", "#888888",
)  # fmt: skip


def policy_colors(policies: Iterable[str]) -> dict[str, str]:
    """Policy display name -> color, assigned in scenario order from :data:`POLICY_PALETTE`."""
    names = list(dict.fromkeys(policies))
    return {name: POLICY_PALETTE[i % len(POLICY_PALETTE)] for i, name in enumerate(names)}


def worker_type_colors(worker_types: Iterable[str]) -> dict[str, str]:
    """Worker type -> color; known GPU generations keep a fixed color."""
    colors: dict[str, str] = {}
    extra = 0
    for worker_type in sorted(dict.fromkeys(worker_types)):
        if worker_type in KNOWN_WORKER_COLORS:
            colors[worker_type] = KNOWN_WORKER_COLORS[worker_type]
        else:
            colors[worker_type] = EXTRA_WORKER_PALETTE[extra % len(EXTRA_WORKER_PALETTE)]
            extra += 1
    return colors


def team_colors(teams: Iterable[str]) -> dict[str, str]:
    """Team (ClusterQueue) -> color, in the order given (the queues' order in the scenario)."""
    names = list(dict.fromkeys(str(team) for team in teams))
    return {name: TEAM_PALETTE[i % len(TEAM_PALETTE)] for i, name in enumerate(names)}


def height_for(items: int, base_px: int, per_item_px: int = LEGEND_ROW_PX) -> int:
    """A chart height that grows with the number of policies (legend rows or bars)."""
    return max(base_px, 160 + per_item_px * items)


def style(fig: go.Figure, title: str, height: int = 460) -> go.Figure:
    """Applies the house look: white template, large fonts, the legend outside the plot on the
    right (one entry per row, never over the title or the data)."""
    fig.update_layout(
        template="plotly_white",
        title={
            "text": title,
            "x": 0,
            "xanchor": "left",
            "yref": "container",
            "y": 1,
            "yanchor": "top",
            "pad": {"t": 14},
            "font": {"size": FONT_SIZE + 3},
        },
        font={"size": FONT_SIZE},
        height=height,
        margin={"l": 80, "r": 30, "t": 70 if title else 40, "b": 60},
        legend={"orientation": "v", "yanchor": "top", "y": 1, "xanchor": "left", "x": 1.02},
        hoverlabel={"font_size": FONT_SIZE - 1},
    )
    return fig

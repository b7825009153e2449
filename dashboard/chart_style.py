"""The house look of every chart: one color per policy, one per worker type, large fonts."""

from __future__ import annotations

from collections.abc import Iterable

import plotly.graph_objects as go

# Okabe-Ito (color-blind safe), strongest first; yellow left out (unreadable on white).
POLICY_PALETTE = (
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#4D4D4D", "#8C6D1F",
)  # fmt: skip
# Muted, distinct from the policy colors; fixed for the common GPU generations.
KNOWN_WORKER_COLORS = {
    "k80": "#8FB8DE", "p100": "#9BD08A", "v100": "#F5B25F", "a100": "#B9A3D6",
    "h100": "#F28E9A", "t4": "#D9CF6A",
}  # fmt: skip
EXTRA_WORKER_PALETTE = ("#1F78B4", "#33A02C", "#FF7F00", "#6A3D9A", "#E31A1C", "#B15928")
FONT_SIZE = 15


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


def style(fig: go.Figure, title: str, height: int = 460) -> go.Figure:
    """Applies the house look: white template, large fonts, legend on top."""
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
        margin={"l": 80, "r": 30, "t": 100 if title else 50, "b": 60},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
        hoverlabel={"font_size": FONT_SIZE - 1},
    )
    return fig

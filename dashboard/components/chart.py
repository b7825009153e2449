"""One way to draw a figure, so every chart looks the way :mod:`dashboard.charts` built it."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

PLOTLY_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"scale": 2}}


def render_chart(figure: go.Figure, key: str) -> None:
    """Draws ``figure`` full width with its own template (not Streamlit's theme)."""
    st.plotly_chart(figure, key=key, theme=None, config=PLOTLY_CONFIG)

"""The "2026 cluster" button: one click loads the MLPerf scenario of :mod:`engine.presets`."""

from __future__ import annotations

import streamlit as st

from dashboard.state import apply_config
from engine.presets import CLUSTER_2026_NAME, cluster_2026_scenario


def _load() -> None:
    s = st.session_state
    config = cluster_2026_scenario(int(s["seed"]))
    apply_config(config)
    s["flash"] = (
        "success",
        f"Loaded the {CLUSTER_2026_NAME}: {config.cluster.total_gpus} GPUs "
        "(64 H100-SXM + 32 B200 nodes of 8), the LLM-era job mix, FIFO, LAS and Gavel max-min "
        "on the mlperf matrix. Prices and their sources are on the Matrix page.",
    )


def render_2026_button() -> None:
    """A button that makes the 2026 cluster the current scenario."""
    st.button(
        f"Load the {CLUSTER_2026_NAME}", key="load_2026", on_click=_load,
        help="64 H100-SXM + 32 B200 nodes of 8 GPUs, LLM-era mix (200 jobs, daily cycle), "
        "FIFO, Tiresias LAS and Gavel max-min, MLPerf throughputs.",
    )  # fmt: skip

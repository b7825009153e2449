"""The "2026 cluster" button: one click loads the MLPerf scenario of :mod:`engine.presets`."""

from __future__ import annotations

import streamlit as st

from dashboard.components.power_section import cluster_power_text, site_spec
from dashboard.scenarios import add_scenario, scenario_names, switch_to
from dashboard.state import current, set_current
from engine.presets import CLUSTER_2026_NAME, cluster_2026_scenario


def _load() -> None:
    """Adds the 2026 cluster as its own scenario beside the others (issue 38 point 3) and makes
    it current; a second click reloads that scenario, never another one."""
    config = cluster_2026_scenario(current().seed)
    if CLUSTER_2026_NAME in scenario_names():
        switch_to(CLUSTER_2026_NAME)
        set_current(config)
    else:
        add_scenario(CLUSTER_2026_NAME, config)
    st.session_state["flash"] = (
        "success",
        f"Loaded the {CLUSTER_2026_NAME} as its own scenario, beside your others: "
        f"{config.cluster.total_gpus} GPUs "
        "(64 H100-SXM + 32 B200 nodes of 8), the LLM-era job mix, FIFO, LAS and Gavel max-min "
        "on the mlperf matrix. Prices and their sources are on the Matrix page. "
        + cluster_power_text(config.cluster, site_spec(config)).replace("**", ""),
    )


def render_2026_button() -> None:
    """A button that makes the 2026 cluster the current scenario."""
    st.button(
        f"Load the {CLUSTER_2026_NAME}", key="load_2026", on_click=_load,
        help="64 H100-SXM + 32 B200 nodes of 8 GPUs, LLM-era mix (200 jobs, daily cycle), "
        "FIFO, Tiresias LAS and Gavel max-min, MLPerf throughputs.",
    )  # fmt: skip

"""Controls shared by the study pages: quick edits of the current variant, seeds, metric."""

from __future__ import annotations

import streamlit as st

from dashboard.components.cluster_panel import render_gpu_mix
from dashboard.study_tables import STUDY_METRICS


def render_variant_editor() -> None:
    """The current scenario's GPU mix, network, round length and load (same widgets and keys as
    the Scenario page, so they edit the current scenario; the rest is on that page)."""
    mix_tab, other_tab = st.tabs(["GPU mix", "Network, rounds & load"])
    with mix_tab:
        render_gpu_mix()
    with other_tab:
        cols = st.columns(4)
        cols[0].number_input(
            "Background load (share of each link)", min_value=0.0, max_value=0.9, step=0.05,
            key="background_load",
        )  # fmt: skip
        cols[1].number_input(
            "Rack uplink oversubscription (x:1)", min_value=1.0, step=0.5,
            key="uplink_oversubscription",
        )  # fmt: skip
        cols[2].number_input("Round length (s)", min_value=1.0, step=60.0, key="round_duration_s")
        cols[3].number_input(
            "Arrival scale (x load)", min_value=0.05, step=0.25, key="arrival_scale",
            help="Arrival times divided by this factor: 1.5 = jobs arrive 1.5x as fast.",
        )  # fmt: skip
        st.caption("Policies and their parameters, the trace and the other rules: Scenario page.")


def render_seed_count(key: str, default: int = 3) -> list[int]:
    """A seed-count input; returns the seeds 0..n-1 (the same for every variant: paired)."""
    st.session_state.setdefault(key, default)
    count = st.number_input(
        "Seeds", min_value=1, max_value=50, step=1, key=key,
        help="Each variant runs with seeds 0..n-1 (trace and simulation); intervals are 95% over "
        "seeds (Student's t on the log scale of the mean, never below zero), differences are "
        "paired on the same seeds.",
    )  # fmt: skip
    return list(range(int(count)))


def render_metric_picker(key: str, label: str = "Metric") -> str:
    """A selectbox of :data:`STUDY_METRICS`; returns the metric key."""
    st.session_state.setdefault(key, "jct_mean_s")
    return st.selectbox(label, list(STUDY_METRICS), key=key,
                        format_func=lambda k: STUDY_METRICS[k].title)  # fmt: skip

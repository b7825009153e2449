"""The Network page's pickers: which policy, and which moment of the run."""

from __future__ import annotations

import streamlit as st

from dashboard.formatting import human_duration
from dashboard.network_data import default_time, jobs_at, time_options
from engine.results import ComparisonResult, SimulationResult


def render_network_controls(
    result: ComparisonResult, end_s: float, focus_end_s: float
) -> tuple[SimulationResult, float]:
    """A policy picker and a time slider over the run (its steps finer before ``focus_end_s``);
    returns the policy's result and the moment chosen (s). The slider starts inside the first
    congestion episode, or when most GPUs were busy."""
    s = st.session_state
    if s.get("network_policy") not in result.policies:
        s["network_policy"] = result.policies[0]
    left, right = st.columns([1, 3])
    policy = left.selectbox("Policy", result.policies, key="network_policy")
    sim = next(r for r in result.results if r.policy == policy)
    episodes = result.config.network.congestion
    options = time_options(end_s, episodes, focus_end_s)
    if s.get("network_time_s") not in options:
        wanted = default_time(sim.utilization, episodes)
        s["network_time_s"] = min(options, key=lambda t: abs(t - wanted))
    time_s = right.select_slider(
        "Moment shown", options, key="network_time_s",
        format_func=human_duration,
        help="The topology shows the jobs running and the links congested at this moment.",
    )  # fmt: skip
    return sim, float(time_s)


def render_jobs_at(sim: SimulationResult, time_s: float) -> None:
    """The jobs running at ``time_s`` in an expander, biggest first."""
    table = jobs_at(sim.segments, sim.jobs, time_s)
    with st.expander(f"{len(table):,} job segment(s) running at this moment"):
        st.dataframe(
            table, hide_index=True,
            column_config={
                "start_s": st.column_config.NumberColumn("Start (s)", format="%.0f"),
                "end_s": st.column_config.NumberColumn("End (s)", format="%.0f"),
                "network_sensitivity": st.column_config.NumberColumn(
                    "Network sensitivity", format="%.2f×",
                    help="Iteration time across racks over node-local (1 = insensitive)",
                ),
            },
        )  # fmt: skip

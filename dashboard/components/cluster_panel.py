"""The GPU mix and network editors."""

from __future__ import annotations

import streamlit as st

from dashboard.components.table_editor import render_table_editor
from dashboard.runner import worker_types
from dashboard.tables import cluster_from_frame, congestion_from_frame, extra_types_from_frame
from engine.errors import ConfigError
from engine.placement import list_placements

PLACEMENT_LABELS = {
    "consolidated": "Consolidated (fewest nodes, then racks)",
    "first_fit": "First fit (no consolidation)",
}


def extra_type_names() -> list[str]:
    """Names of the valid extra GPU types in the session (options of the GPU mix)."""
    try:
        return [spec.name for spec in extra_types_from_frame(st.session_state["extra_types"])]
    except ConfigError:
        return []


def render_extra_types() -> None:
    """GPU types added by a speed ratio (e.g. a100 = 2 x v100), with the error if any."""
    config = {
        "name": st.column_config.TextColumn("New GPU type", help="e.g. a100", required=True),
        "base": st.column_config.SelectboxColumn(
            "Compared with", options=worker_types(), required=True,
            help="A GPU type of the measured throughput matrix",
        ),
        "speed_ratio": st.column_config.NumberColumn(
            "Speed ratio", min_value=0.01, required=True,
            help="Throughput relative to the compared type, for every job type (2 = twice as fast)",
        ),
    }  # fmt: skip
    st.markdown("**Extra GPU types** (optional): unmeasured types, by a speed ratio")
    frame = render_table_editor("extra_types", config)
    try:
        extra_types_from_frame(frame)
    except ConfigError as exc:
        st.error(str(exc))


def render_gpu_mix() -> None:
    """Rows of (worker type, nodes, GPUs per node, rack), with a capacity summary or the error."""
    config = {
        "worker_type": st.column_config.SelectboxColumn(
            "GPU type", options=[*worker_types(), *extra_type_names()], required=True,
            help="A worker type of the throughput matrix",
        ),
        "nodes": st.column_config.NumberColumn("Nodes", min_value=1, step=1, required=True),
        "gpus_per_node": st.column_config.NumberColumn(
            "GPUs per node", min_value=1, max_value=64, step=1, required=True
        ),
        "rack": st.column_config.TextColumn("Rack", help="Groups sharing a rack share its switch"),
    }  # fmt: skip
    st.markdown("**GPU mix**: one row per group of identical nodes (add or delete rows freely)")
    frame = render_table_editor("gpu_mix", config)
    try:
        cluster = cluster_from_frame(frame)
    except ConfigError as exc:
        st.error(str(exc))
        return
    parts = ", ".join(f"{n} × {wt}" for wt, n in sorted(cluster.capacity().items()))
    racks = len({g.rack for g in cluster.node_groups})
    st.caption(f"**{cluster.total_gpus} GPUs** in {racks} rack(s): {parts}.")


def render_network() -> None:
    """Bandwidths, the network-penalty switch and the congestion schedule."""
    st.markdown("**Network** (ring all-reduce model)")
    cols = st.columns(3)
    cols[0].number_input("Intra-node (Gbps)", min_value=0.1, key="intra_node_gbps")
    cols[1].number_input("Node to node, same rack (Gbps)", min_value=0.1, key="intra_rack_gbps")
    cols[2].number_input("Across racks (Gbps)", min_value=0.1, key="cross_rack_gbps")
    left, right = st.columns(2)
    left.toggle(
        "Charge a network penalty for spread placements", key="network_enabled",
        help="Off: every job runs at its measured, consolidated speed.",
    )  # fmt: skip
    right.selectbox(
        "Placement", list_placements(), key="placement",
        format_func=lambda name: PLACEMENT_LABELS.get(name, name),
        help="How a job's GPUs are chosen once a policy grants them: packed onto as few nodes "
        "and racks as possible, or the first free GPUs anywhere.",
    )  # fmt: skip
    st.markdown("**Congestion episodes** (bandwidth divided by *factor* on the chosen links)")
    config = {
        "start_s": st.column_config.NumberColumn("Start (s)", min_value=0.0, required=True),
        "end_s": st.column_config.NumberColumn("End (s)", min_value=0.0, required=True),
        "factor": st.column_config.NumberColumn("Factor", min_value=1.0, required=True),
        "links": st.column_config.TextColumn(
            "Links", help="inter_node, cross_rack, or rack:<name>", default="inter_node"
        ),
    }
    frame = render_table_editor("congestion", config)
    try:
        congestion_from_frame(frame)
    except ConfigError as exc:
        st.error(str(exc))

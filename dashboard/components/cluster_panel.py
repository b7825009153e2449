"""The GPU mix and network editors.

Racks come from the GPU mix's rack column (rows sharing a rack name share its switch); the
network inputs set the links between them (see :mod:`engine.step_time.topology`).
"""

from __future__ import annotations

import dataclasses

import streamlit as st

from dashboard.components.table_editor import gpu_type_column, render_table_editor
from dashboard.network_data import rack_summary
from dashboard.runner import worker_types
from dashboard.session_keys import TABLE_ERRORS
from dashboard.state import bind, current, edit
from dashboard.state_fields import column_range
from engine.config import NetworkConfig
from engine.placement import list_placements
from engine.step_time.topology import Topology

MATRIX_CHOICES = ("gavel", "mlperf", "mlperf-best")
MATRIX_LABELS = {
    "gavel": "gavel: Gavel's 2019 measurements (K80, P100, V100)",
    "mlperf": "mlperf: MLPerf Training time-to-train, typical (median over submitters)",
    "mlperf-best": "mlperf-best: MLPerf Training time-to-train, best submission",
}

PLACEMENT_LABELS = {
    "consolidated": "Consolidated (fewest nodes, then racks)",
    "first_fit": "First fit (no consolidation)",
}


def _on_matrix_change() -> None:
    """Keeps the assumed GPU type of a trace valid in the new matrix (H100-SXM for MLPerf)."""
    config = current()
    types = worker_types(config.throughputs)
    if config.trace.assumed_worker_type not in types:
        edit("trace.assumed_worker_type", "H100-SXM" if "H100-SXM" in types else types[-1])


def extra_type_names() -> list[str]:
    """Names of the scenario's extra GPU types (options of the GPU mix)."""
    return [spec.name for spec in current().extra_worker_types]


def render_extra_types() -> None:
    """GPU types added by a speed ratio (e.g. a100 = 2 x v100), with the error if any."""
    config = {
        "name": st.column_config.TextColumn("New GPU type", help="e.g. a100", required=True),
        "base": gpu_type_column("Compared with", "A GPU type of the measured throughput matrix"),
        "speed_ratio": st.column_config.NumberColumn(
            "Speed ratio", **column_range("extra_worker_types", "speed_ratio"), required=True,
            help="Throughput relative to the compared type, for every job type (2 = twice as fast)",
        ),
    }  # fmt: skip
    title = "**Extra GPU types** (optional): unmeasured types, by a speed ratio"
    render_table_editor("extra_types", config, title)


def render_gpu_mix() -> None:
    """Rows of (worker type, nodes, GPUs per node, rack), with a capacity summary or the error."""
    config = {
        "worker_type": gpu_type_column(
            "GPU type", "A worker type of the throughput matrix", extra_type_names()
        ),
        "nodes": st.column_config.NumberColumn("Nodes", min_value=1, step=1, required=True),
        "gpus_per_node": st.column_config.NumberColumn(
            "GPUs per node", **column_range("cluster.node_groups", "gpus_per_node"), step=1,
            required=True,
        ),
        "rack": st.column_config.TextColumn("Rack", help="Groups sharing a rack share its switch"),
    }  # fmt: skip
    choices = list(dict.fromkeys([*MATRIX_CHOICES, current().throughputs]))
    st.selectbox(
        "Throughput matrix", choices, format_func=lambda k: MATRIX_LABELS.get(k, k),
        **bind("throughputs", _on_matrix_change),
        help="Where job speeds come from; the Matrix page shows every number and its source.",
    )  # fmt: skip
    title = "**GPU mix**: one row per group of identical nodes (add or delete rows freely)"
    if not render_table_editor("gpu_mix", config, title):
        return
    cluster = current().cluster
    parts = ", ".join(f"{n} × {wt}" for wt, n in sorted(cluster.capacity().items()))
    racks = len({g.rack for g in cluster.node_groups})
    st.caption(f"**{cluster.total_gpus} GPUs** in {racks} rack(s): {parts}.")


LINK_HELP = (
    "Which links slow down: inter_node (every link between nodes), cross_rack (every rack "
    "uplink), rack:<rack> (a rack's node links and its uplink, e.g. rack:rack1), uplink:<rack> "
    "(one rack's uplink, e.g. uplink:rack1) or node:n<i> (one node's link to its rack switch, "
    "e.g. node:n3; nodes are numbered from n0 in GPU-mix order)"
)


def render_network() -> None:
    """Bandwidths, rack uplinks, background load, link sharing, the network-penalty switch,
    the placement and the congestion schedule."""
    st.markdown("**Network** (ring all-reduce over the links between the job's nodes)")
    cols = st.columns(3)
    cols[0].number_input("Intra-node (Gbps)", **bind("intra_node_gbps"))
    cols[1].number_input("Node to node, same rack (Gbps)", **bind("intra_rack_gbps"))
    cols[2].number_input(
        "Across racks, per flow (Gbps)", **bind("cross_rack_gbps"),
        help="The most one job's ring gets through the core, however idle the uplinks are.",
    )  # fmt: skip
    cols = st.columns(3)
    cols[0].number_input(
        "Rack uplink oversubscription (x:1)", step=0.5,
        help=_field_help("uplink_oversubscription"), **bind("uplink_oversubscription"),
    )  # fmt: skip
    cols[1].number_input(
        "Background load (share of each link)", step=0.05,
        help=_field_help("background_load"), **bind("background_load"),
    )  # fmt: skip
    cols[2].toggle(
        "Jobs on a link share it", help=_field_help("share_links"), **bind("share_links")
    )
    _render_rack_summary()
    left, right = st.columns(2)
    left.toggle(
        "Charge a network penalty for spread placements", **bind("network_enabled"),
        help="Off: every job runs at its measured, consolidated speed.",
    )  # fmt: skip
    right.selectbox(
        "Placement", list_placements(), **bind("placement"),
        format_func=lambda name: PLACEMENT_LABELS.get(name, name),
        help="How a job's GPUs are chosen once a policy grants them: packed onto as few nodes "
        "and racks as possible, or the first free GPUs anywhere.",
    )  # fmt: skip
    _render_congestion()


def _field_help(name: str) -> str:
    return next(f.metadata["help"] for f in dataclasses.fields(NetworkConfig) if f.name == name)


def _render_rack_summary() -> None:
    """Racks, their nodes and their links, from the GPU mix (its rack column) and the inputs."""
    if st.session_state.get(TABLE_ERRORS, {}).get("gpu_mix"):
        return
    config = current()
    network = NetworkConfig(
        intra_rack_gbps=config.network.intra_rack_gbps,
        uplink_oversubscription=max(1.0, config.network.uplink_oversubscription),
    )
    table = rack_summary(Topology(config.cluster, network), config.cluster)
    st.caption(
        "Racks, from the GPU mix's rack column: each has a switch, one link per node to it "
        "and one uplink to the core."
    )
    st.dataframe(
        table, hide_index=True,
        column_config={
            "rack": "Rack", "nodes": "Nodes", "gpus": "GPUs", "mix": "GPU types",
            "node_names": st.column_config.TextColumn(
                "Node names", help="For congestion on one node's link: node:n3"
            ),
            "node_link_gbps": st.column_config.NumberColumn("Node link (Gbps)", format="%g"),
            "uplink_gbps": st.column_config.NumberColumn(
                "Uplink (Gbps)", format="%.0f",
                help="Nodes in the rack x node link / oversubscription, shared by the jobs "
                "leaving the rack when links are shared",
            ),
        },
    )  # fmt: skip


def _render_congestion() -> None:
    config = {
        "start_s": st.column_config.NumberColumn("Start (s)", min_value=0.0, required=True),
        "end_s": st.column_config.NumberColumn("End (s)", min_value=0.0, required=True),
        "factor": st.column_config.NumberColumn(
            "Factor", **column_range("network.congestion", "factor"), required=True
        ),
        "links": st.column_config.TextColumn("Links", help=LINK_HELP, default="inter_node"),
    }
    render_table_editor(
        "congestion", config,
        title="**Congestion episodes** (bandwidth divided by *factor* on the chosen links)",
        note="Links: `inter_node`, `cross_rack`, `rack:<rack>`, `uplink:<rack>` or `node:n<i>` "
        "(see the Links column's help).",
    )  # fmt: skip

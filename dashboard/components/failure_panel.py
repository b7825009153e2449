"""The Scenario page's failure settings: node failures, checkpoints and spare nodes
(:class:`engine.config.FailureConfig`), off by default."""

from __future__ import annotations

import streamlit as st

from dashboard.components.table_editor import gpu_type_column, render_table_editor
from dashboard.state import bind, current
from engine.config import FAILURE_DISTRIBUTIONS, FailureConfig
from engine.validate import failure_policies

_HELP = {f.name: f.metadata.get("help", "") for f in FailureConfig.__dataclass_fields__.values()}


def render_failures() -> None:
    """Toggle and settings; the defaults cite their sources (FailureConfig's docstring)."""
    on = st.toggle(
        "Simulate node failures", **bind("fail_enabled"),
        help="Nodes fail and are repaired; jobs on a failed node lose the work since their "
        "last checkpoint and wait again. Off: GPUs never fail (every result as without this).",
    )  # fmt: skip
    if not on:
        st.caption(
            f"Policies that model failed nodes: {', '.join(failure_policies())}. Defaults: "
            "node MTBF from Llama 3's 419 interruptions in 54 days on 2,048 nodes "
            "(Dubey et al. 2024, sec. 3.3.4)."
        )
        return
    cols = st.columns(3)
    cols[0].number_input("Node MTBF (h)", step=500.0, **bind("fail_node_mtbf_h"),
                         help=_HELP["node_mtbf_h"])  # fmt: skip
    cols[1].selectbox("Time between failures", FAILURE_DISTRIBUTIONS, **bind("fail_distribution"),
                      help=_HELP["distribution"])  # fmt: skip
    cols[2].number_input("Weibull shape", step=0.05, **bind("fail_weibull_shape"),
                         disabled=current().failures.distribution != "weibull",
                         help=_HELP["weibull_shape"])  # fmt: skip
    cols = st.columns(3)
    cols[0].number_input("Repair time (h)", step=4.0, **bind("fail_repair_h"),
                         help=_HELP["repair_h"])  # fmt: skip
    cols[1].number_input("Rack MTBF (h; 0 = none)", step=1000.0,
                         **bind("fail_rack_mtbf_h"), help=_HELP["rack_mtbf_h"])  # fmt: skip
    cols[2].number_input("Spare nodes per GPU type", step=1,
                         **bind("fail_spares_per_type"),
                         help="Held out of the GPU mix; they replace failed nodes")  # fmt: skip
    cols = st.columns(3)
    cols[0].number_input("Spare swap time (s)", step=60.0,
                         **bind("fail_spare_swap_s"), help=_HELP["spare_swap_s"])  # fmt: skip
    cols[1].number_input("Checkpoint cost (s)", step=10.0,
                         help=_HELP["checkpoint_cost_s"],
                         **bind("fail_checkpoint_cost_s"))  # fmt: skip
    young = cols[2].toggle(
        "Young/Daly checkpoint interval", **bind("fail_young"),
        help="sqrt(2 x checkpoint cost x the job's MTBF), per placement",
    )  # fmt: skip
    if not young:
        cols[2].number_input("Checkpoint interval (s)", step=600.0,
                             **bind("fail_checkpoint_interval_s"),
                             help=_HELP["checkpoint_interval_s"])  # fmt: skip
    _render_type_mtbf()


def _render_type_mtbf() -> None:
    """GPU types whose nodes fail at another rate than the node MTBF above (e.g. older K80s)."""
    config = {
        "worker_type": gpu_type_column("GPU type", "A GPU type of the GPU mix"),
        "node_mtbf_h": st.column_config.NumberColumn(
            "Node MTBF (h)", min_value=0.001, required=True,
            help="Mean time between failures of one node of this type",
        ),
    }  # fmt: skip
    title = "**Node MTBF by GPU type** (optional): types that fail at another rate"
    render_table_editor("type_mtbf", config, title)

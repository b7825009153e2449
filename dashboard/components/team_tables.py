"""The Teams page's four tables (ClusterQueues, quotas, LocalQueues, cohorts) and Kueue's verdict.

Each is a :func:`~dashboard.components.table_editor.render_table_editor` over a part of the
scenario's queues (:mod:`dashboard.quota_tables`). When one table changes the queues, the others
are drawn again from them (a ClusterQueue renamed in one table is renamed in the others).
Kueue's rules are the engine's: :meth:`QueueConfig.check` against the cluster's GPUs, its
message (object and field) shown under the tables.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from dashboard.components.table_editor import render_table_editor
from dashboard.state import current, forget_queue_tables
from engine.config import ScenarioConfig
from engine.errors import ConfigError
from engine.quota import model


def _choice(label: str, options: tuple[str, ...], help: str = "") -> Any:
    return st.column_config.SelectboxColumn(label, options=list(options), help=help or None)


def _gpus(label: str, help: str) -> Any:
    return st.column_config.NumberColumn(label, min_value=0, step=1, format="%d", help=help)


def _edit(key: str, columns: dict[str, Any], title: str, note: str = "") -> None:
    before = current().queues
    render_table_editor(key, columns, title=title, note=note)
    if current().queues != before:
        forget_queue_tables()  # the other tables show the queues as edited
        st.rerun()


def render_queue_tables(config: ScenarioConfig) -> None:
    """The four tables, then the engine's check of the queues against the cluster."""
    flavors = [*config.cluster.capacity(), *(f.name for f in config.queues.flavors)]
    _edit("team_cluster_queues", {
        "name": st.column_config.TextColumn("ClusterQueue", required=True),
        "cohort": st.column_config.TextColumn("Cohort", help="Blank: no cohort (no borrowing)"),
        "queueing_strategy": _choice("Queueing", model.QUEUEING_STRATEGIES,
                                     "StrictFIFO: a head that does not fit blocks its queue"),
        "within_cluster_queue": _choice("Preempt within", model.WITHIN_CLUSTER_QUEUE,
                                        "preemption.withinClusterQueue"),
        "reclaim_within_cohort": _choice("Reclaim", model.RECLAIM_WITHIN_COHORT,
                                         "preemption.reclaimWithinCohort: take back lent GPUs"),
        "borrow_within_cohort": _choice("Preempt to borrow", model.BORROW_WITHIN_COHORT,
                                        "preemption.borrowWithinCohort.policy"),
        "when_can_borrow": _choice("Fungibility", model.WHEN_CAN_BORROW,
                                   "flavorFungibility.whenCanBorrow: TryNextFlavor looks for "
                                   "a GPU type that fits without borrowing first"),
        "fair_weight": st.column_config.NumberColumn("Fair weight", min_value=0.0,
                                                     format="%.2f"),
    }, "**ClusterQueues** (one per team)")  # fmt: skip
    _edit("team_quotas", {
        "cluster_queue": st.column_config.SelectboxColumn(
            "ClusterQueue", options=[cq.name for cq in config.queues.cluster_queues],
            required=True),
        "flavor": st.column_config.SelectboxColumn(
            "GPU type (flavor)", options=list(dict.fromkeys(flavors)), required=True),
        "nominal_gpus": _gpus("Nominal (GPUs)", "nominalQuota: GPUs guaranteed to the team"),
        "borrowing_limit_gpus": _gpus("Borrowing limit (GPUs)", "Blank: no limit"),
        "lending_limit_gpus": _gpus("Lending limit (GPUs)", "Blank: all of the nominal quota"),
    }, "**Quotas per GPU type**", "One row per ClusterQueue and GPU type, in the order Kueue "
       "tries them. A blank limit (None) is no limit.")  # fmt: skip
    left, right = st.columns(2)
    with left:
        _edit("team_local_queues", {
            "name": st.column_config.TextColumn("LocalQueue (the trace's team)", required=True),
            "cluster_queue": st.column_config.TextColumn("ClusterQueue", required=True),
        }, "**LocalQueues**", "A team named like its ClusterQueue needs no row.")  # fmt: skip
    with right:
        _edit("team_cohorts", {
            "name": st.column_config.TextColumn("Cohort", required=True),
            "parent": st.column_config.TextColumn("Parent", help="Blank: a root cohort"),
        }, "**Cohorts**", "A cohort named only by a ClusterQueue needs no row.")  # fmt: skip
    try:
        config.queues.check(config.cluster.capacity())
    except ConfigError as exc:
        st.error(f"Kueue would refuse these queues: {exc}")

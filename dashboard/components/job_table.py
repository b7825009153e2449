"""The per-job results table, with the columns a person reads first and readable formats."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

FIRST_COLUMNS = (
    "job_id", "job_type", "scale_factor", "arrival_s", "jct_s", "queueing_delay_s",
    "consolidation_wait_s", "network_sensitivity", "comm_overhead", "num_preemptions",
    "main_worker_type",
)  # fmt: skip


def _seconds(label: str, help_text: str = "") -> Any:
    return st.column_config.NumberColumn(label, format="%.0f", help=help_text or None)


COLUMN_CONFIG: dict[str, Any] = {
    "job_id": "Job", "job_type": "Job type", "scale_factor": "GPUs",
    "num_preemptions": "Preemptions", "main_worker_type": "Main GPU type",
    "arrival_s": _seconds("Arrival (s)"),
    "jct_s": _seconds("JCT (s)", "Job completion time: arrival to completion"),
    "queueing_delay_s": _seconds("Queueing delay (s)", "Arrival to first start"),
    "consolidation_wait_s": _seconds(
        "Consolidation wait (s)",
        "Time the policy held the job back waiting for a better (more consolidated) placement",
    ),
    "network_sensitivity": st.column_config.NumberColumn(
        "Network sensitivity", format="%.2f×",
        help="Iteration time with the ring across racks over node-local (1 = insensitive)",
    ),
    "comm_overhead": st.column_config.NumberColumn(
        "Comm. share", format="percent", help="Share of step time spent communicating"
    ),
    "first_start_s": _seconds("First start (s)"),
    "completion_s": _seconds("Completion (s)"),
    "run_time_s": _seconds("Run time (s)"),
    "isolated_jct_s": _seconds("Isolated JCT (s)"),
    "ftf_rho": st.column_config.NumberColumn("FTF ρ", format="%.2f"),
}  # fmt: skip


def render_job_table(jobs: pd.DataFrame) -> None:
    """``jobs`` (a policy's jobs table) with the key columns first, the rest after."""
    columns = [str(c) for c in jobs.columns]
    order = [c for c in FIRST_COLUMNS if c in columns]
    order += [c for c in columns if c not in FIRST_COLUMNS]
    st.dataframe(jobs, hide_index=True, column_order=order, column_config=COLUMN_CONFIG)

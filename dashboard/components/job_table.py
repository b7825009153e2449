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
    "num_failures": st.column_config.NumberColumn(
        "Failures", help="Times a failed node stopped the job"
    ),
    "lost_work_gpu_s": st.column_config.NumberColumn(
        "Lost work (GPU-s)", format="%.0f",
        help="Work failures lost: time since the last checkpoint and the restore, x GPUs",
    ),
    "checkpoint_gpu_s": st.column_config.NumberColumn(
        "Checkpoints (GPU-s)", format="%.0f", help="Time spent writing checkpoints, x GPUs"
    ),
}  # fmt: skip
FAILURE_COLUMNS = ("num_failures", "lost_work_gpu_s", "checkpoint_gpu_s")
"""Columns of a run with failures on (engine.faults): after the preemptions when any is not 0,
left out when all are (failures off)."""


def render_job_table(jobs: pd.DataFrame) -> None:
    """``jobs`` (a policy's jobs table) with the key columns first, the rest after."""
    columns = [str(c) for c in jobs.columns]
    failures = [c for c in FAILURE_COLUMNS if c in columns and jobs[c].any()]
    first = list(FIRST_COLUMNS)
    first[first.index("num_preemptions") + 1 : first.index("num_preemptions") + 1] = failures
    order = [c for c in first if c in columns]
    order += [c for c in columns if c not in first and c not in FAILURE_COLUMNS]
    st.dataframe(jobs, hide_index=True, column_order=order, column_config=COLUMN_CONFIG)

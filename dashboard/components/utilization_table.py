"""Mean utilization per GPU type and policy, as a compact table."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.components.kpi_table import policy_index
from engine.metrics import arrival_utilization, utilization_by_type
from engine.results import ComparisonResult


def utilization_frame(result: ComparisonResult) -> pd.DataFrame:
    """Rows: policies; columns: worker types and "all"; values: time-weighted mean utilization."""
    rows = {}
    for sim in result.results:
        end_s = float(sim.jobs["completion_s"].max()) if len(sim.jobs) else 0.0
        per_type = utilization_by_type(sim.utilization, end_s) if end_s > 0 else pd.Series()
        rows[sim.policy] = {
            **per_type.to_dict(),
            "all, while jobs arrive": arrival_utilization(sim.jobs, sim.utilization),
            "all, over the makespan": sim.summary.get("utilization_mean"),
            "all, while jobs wait or run": sim.summary.get("utilization_active"),
        }
    return pd.DataFrame(rows).T.rename_axis("policy")


def render_utilization_table(result: ComparisonResult) -> None:
    """The table, formatted as percentages."""
    st.markdown(
        "**Mean GPU utilization**: per GPU type and overall from the first arrival to the last "
        "completion (the makespan); overall also from the first arrival to the last (while "
        "jobs arrive), and over only the time during which some job waits or runs."
    )
    frame = utilization_frame(result)
    st.dataframe(
        frame.style.format("{:.1%}", na_rep="–"), key="utilization_table",
        height=38 + 35 * len(frame), column_config=policy_index(frame.index),
    )  # fmt: skip

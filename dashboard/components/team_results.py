"""The Results page's Teams section: for a run under quotas, one policy's per-team table and
charts (waits, use against quota, borrowing).

The numbers are the engine's (:func:`engine.quota.results.team_table`); the durations of a
table share the one unit their values pick (:func:`engine.units.group_formats`), named in the
headers.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.chart_style import team_colors
from dashboard.charts_teams import make_borrowing, make_quota_usage, make_team_wait_cdf
from dashboard.components.chart import render_chart
from dashboard.gantt import initial_end_s
from engine import units
from engine.quota.results import team_table
from engine.results import ComparisonResult, SimulationResult

START_WITHIN_S = 3600.0
TEAM_INDEX = {"_index": st.column_config.TextColumn("Team (ClusterQueue)", width=180)}
GROUPS: dict[str, dict[str, tuple[str, str]]] = {  # column -> (label, unit)
    "Waiting and completion": {
        "jobs": ("Jobs", "count"), "jct_mean_s": ("Mean JCT", "s"),
        "jct_p95_s": ("p95 JCT", "s"), "queueing_mean_s": ("Mean wait", "s"),
        "queueing_p95_s": ("p95 wait", "s"),
        "start_within_share": ("Started within 1 h", "fraction"),
        "quota_wait_mean_s": ("Mean wait for quota", "s"),
        "placement_wait_mean_s": ("Mean wait for GPUs", "s"),
    },
    "Use of the quota": {
        "gpu_h_used": ("Used", "GPU-h"), "gpu_h_nominal": ("Nominal", "GPU-h"),
        "gpu_h_borrowed": ("Borrowed", "GPU-h"), "gpu_h_lent": ("Lent", "GPU-h"),
        "preempted_in_cluster_queue": ("Evicted in queue", "count"),
        "preempted_reclaim": ("Evicted: reclaim", "count"),
        "preempted_fair_sharing": ("Evicted: fair share", "count"),
        "goodput": ("Goodput", "fraction"),
    },
}  # fmt: skip
"""Two tables of eight columns each: all sixteen side by side are wider than a 1600 px page."""
UNIT_GROUPS = (
    ("jct_mean_s", "jct_p95_s"),
    ("queueing_mean_s", "queueing_p95_s", "quota_wait_mean_s", "placement_wait_mean_s"),
)
"""Columns read along a row, so shown in one unit (:func:`engine.units.group_formats`): the
JCTs, and the waits."""


def team_result(sim: SimulationResult, result: ComparisonResult) -> pd.DataFrame:
    """One policy's per-team table (:func:`engine.quota.results.team_table`)."""
    return team_table(
        sim.jobs, sim.quota_usage, result.config.queues, float(sim.summary["makespan_s"]),
        start_within_s=START_WITHIN_S,
    )  # fmt: skip


def shown_table(table: pd.DataFrame, columns: dict[str, tuple[str, str]]) -> tuple:
    """The columns in their shown units: (frame indexed by team, column config)."""
    shown = pd.DataFrame(index=table["cluster_queue"].astype(str))
    config = dict(TEAM_INDEX)
    numbers = {c: pd.to_numeric(table[c], errors="coerce") for c in columns}
    formats = {}
    for group in (*UNIT_GROUPS, *((c,) for c in columns)):
        present = {c: (numbers[c], columns[c][1]) for c in group if c in columns}
        formats = units.group_formats(present) | formats  # a column's group comes first
    for column, (label, _) in columns.items():
        values, fmt = numbers[column], formats[column]
        header = fmt.header(label)
        shown[header] = [fmt.rounded(v) for v in values]
        config[header] = st.column_config.NumberColumn(header, format=f"%.{fmt.decimals}f")
    return shown, config


def render_team_results(result: ComparisonResult, log_x: bool) -> None:
    """The Teams section: a policy picker, the per-team tables and the three charts."""
    st.header("Teams", anchor="teams")
    sims = {sim.policy: sim for sim in result.results if sim.quota_usage is not None}
    if not sims:
        return
    policy = st.selectbox("Policy", list(sims), key="team_policy") if len(sims) > 1 else None
    sim = sims[policy or next(iter(sims))]
    table = team_result(sim, result)
    for title, columns in GROUPS.items():
        shown, config = shown_table(table, columns)
        st.markdown(f"**{title}** · {sim.policy}")
        st.dataframe(shown, column_config=config, key=f"team_table_{title[:7].lower()}",
                     height=38 + 35 * len(shown), width="content")  # fmt: skip
    st.caption(
        "Wait for quota: the team's queue head did not fit its quota (and what it could "
        "borrow); wait for GPUs: the quota fit but no GPUs of the type were free. Nominal "
        "GPU-h: the quota over the whole run; lent: its unused quota other teams borrowed."
    )
    colors = team_colors(cq.name for cq in result.config.queues.cluster_queues)
    end_s = float(sim.summary["makespan_s"])
    focus_s = initial_end_s(sim.jobs, end_s)
    waits, usage, borrowed = st.tabs(["Waits", "Use against quota", "Borrowing"])
    with waits:
        render_chart(make_team_wait_cdf(sim.jobs, colors, log_x), key="team_wait_cdf")
    with usage:
        render_chart(make_quota_usage(sim.quota_usage, colors, end_s, focus_s), key="team_usage")
    with borrowed:
        render_chart(make_borrowing(sim.quota_usage, colors, end_s, focus_s), key="team_borrow")

"""The Sweep page's answer per team (runs under queues): one line per team, and each team's
paired difference to the axis' first value (`dashboard.team_sweep`)."""

from __future__ import annotations

import streamlit as st

from dashboard.charts_study import make_sweep_lines
from dashboard.components.chart import render_chart
from dashboard.study_tables import stats_frame
from dashboard.sweep_axes import shown_axis_value
from dashboard.team_sweep import TEAM_PAIR_COLUMNS, metric_columns, team_pair_table
from engine.study import StudyResult


def render_team_sweep(
    result: StudyResult, x: str, one_axis: bool, labels: dict[str, str], option: str, label: str
) -> None:
    """``option`` (``team:<metric>``, named ``label``) of every team against axis ``x`` for one
    policy (a picker when the sweep ran several): lines with 95% bands (one-axis sweeps), and
    per team and point the paired difference to the axis' first value, with its reading."""
    columns = metric_columns(result.runs, option)
    stats, fmt = stats_frame(result, columns[0], columns)
    stats[x] = stats[x].map(shown_axis_value)
    policies = list(dict.fromkeys(stats["policy"]))
    s = st.session_state
    if s.get("sweep_policy") not in policies:
        s["sweep_policy"] = policies[0]
    policy = (
        st.selectbox("Policy", policies, key="sweep_policy") if len(policies) > 1 else policies[0]
    )
    if one_axis:
        chart = make_sweep_lines(stats[stats["policy"] == policy], x, columns[0], fmt.unit,
                                 labels[x], series="team", label=f"{policy}: {label}")  # fmt: skip
        render_chart(chart, key="sweep_team_lines")
    else:
        st.info("One line per team needs a one-axis sweep; the table pairs every point.")
    table = team_pair_table(result, x, option)
    first = shown_axis_value(dict(result.study.all_variants()[0].axes).get(x))
    st.subheader(f"Each team against {labels[x].lower()} = {first}, on the same seeds")
    st.dataframe(table[table["Policy"] == policy][TEAM_PAIR_COLUMNS], hide_index=True,
                 width="stretch")  # fmt: skip
    st.caption(
        "A − B: the team's value at the point minus its value at the axis' first value on the "
        "same seed, the mean over seeds with its 95% interval and p-value (Student's paired "
        "t-test), as on the Compare page. An interval that contains 0 is a difference seed "
        "noise explains."
    )

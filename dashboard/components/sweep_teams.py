"""The Sweep page's answer per team (runs under queues): a small chart per team, and each
team's paired difference to the axis' first value (`dashboard.team_sweep`)."""

from __future__ import annotations

import streamlit as st

from dashboard.charts_study import make_team_facets
from dashboard.components.chart import render_chart
from dashboard.study_tables import stats_frame
from dashboard.sweep_axes import shown_axis_value
from dashboard.team_sweep import TEAM_PAIR_COLUMNS, TEAM_PREFIX, metric_columns, team_pair_table
from engine.quota.results import TEAM_METRICS
from engine.study import StudyResult


def render_team_sweep(result: StudyResult, x: str, one_axis: bool, labels: dict[str, str],
                      option: str) -> None:  # fmt: skip
    """``option`` (``team:<metric>``) of every team against axis ``x`` for one policy (a picker
    when the sweep ran several): a chart per team with its 95% band (one-axis sweeps), and per
    team and point the paired difference to the axis' first value, with its reading."""
    metric = option.removeprefix(TEAM_PREFIX)
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
        chart = make_team_facets(stats[stats["policy"] == policy], x, fmt.unit,
                                 f"{policy}: {TEAM_METRICS[metric][0]}", labels[x])  # fmt: skip
        render_chart(chart, key="sweep_team_lines")
    else:
        st.info("A chart per team needs a one-axis sweep; the table pairs every point.")
    table = team_pair_table(result, x, option)
    first = shown_axis_value(dict(result.study.all_variants()[0].axes).get(x))
    st.subheader(f"Each team at every point against {first}, on the same seeds")
    st.dataframe(table[table["Policy"] == policy][TEAM_PAIR_COLUMNS], hide_index=True,
                 width="stretch")  # fmt: skip
    st.caption(
        "A − B: the team's value at the point minus its value at the axis' first value on the "
        "same seed, the mean over seeds with its 95% interval and p-value (Student's paired "
        "t-test), as on the Compare page. An interval that contains 0 is a difference seed "
        "noise explains."
    )

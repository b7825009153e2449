"""Sweep page: one or two axes of the current scenario (the policy may be one) times seeds;
lines with bands or a heatmap, and two policies paired seed by seed at every point."""

import streamlit as st

from dashboard.charts_study import make_pair_lines, make_sweep_heatmap, make_sweep_lines
from dashboard.components.chart import render_chart
from dashboard.components.study_controls import (
    render_metric_picker,
    render_pair_picker,
    render_seed_count,
    render_seed_note,
    study_base,
)
from dashboard.components.study_run import execute_study, render_study_buttons
from dashboard.components.sweep_teams import render_team_sweep
from dashboard.page_settings import mark_ran
from dashboard.query import upload_sha256
from dashboard.scenarios import current_name
from dashboard.study_tables import stats_frame
from dashboard.sweep_axes import (
    DEFAULT_QUOTA_VALUES,
    parse_values,
    shown_axis_value,
    sweep_axes,
    sweep_grid,
)
from dashboard.team_sweep import team_metric_options
from engine.errors import EngineError
from engine.policies.base import display_name
from engine.study import Study
from engine.study.paired import metric_info, paired_rows, shown_rows

NO_AXIS = "(none)"
POLICY_AXIS = "policy"
DEFAULT_VALUES = {
    "load.arrival_scale": "0.5, 1, 1.5, 2",
    "rounds.round_duration_s": "120, 360, 1200",
    "network.background_load": "0, 0.2, 0.4",
    "failures.node_mtbf_h": "1000, 3000, 6335",
    "failures.checkpoint_interval_s": "600, 1800, 3600",
    "failures.spares_per_type": "0, 2, 4",
    **DEFAULT_QUOTA_VALUES,
}

st.title("Sweep")
st.caption(
    "Vary one or two settings of the current scenario over a list of values, each value run "
    "with every policy over several seeds: lines with 95% bands, or a heatmap for two axes "
    "(the policy can be the second). Two policies are also compared seed by seed at every "
    "value. Under teams (Teams page), a quota knob of every team is an axis, and each team's "
    "wait a metric."
)
s = st.session_state
base = study_base()
st.caption(f"Scenario **{current_name()}**: {base.cluster.total_gpus} GPUs, policies "
           f"{', '.join(display_name(p) for p in base.policies)}.")  # fmt: skip
axes = sweep_axes(base)
if s.get("sweep_axis_x") not in axes:
    s["sweep_axis_x"] = next(iter(axes))
cols = st.columns([2, 3])
axis_x = cols[0].selectbox("Axis", list(axes), format_func=axes.get, key="sweep_axis_x")
s.setdefault(f"sweep_values.{axis_x}", DEFAULT_VALUES.get(axis_x, ""))
values_x = cols[1].text_input("Values (comma-separated)", key=f"sweep_values.{axis_x}")
cols = st.columns([2, 3])
options = [NO_AXIS, POLICY_AXIS, *(a for a in axes if a != axis_x)]
if s.get("sweep_axis_y") not in options:
    s["sweep_axis_y"] = NO_AXIS
axis_y = cols[0].selectbox(
    "Second axis (optional)", options, key="sweep_axis_y",
    format_func=lambda a: "Policy" if a == POLICY_AXIS else axes.get(a, a),
)  # fmt: skip
values_y = ""
if axis_y not in (NO_AXIS, POLICY_AXIS):
    s.setdefault(f"sweep_values.{axis_y}", DEFAULT_VALUES.get(axis_y, ""))
    values_y = cols[1].text_input("Values of the second axis", key=f"sweep_values.{axis_y}")
elif axis_y == POLICY_AXIS:
    cols[1].caption("One row per policy of the scenario (Scenario page, tab 3).")
seeds = render_seed_count("sweep_seeds", 2)
study = None
try:
    grid_axes = {axis_x: parse_values(base, axis_x, values_x)}
    if axis_y not in (NO_AXIS, POLICY_AXIS):
        grid_axes[axis_y] = parse_values(base, axis_y, values_y)
    study = Study(base, sweep_grid(base, grid_axes), tuple(seeds), trace_hash=upload_sha256())
except EngineError as exc:
    st.error(str(exc))
runs = len(study.variants) * len(base.policies) * len(seeds) if study else 0
st.caption(f"{runs} runs.")
autorun = s.pop("autorun_study", "") == "sweep"
if render_study_buttons("Run the sweep", "run_sweep", study is not None and runs > 0) or (
    autorun and study is not None
):
    result = execute_study(study, runs)
    if result is not None:
        s["sweep_result"] = (result, axis_x, axis_y, dict(axes), current_name())
        mark_ran("sweep")

if s.get("sweep_result"):
    result, x, y, labels, scenario = s["sweep_result"]
    ran_seeds = ", ".join(map(str, result.study.seeds))
    st.markdown(f"Results of scenario **{scenario}** · seeds {ran_seeds}")
    if scenario != current_name():
        st.info(
            f"These sweep results are of scenario **{scenario}**; the scenario selected now "
            f"is **{current_name()}**. Run the sweep again to see its results."
        )
    elif study is not None and study != result.study:
        st.warning("The axes, values, seeds or scenario changed since this run; run again.")
    render_seed_note(len(result.study.seeds))
    team_options = team_metric_options(result.runs)
    metric = render_metric_picker("sweep_metric", failures=result.study.base.failures.enabled,
                                  extra=team_options)  # fmt: skip
    if metric in team_options:
        render_team_sweep(result, x, y in (NO_AXIS, POLICY_AXIS), labels, metric)
        st.stop()
    stats, fmt = stats_frame(result, metric)
    for path in {x, y} & set(stats.columns):
        stats[path] = stats[path].map(shown_axis_value)
    if y == NO_AXIS:
        render_chart(make_sweep_lines(stats, x, metric, fmt.unit, labels[x]), key="sweep_lines")
    elif y == POLICY_AXIS:
        render_chart(make_sweep_heatmap(stats, x, "policy", metric, fmt.unit, labels[x],
                                        "Policy"), key="sweep_heatmap")  # fmt: skip
    else:
        policies = list(dict.fromkeys(stats["policy"]))
        if s.get("sweep_policy") not in policies:
            s["sweep_policy"] = policies[0]
        policy = st.selectbox("Policy", policies, key="sweep_policy")
        one = stats[stats["policy"] == policy]
        render_chart(make_sweep_heatmap(one, x, y, metric, fmt.unit, labels[x], labels[y],
                                        f"{policy}: {fmt.header(metric_info(metric).label)}, "
                                        "mean over seeds"), key="sweep_heatmap")  # fmt: skip
    policies = list(dict.fromkeys(result.runs["policy"]))
    if len(policies) >= 2:
        st.subheader("Two policies at every value, on the same seeds")
        a, b = render_pair_picker(("sweep_pair_a", "sweep_pair_b"), policies,
                                  (policies[1], policies[0]), str)  # fmt: skip
        points = result.variants()
        raw = paired_rows(result, [((v, a), (v, b)) for v in points], [metric])
        table = shown_rows(result, raw).assign(Point=points)
        if y in (NO_AXIS, POLICY_AXIS) and a != b:
            axis_values = [shown_axis_value(dict(v.axes)[x]) for v in result.study.all_variants()]
            frame = table.assign(**{x: axis_values})
            render_chart(make_pair_lines(frame, x, table["unit"].iloc[0], f"{a} vs {b}",
                                         labels[x], metric_info(metric).lower_is_better),
                         key="sweep_pair")  # fmt: skip
        st.dataframe(table[["Point", "A vs B", "A − B", "95% interval", "p", "Seeds",
                            "Reading"]], hide_index=True, width="stretch")  # fmt: skip
    with st.expander("Mean and 95% interval per point"):
        st.dataframe(
            stats.rename(columns={"variant": "Point", "policy": "Policy", "n": "Seeds",
                                  "mean": fmt.header("Mean"), "ci_low": "95% low",
                                  "ci_high": "95% high", **labels}),
            hide_index=True,
        )  # fmt: skip

"""Sweep page: one or two axes of the current scenario times seeds; lines with bands or a
heatmap."""

import streamlit as st

from dashboard.charts_study import make_sweep_heatmap, make_sweep_lines
from dashboard.components.chart import render_chart
from dashboard.components.study_controls import render_metric_picker, render_seed_count
from dashboard.components.study_run import execute_study, render_study_buttons
from dashboard.query import upload_sha256
from dashboard.scenarios import current_name
from dashboard.state import build_config
from dashboard.study_tables import stats_frame
from dashboard.sweep_axes import parse_values, sweep_axes
from engine.errors import EngineError
from engine.study import Study, grid

NO_AXIS = "(none)"
DEFAULT_VALUES = {
    "load.arrival_scale": "0.5, 1, 1.5, 2",
    "rounds.round_duration_s": "120, 360, 1200",
    "network.background_load": "0, 0.2, 0.4",
    "failures.node_mtbf_h": "1000, 3000, 6335",
    "failures.checkpoint_interval_s": "600, 1800, 3600",
    "failures.spares_per_type": "0, 2, 4",
}

st.title("Sweep")
st.caption(
    "Vary one or two settings of the current scenario over a list of values, each value run "
    "with every policy over several seeds: lines with 95% bands, or a heatmap for two axes."
)
s = st.session_state
try:
    base = build_config()
except EngineError as exc:
    st.error(f"The scenario is not valid: {exc}")
    st.stop()
st.caption(f"Scenario **{current_name()}**: {base.cluster.total_gpus} GPUs, policies "
           f"{', '.join(p.display_name for p in base.policies)}.")  # fmt: skip
axes = sweep_axes(base)
cols = st.columns([2, 3])
axis_x = cols[0].selectbox("Axis", list(axes), format_func=axes.get, key="sweep_axis_x")
values_x = cols[1].text_input("Values (comma-separated)", DEFAULT_VALUES.get(axis_x, ""),
                              key=f"sweep_values.{axis_x}")  # fmt: skip
cols = st.columns([2, 3])
options = [NO_AXIS, *(a for a in axes if a != axis_x)]
axis_y = cols[0].selectbox("Second axis (optional)", options, key="sweep_axis_y",
                           format_func=lambda a: axes.get(a, a))  # fmt: skip
values_y = ""
if axis_y != NO_AXIS:
    values_y = cols[1].text_input("Values of the second axis", DEFAULT_VALUES.get(axis_y, ""),
                                  key=f"sweep_values.{axis_y}")  # fmt: skip
seeds = render_seed_count("sweep_seeds", 2)
study = None
try:
    grid_axes = {axis_x: parse_values(base, axis_x, values_x)}
    if axis_y != NO_AXIS:
        grid_axes[axis_y] = parse_values(base, axis_y, values_y)
    study = Study(base, grid(base, grid_axes), tuple(seeds), trace_hash=upload_sha256())
except EngineError as exc:
    st.error(str(exc))
runs = len(study.variants) * len(base.policies) * len(seeds) if study else 0
st.caption(f"{runs} runs.")
if render_study_buttons("Run the sweep", "run_sweep", study is not None and runs > 0):
    result = execute_study(study, runs)
    if result is not None:
        s["sweep_result"] = (result, axis_x, axis_y, dict(axes))

if s.get("sweep_result"):
    result, x, y, labels = s["sweep_result"]
    metric = render_metric_picker("sweep_metric", failures=result.study.base.failures.enabled)
    stats = stats_frame(result, metric)
    if y == NO_AXIS:
        render_chart(make_sweep_lines(stats, x, metric, labels[x]), key="sweep_lines")
    else:
        policies = list(dict.fromkeys(stats["policy"]))
        policy = st.selectbox("Policy", policies, key="sweep_policy")
        one = stats[stats["policy"] == policy]
        render_chart(make_sweep_heatmap(one, x, y, metric, labels[x], labels[y]),
                     key="sweep_heatmap")  # fmt: skip
    with st.expander("Mean and 95% interval per point"):
        st.dataframe(stats, hide_index=True)

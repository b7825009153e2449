"""Scenario page: pick the jobs, the GPU mix, the policies and the rules; then Run."""

import streamlit as st

from dashboard.components.cluster_2026 import render_2026_button
from dashboard.components.cluster_panel import (
    render_extra_types,
    render_gpu_mix,
    render_network,
)
from dashboard.components.failure_panel import render_failures
from dashboard.components.paper_presets import render_paper_picker
from dashboard.components.policy_form import render_policy_params, render_policy_picker
from dashboard.components.power_section import render_cluster_power
from dashboard.components.run_panel import (
    execute_run,
    render_flash,
    render_rounds,
    render_run_buttons,
    render_scenario_io,
)
from dashboard.components.scenario_picker import render_scenario_picker
from dashboard.components.trace_panel import render_trace_source, upload_missing
from dashboard.components.trace_preview import render_trace_load
from dashboard.state import current, current_config
from engine.errors import EngineError

st.title("Scheduling what-if")
st.caption(
    "Replay a trace of deep-learning training jobs on a GPU cluster you describe, under several "
    "scheduling policies, and compare job completion times, utilization and fairness."
)
render_scenario_picker()
render_paper_picker()
render_2026_button()
render_flash()
run_area = st.container(border=True)
jobs_tab, cluster_tab, policy_tab, rules_tab, failure_tab, file_tab = st.tabs(
    ["1 · Jobs", "2 · GPU mix & network", "3 · Policies", "4 · Rounds & seed", "5 · Failures",
     "Save / load"]
)  # fmt: skip
with jobs_tab:
    render_trace_source()
    preview_area = st.container()
with cluster_tab:
    render_gpu_mix()
    render_cluster_power(current())
    render_extra_types()
    st.divider()
    render_network()
with policy_tab:
    render_policy_picker()
    for spec in current().policies:
        render_policy_params(spec)
with rules_tab:
    render_rounds()
with failure_tab:
    render_failures()

try:
    config = current_config()
except EngineError as exc:
    config = None
    run_area.error(str(exc))
with file_tab:
    render_scenario_io(config)
missing_upload = upload_missing()
with preview_area:
    trace = (
        render_trace_load(config, st.session_state["upload"])
        if config and not missing_upload
        else None
    )
with run_area:
    if missing_upload:
        st.warning("Upload a trace file (tab 1 · Jobs) to run, or pick a sample trace.")
    if not current().policies:
        st.warning("Pick at least one policy (tab 3).")
    if current().queues is not None:
        st.caption(f"Teams and quotas are on: {len(current().queues.cluster_queues)} "
                   "ClusterQueues (edit them on the Teams page).")  # fmt: skip
    ready = config is not None and trace is not None and bool(config.policies)
    if render_run_buttons(ready):
        execute_run(config, st.session_state["upload"])

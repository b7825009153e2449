"""Schedule page: a Gantt chart of who ran where and when, for one or two policies."""

import streamlit as st

from dashboard.chart_style import worker_type_colors
from dashboard.charts import make_gantt
from dashboard.components.chart import render_chart
from dashboard.components.gantt_filters import render_gantt_filter, select_jobs
from dashboard.components.results_common import render_run_caption, require_result

result = require_result()
st.title("Schedule")
render_run_caption(result)
by_name = {sim.policy: sim for sim in result.results}
left, right = st.columns([3, 1])
chosen = left.multiselect(
    "Policies (pick two to compare side by side)", result.policies,
    default=result.policies[:1], max_selections=2, key="gantt_policies",
)  # fmt: skip
color_by = right.radio(
    "Color by", ["worker_type", "level"], horizontal=True, key="gantt_color_by",
    format_func=lambda c: "GPU type" if c == "worker_type" else "consolidation",
)  # fmt: skip
spec = render_gantt_filter(result.results[0].jobs)
colors = worker_type_colors(result.combined("segments")["worker_type"].dropna().unique())
for column, policy in zip(st.columns(max(len(chosen), 1)), chosen, strict=False):
    sim = by_name[policy]
    ids = select_jobs(sim.jobs, sim.segments, spec)
    jobs, segments = sim.jobs[sim.jobs["job_id"].isin(ids)], sim.segments
    with column:
        st.subheader(policy)
        render_chart(make_gantt(segments, jobs, colors, color_by=color_by), key=f"gantt_{policy}")
        with st.expander(f"{policy}: per-job table ({len(jobs):,} jobs shown)"):
            st.dataframe(jobs, hide_index=True)
st.caption(
    "Grey: the job is in the system (waiting where no colored bar covers it). ✕ preempted, "
    "▶ migrated. Drag to zoom, double-click to reset."
)

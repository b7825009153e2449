"""Schedule page: a Gantt chart of who ran where and when, for one or two policies."""

import streamlit as st

from dashboard.chart_style import worker_type_colors
from dashboard.charts import make_gantt
from dashboard.components.chart import render_chart
from dashboard.components.gantt_filters import render_gantt_filter, select_jobs
from dashboard.components.job_table import render_job_table
from dashboard.components.results_common import render_run_caption, require_result
from dashboard.gantt import CONTINUOUS

COLOR_BY = {
    "worker_type": "GPU type",
    "level": "consolidation",
    "network_sensitivity": "network sensitivity",
}
result = require_result()
st.title("Schedule")
render_run_caption(result)
by_name = {sim.policy: sim for sim in result.results}
left, right = st.columns([3, 2])
chosen = left.multiselect(
    "Policies (pick two to compare side by side)", result.policies,
    default=result.policies[:1], max_selections=2, key="gantt_policies",
)  # fmt: skip
color_by = right.radio(
    "Color by", [c for c in COLOR_BY if c in result.results[0].jobs or c not in CONTINUOUS],
    horizontal=True, key="gantt_color_by", format_func=COLOR_BY.get,
    help="Network sensitivity: how much slower the job's iterations get when its ring crosses "
    "racks (1 = not at all).",
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
            render_job_table(jobs)
st.caption(
    "Grey: the job is in the system (waiting where no colored bar covers it). ✕ preempted, "
    "▶ migrated. Drag to zoom, double-click to reset."
)

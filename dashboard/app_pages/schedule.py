"""Schedule page: a Gantt chart of who ran where and when, for any of the run's policies.

The charts stand one above another and share their rows (the same jobs, chosen over every
policy shown) and their time axis, so a job's row reads down the page. A large trace opens on
its busiest hour (`dashboard.components.gantt_filters`); a small one on its whole run.
"""

import streamlit as st

from dashboard.chart_style import team_colors, worker_type_colors
from dashboard.charts import make_gantt
from dashboard.components.chart import render_chart
from dashboard.components.explain_job import render_explain_job
from dashboard.components.gantt_filters import (
    render_gantt_filter,
    shared_selection,
    shown_range_s,
)
from dashboard.components.job_table import render_job_table
from dashboard.components.results_common import render_run_caption, require_result
from dashboard.gantt import CONTINUOUS

COLOR_BY = {
    "worker_type": "GPU type",
    "level": "consolidation",
    "network_sensitivity": "network sensitivity",
    "cluster_queue": "team",
}
JOB_COLUMNS = (*CONTINUOUS, "cluster_queue")  # shown only when the jobs table has them
result = require_result()
st.title("Schedule")
render_run_caption(result)
by_name = {sim.policy: sim for sim in result.results}
left, right = st.columns([3, 2])
chosen = left.multiselect(
    "Policies (stacked, sharing rows and time axis)", result.policies,
    default=result.policies, key="gantt_policies",
)  # fmt: skip
color_by = right.radio(
    "Color by", [c for c in COLOR_BY if c in result.results[0].jobs or c not in JOB_COLUMNS],
    horizontal=True, key="gantt_color_by", format_func=COLOR_BY.get,
    help="Network sensitivity: how much slower the job's iterations get when its ring crosses "
    "racks (1 = not at all).",
)  # fmt: skip
spec = render_gantt_filter(result.results[0].jobs)
colors = worker_type_colors(result.combined("segments")["worker_type"].dropna().unique())
if color_by == "cluster_queue":
    colors = team_colors(cq.name for cq in result.config.queues.cluster_queues)
sims = [by_name[policy] for policy in chosen]
order, _ = shared_selection(sims, spec) if sims else ([], 0.0)
shown_start_s, shown_end_s = shown_range_s(sims, order, spec)
for sim in sims:
    jobs = sim.jobs[sim.jobs["job_id"].astype(str).isin(order)]
    st.subheader(sim.policy)
    figure = make_gantt(
        sim.segments, jobs, colors, color_by=color_by, order=order, shown_end_s=shown_end_s,
        shown_start_s=shown_start_s,
    )  # fmt: skip
    render_chart(figure, key=f"gantt_{sim.policy}")
    with st.expander(f"{sim.policy}: per-job table ({len(jobs):,} jobs shown)"):
        render_job_table(jobs)
st.caption(
    "Grey: the job is in the system (waiting where no colored bar covers it). ✕ preempted, "
    "▶ migrated; an arrow at the right edge: the job goes on beyond it. The charts share rows "
    "and time axis. Hover a bar for the job; drag to zoom, double-click to see everything."
)
render_explain_job(sims or list(result.results), result=result)

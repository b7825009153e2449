"""Schedule page: a Gantt chart of who ran where and when, for one or two policies.

Side by side, both panels show the same jobs in the same rows (chosen over both policies) on
the same time range, so a row reads across.
"""

import streamlit as st

from dashboard.chart_style import worker_type_colors
from dashboard.charts import make_gantt
from dashboard.components.chart import render_chart
from dashboard.components.explain_job import render_explain_job
from dashboard.components.gantt_filters import render_gantt_filter, shared_selection
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
sims = [by_name[policy] for policy in chosen]
order, shown_end_s = shared_selection(sims, spec) if sims else ([], 0.0)
for column, sim in zip(st.columns(max(len(sims), 1)), sims, strict=False):
    jobs = sim.jobs[sim.jobs["job_id"].astype(str).isin(order)]
    with column:
        st.subheader(sim.policy)
        figure = make_gantt(
            sim.segments, jobs, colors, color_by=color_by, order=order, shown_end_s=shown_end_s
        )
        render_chart(figure, key=f"gantt_{sim.policy}")
        with st.expander(f"{sim.policy}: per-job table ({len(jobs):,} jobs shown)"):
            render_job_table(jobs)
st.caption(
    "Grey: the job is in the system (waiting where no colored bar covers it). ✕ preempted, "
    "▶ migrated, ⇥ at the right edge: the job continues beyond the range shown. Side by side, "
    "rows and time range are shared. Hover a bar for the job id; drag to zoom, double-click "
    "to reset."
)
render_explain_job(sims or list(result.results))

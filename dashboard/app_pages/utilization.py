"""Utilization page: a small panel per policy, then the stacked-by-type chart of those picked."""

import streamlit as st

from dashboard.chart_style import worker_type_colors
from dashboard.charts import make_utilization
from dashboard.components.chart import render_chart
from dashboard.components.results_common import colors_of, render_run_caption, require_result
from dashboard.components.utilization_table import render_utilization_table
from dashboard.formatting import human_duration
from dashboard.gantt import initial_end_s
from dashboard.utilization_grid import make_utilization_grid

result = require_result()
st.title("Utilization")
render_run_caption(result)
combined = result.combined("utilization")
colors = worker_type_colors(combined["worker_type"].unique())
render_utilization_table(result)
end_s = float(combined["time_s"].max())  # one time axis for every policy
focus_s = initial_end_s(result.combined("jobs"), end_s)
if focus_s < end_s:
    st.caption(
        f"The charts open on the first {human_duration(focus_s)}, by which 90% of jobs had "
        f"finished; the run lasts {human_duration(end_s)}. Use the autoscale button to see it all."
    )
render_chart(
    make_utilization_grid(combined, colors_of(result), end_s, focus_s), key="utilization_grid"
)
chosen = st.multiselect(
    "Stacked by GPU type for", result.policies, default=result.policies[:2],
    key="utilization_policies", help="Busy GPUs per GPU type over time, one chart per policy.",
)  # fmt: skip
by_name = {sim.policy: sim for sim in result.results}
for policy in chosen:
    title = f"{policy}: GPUs busy over time"
    figure = make_utilization(
        by_name[policy].utilization,
        colors,
        title=title,
        end_s=end_s,
        focus_end_s=focus_s,
        segments=by_name[policy].segments,
    )
    render_chart(figure, key=f"utilization_{policy}")

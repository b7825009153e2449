"""Utilization page: GPUs busy over time per policy, stacked by GPU type."""

import streamlit as st

from dashboard.chart_style import worker_type_colors
from dashboard.charts import make_utilization
from dashboard.components.chart import render_chart
from dashboard.components.results_common import render_run_caption, require_result
from dashboard.components.utilization_table import render_utilization_table
from dashboard.formatting import human_duration
from dashboard.gantt import initial_end_s

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
for sim in result.results:
    title = f"{sim.policy}: GPUs busy over time"
    figure = make_utilization(
        sim.utilization, colors, title=title, end_s=end_s, focus_end_s=focus_s
    )
    render_chart(figure, key=f"utilization_{sim.policy}")

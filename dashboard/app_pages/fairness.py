"""Fairness page: finish-time fairness ρ per policy and Jain's index."""

import streamlit as st

from dashboard.charts import make_ftf_distribution, make_jain_bar
from dashboard.components.chart import render_chart
from dashboard.components.results_common import colors_of, render_run_caption, require_result

result = require_result()
st.title("Fairness")
render_run_caption(result)
st.markdown(
    "**Finish-time fairness ρ** (Themis) compares each job's completion time with the time it "
    "would have taken alone on a fair 1/N share of the cluster. ρ ≤ 1: the job did at least as "
    "well as its fair share; ρ = 4: it took four times as long. **Jain's index** of 1/ρ is 1 "
    "when every job got the same share of its fair speed, and falls as some jobs starve."
)
colors = colors_of(result)
left, right = st.columns([3, 2])
with left:
    render_chart(make_ftf_distribution(result.combined("jobs"), colors), key="ftf")
with right:
    render_chart(make_jain_bar(result.kpi_table()["jain_index"].to_dict(), colors), key="jain")

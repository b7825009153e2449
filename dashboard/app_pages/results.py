"""Results page: the KPI table (best value per metric highlighted) and the JCT CDFs."""

import streamlit as st

from dashboard.charts import make_jct_cdf
from dashboard.components.chart import render_chart
from dashboard.components.kpi_table import (
    render_downloads,
    render_failures_by_size,
    render_kpi_table,
    render_makespan_note,
    render_over_request_note,
)
from dashboard.components.paper_presets import render_claims, render_report_download
from dashboard.components.power_section import render_power_section
from dashboard.components.results_common import colors_of, render_run_caption, require_result
from dashboard.components.run_panel import render_results_flash
from dashboard.components.team_results import render_team_results

result = require_result()
st.title("Results")
render_results_flash()
render_run_caption(result)
render_kpi_table(result.kpi_table())
render_makespan_note(result)
render_over_request_note(result)
render_failures_by_size(result)
render_claims(result, st.session_state.get("result_paper_preset"))
for note in result.trace_notes:
    st.info(note)
log_x = st.toggle("Logarithmic time axis", key="log_x", help="JCTs span minutes to days.")
render_chart(make_jct_cdf(result.combined("jobs"), colors_of(result), log_x), key="jct_cdf")
if result.config.queues is not None:
    render_team_results(result, log_x)
render_power_section(result)
render_downloads(result)
render_report_download(result, st.session_state.get("result_paper_preset"))

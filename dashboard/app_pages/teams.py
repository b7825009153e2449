"""Teams page: the selected scenario's teams, GPU quotas and Kueue's rules (off by default)."""

import streamlit as st

from dashboard.components.kueue_io import render_kueue_io
from dashboard.components.scenario_picker import render_scenario_picker
from dashboard.components.team_setup import (
    render_default_quotas,
    render_fair_sharing,
    render_flash,
    render_policy_note,
    render_team_column,
    render_teams_toggle,
)
from dashboard.components.team_tables import render_queue_tables
from dashboard.components.trace_panel import upload_missing
from dashboard.state import current

st.title("Teams")
st.caption(
    "Teams sharing one cluster, with Kueue's rules: each team's jobs wait in its own queue and "
    "are admitted within its GPU quota; idle quota is lent to the cohort and reclaimed."
)
render_scenario_picker()
render_flash()
if not render_teams_toggle():
    st.info("Teams are off: every job waits in one queue for the whole cluster.")
    st.stop()
config = current()
upload = st.session_state["upload"]
if upload_missing():
    st.warning("Upload the trace file on the Scenario page (tab 1 · Jobs) to read its teams.")
else:
    render_team_column(config, upload)
render_policy_note(config)
left, right = st.columns([1, 1])
with left:
    render_default_quotas(config, upload)
with right:
    render_fair_sharing()
render_kueue_io(config.queues)
render_queue_tables(config)

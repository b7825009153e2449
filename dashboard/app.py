"""The what-if dashboard: ``streamlit run dashboard/app.py`` from the repository root.

Page config, session state initialised once, then ``st.navigation`` runs the chosen page from
``dashboard/app_pages/``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from dashboard.components.link_run import run_linked_scenario  # noqa: E402
from dashboard.query import read_query_params, sync_query_params  # noqa: E402
from dashboard.runner import warm_pool  # noqa: E402
from dashboard.state import init_state, keep_widget_state  # noqa: E402

st.set_page_config(
    page_title="GPU scheduling what-if",
    page_icon="📊",
    layout="wide",  # emoji: no font fetched
)
if init_state():  # a session's first run: restore a shared link or URL choices
    read_query_params()
keep_widget_state()
warm_pool()

pages = [
    st.Page("app_pages/scenario.py", title="Scenario", icon=":material/tune:", default=True),
    st.Page("app_pages/results.py", title="Results", icon=":material/leaderboard:"),
    st.Page("app_pages/schedule.py", title="Schedule", icon=":material/view_timeline:"),
    st.Page("app_pages/utilization.py", title="Utilization", icon=":material/stacked_line_chart:"),
    st.Page("app_pages/fairness.py", title="Fairness", icon=":material/balance:"),
    st.Page("app_pages/network.py", title="Network", icon=":material/lan:"),
    st.Page("app_pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
    st.Page("app_pages/sweep.py", title="Sweep", icon=":material/ssid_chart:"),
    st.Page("app_pages/planner.py", title="Planner", icon=":material/savings:"),
]
page = st.navigation(pages)
if run_linked_scenario() and page.title == "Scenario":
    st.switch_page("app_pages/results.py")
sync_query_params()
page.run()

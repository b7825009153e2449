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

from dashboard.query import sync_query_params  # noqa: E402
from dashboard.state import init_state, keep_widget_state  # noqa: E402

st.set_page_config(
    page_title="GPU scheduling what-if",
    page_icon="📊",
    layout="wide",  # emoji: no font fetched
)
init_state()
keep_widget_state()

pages = [
    st.Page("app_pages/scenario.py", title="Scenario", icon=":material/tune:", default=True),
    st.Page("app_pages/results.py", title="Results", icon=":material/leaderboard:"),
    st.Page("app_pages/schedule.py", title="Schedule", icon=":material/view_timeline:"),
    st.Page("app_pages/utilization.py", title="Utilization", icon=":material/stacked_line_chart:"),
    st.Page("app_pages/fairness.py", title="Fairness", icon=":material/balance:"),
    st.Page("app_pages/network.py", title="Network", icon=":material/lan:"),
]
sync_query_params()
st.navigation(pages).run()

"""The what-if dashboard: ``streamlit run dashboard/app.py`` from the repository root.

Page config, session state initialised once, then ``st.navigation`` runs the chosen page from
``dashboard/app_pages/``.

Streamlit runs this script as ``__main__`` (it installs it in ``sys.modules``), so a process
pool started from a page (the policies' runs, studies) makes each worker re-import this file as
``__mp_main__`` (multiprocessing's spawn and forkserver do that with the main module). The app
therefore only runs under ``__main__``: a worker draws nothing and starts nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PAGES = (  # (file in app_pages/, title, Material icon)
    ("scenario", "Scenario", "tune"), ("teams", "Teams", "groups"),
    ("results", "Results", "leaderboard"),
    ("schedule", "Schedule", "view_timeline"),
    ("step_through", "Step through", "slow_motion_video"),
    ("utilization", "Utilization", "stacked_line_chart"),
    ("fairness", "Fairness", "balance"), ("network", "Network", "lan"),
    ("compare", "Compare", "compare_arrows"), ("sweep", "Sweep", "ssid_chart"),
    ("planner", "Planner", "savings"), ("matrix", "Matrix", "table_chart"),
)  # fmt: skip


def main() -> None:
    """Page config, session state, navigation; runs the chosen page."""
    import streamlit as st

    from dashboard.components.link_run import run_linked_scenario
    from dashboard.components.share_link import render_copy_link
    from dashboard.page_settings import SETTINGS, remember, restore
    from dashboard.query import read_query_params, render_link_notes, sync_query_params
    from dashboard.runner import warm_pool
    from dashboard.session_keys import init_state, keep_widget_state

    st.set_page_config(
        page_title="GPU scheduling what-if",
        page_icon="📊",
        layout="wide",  # emoji: no font fetched
    )
    if init_state():  # a session's first run: restore a shared link or URL choices
        read_query_params()
    keep_widget_state()
    warm_pool()
    pages = [st.Page(f"app_pages/{name}.py", title=title, icon=f":material/{icon}:",
                     default=name == "scenario") for name, title, icon in PAGES]  # fmt: skip
    page = st.navigation(pages)
    name = next(n for n, title, _ in PAGES if title == page.title)
    linked = st.session_state.pop("link_page", "")
    if linked in (n for n, _, _ in PAGES) and linked != name:
        st.switch_page(f"app_pages/{linked}.py")  # the page the link's sender was on
    st.session_state["page_name"] = name
    render_link_notes()
    if run_linked_scenario() and name == "scenario" and not linked:
        st.switch_page("app_pages/results.py")
    if name in SETTINGS:
        restore(name)  # the settings the page's widgets lost while another page was shown
    sync_query_params()
    try:
        page.run()
    finally:  # also after st.stop(): the page's settings and a study it ran reach the link
        if name in SETTINGS:
            remember(name)
        sync_query_params()
    render_copy_link(name)  # not after st.stop(): a page that stopped shows no results


if __name__ == "__main__":
    main()

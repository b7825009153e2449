"""The "Copy link" control of every page with results: the page's address with the link
(`dashboard.query.wanted_query_params`), in Streamlit's code box whose copy button copies it,
and what opening it restores.

A link carries the scenarios, the page, the study pages' settings and which results were shown,
never the results themselves: the receiver's session runs the same scenario with the same seed,
which gives the same numbers (the engine is deterministic), at once when the work is under the
server's ``autorun_s`` budget (`dashboard.components.link_run`), else after a press of Run.
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from dashboard.query import wanted_query_params

RESULT_KEYS = {
    "results": "result", "teams": "result", "schedule": "result", "step_through": "result",
    "utilization": "result", "fairness": "result", "network": "result",
    "compare": "compare_result", "sweep": "sweep_result", "planner": "plan_result",
}  # fmt: skip
"""Page -> the session key of the results it shows; the pages that offer a link."""

CODE_HEIGHT_PX = 120
"""The address box's height: a link of 1-2 kB scrolls inside it, so the popover fits a
1280 x 720 projector."""
STUDY_PAGES = {"compare": "Compare", "sweep": "Sweep", "planner": "Planner"}


def link_url(page: str) -> str:
    """The page's address with the link's parameters; a relative address (``/results?...``)
    when the browser's address is not known (a test without a browser)."""
    base = st.context.url or f"/{page}"
    return f"{base.split('?')[0]}?{urlencode(wanted_query_params())}"


def restores(page: str) -> str:
    """What opening the link restores, in words, for ``page``."""
    s = st.session_state
    names = list(s.get("scenarios", {}))
    scenarios = ", ".join(f"**{n}**" for n in names) or "the scenario"
    if page in STUDY_PAGES:
        shown = (f"runs this {STUDY_PAGES[page]} study again (same seeds, same numbers) with "
                 "its settings")  # fmt: skip
    else:
        ran = s.get("result_scenario") or s.get("current_scenario", "")
        shown = f"runs **{ran}** again with its seed, which gives these same numbers"
    upload = (" Your uploaded trace is kept on this server by its SHA-256; another server "
              "asks for the file.") if s.get("upload") is not None else ""  # fmt: skip
    return (
        f"Opens this page with the scenario(s) {scenarios} (GPU mix, trace, policies and "
        f"their settings) and {shown}. Large work waits for a press of **Run**.{upload}"
    )


def render_copy_link(page: str) -> None:
    """In the sidebar, for a page with results: a "Copy link" popover with the address in a
    code box (its copy button copies it) and what the link restores; nothing elsewhere."""
    key = RESULT_KEYS.get(page)
    if key is None or st.session_state.get(key) is None:
        return
    with st.sidebar.popover("Copy link", icon=":material/link:", width="stretch"):
        st.markdown(restores(page))
        st.caption("Point at the address: its copy button shows at the box's top right.")
        st.code(link_url(page), language=None, wrap_lines=True, height=CODE_HEIGHT_PX)

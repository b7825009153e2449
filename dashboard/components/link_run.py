"""Opening a shared link runs the scenario whose results the sender saw (or takes it from the
result cache) once."""

from __future__ import annotations

import streamlit as st

from dashboard import runner
from dashboard.components.run_progress import RunProgress
from dashboard.scenarios import current_name
from dashboard.state import SOURCE_KINDS, build_config
from engine.errors import EngineError, SimulationCancelled


def run_linked_scenario() -> bool:
    """Runs the scenario a link asked for (``"autorun"``): the one whose results the sender saw,
    as it was run (``"link_results"``), else the current one; returns whether a result was
    stored. Errors are shown, never raised; a missing trace is reported by the banner."""
    s = st.session_state
    if not s.pop("autorun", False):
        return False
    if s["source_kind"] == SOURCE_KINDS[1] and s.get("upload") is None:
        return False
    try:
        current = build_config()
    except EngineError as exc:
        st.error(f"The linked scenario is not valid here: {exc}")
        return False
    name, ran = s.get("link_results") or ("", None)
    name = name if name in s["scenarios"] else current_name()
    config = ran or s["scenarios"].get(name, current)
    if not config.policies:
        return False
    progress = RunProgress("Running the linked scenario…")
    s["cancel_requested"] = False
    try:
        result, _ = runner.run(
            config, s["upload"], progress.show, lambda: bool(s["cancel_requested"])
        )
    except (EngineError, SimulationCancelled) as exc:
        progress.clear()
        st.error(f"The linked scenario did not run: {exc}")
        return False
    progress.clear()
    s["result"], s["result_config"] = result, config.to_json()
    s["result_scenario"] = name
    s["result_paper_preset"] = s.get("paper_preset")
    return True

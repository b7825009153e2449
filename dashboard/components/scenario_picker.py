"""The scenario picker: which named scenario the widgets edit; duplicate, rename, delete."""

from __future__ import annotations

import streamlit as st

from dashboard import scenarios
from engine.errors import EngineError


def _on_choice() -> None:
    scenarios.switch_to(st.session_state["scenario_choice"])


def _on_duplicate() -> None:
    s = st.session_state
    try:
        name = scenarios.duplicate_current(s.get("new_scenario_name") or "")
    except EngineError as exc:
        s["flash"] = ("error", f"Cannot duplicate: {exc}")
        return
    s["new_scenario_name"] = ""
    s["flash"] = ("success", f"Scenario **{name}** is a copy; its changes leave the others as "
                             "they are. Compare them on the Compare page.")  # fmt: skip


def _on_rename() -> None:
    s = st.session_state
    try:
        scenarios.rename(scenarios.current_name(), s.get("new_scenario_name") or "")
    except EngineError as exc:
        s["flash"] = ("error", f"Cannot rename: {exc}")
        return
    s["new_scenario_name"] = ""


def _on_delete() -> None:
    scenarios.delete(scenarios.current_name())


def render_scenario_picker() -> None:
    """A row: the current scenario, a name box, Duplicate, Rename, Delete."""
    s = st.session_state
    names = scenarios.scenario_names()
    if s.get("scenario_choice") not in names:
        s["scenario_choice"] = scenarios.current_name()
    row = st.container(horizontal=True, vertical_alignment="bottom")
    row.selectbox(
        "Scenario", names, key="scenario_choice", on_change=_on_choice, width=260,
        help="The named scenario these tabs edit. The first is the baseline on the Compare page.",
    )  # fmt: skip
    row.text_input("New name", key="new_scenario_name", placeholder="e.g. more V100s", width=220)
    row.button("Duplicate", key="duplicate_scenario", on_click=_on_duplicate,
               icon=":material/content_copy:",
               help="Copy the current scenario under the new name and edit the copy.")  # fmt: skip
    row.button("Rename", key="rename_scenario", on_click=_on_rename)
    row.button("Delete", key="delete_scenario", on_click=_on_delete, disabled=len(names) == 1)

"""An ``st.data_editor`` that edits a table field of the current scenario.

The edited table lives under a plain session key (:data:`dashboard.state.TABLES`), seeded from
the scenario when absent. The editor is mounted with a snapshot of it and keeps that snapshot
while it stays on screen (its edits are relative to it). When the editor was dropped (another
page was shown) or ``table_version`` was bumped (a scenario was loaded), it is mounted again
from the latest table. An edited table that reads as a valid field is written into the
scenario; one that does not is kept with its error (:func:`dashboard.state.current_config`).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from dashboard.state import TABLE_ERRORS, TABLES, current, edit, get_field
from engine.errors import ConfigError


def render_table_editor(state_key: str, column_config: dict[str, Any]) -> pd.DataFrame:
    """Draws the editor for the table at ``st.session_state[state_key]`` and writes a valid
    edit into the scenario.

    Returns:
        The edited table (also kept at ``st.session_state[state_key]``).
    """
    s = st.session_state
    table = TABLES[state_key]
    if state_key not in s:
        s[state_key] = table.to_frame(get_field(current(), table.path))
    editor_key = f"{state_key}_editor_{s.get('table_version', 0)}"
    base_key = f"{state_key}_base"
    if editor_key not in s or base_key not in s:
        s[base_key] = s[state_key].reset_index(drop=True).copy()
    edited = st.data_editor(
        s[base_key],
        key=editor_key,
        num_rows="dynamic",
        hide_index=True,
        column_config=column_config,
        width="stretch",
    )
    s[state_key] = edited
    errors = s.setdefault(TABLE_ERRORS, {})
    try:
        value = table.from_frame(edited)
    except ConfigError as exc:
        errors[state_key] = str(exc)
        return edited
    errors.pop(state_key, None)
    if value != get_field(current(), table.path):
        edit(table.path, value)
    return edited

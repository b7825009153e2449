"""An ``st.data_editor`` that edits a table field of the current scenario.

The edited table lives under a plain session key (:data:`dashboard.state_fields.TABLES`),
seeded from the scenario when absent. The editor is mounted with a snapshot of it and keeps
that snapshot while it stays on screen (its edits are relative to it). When the editor was
dropped (another page was shown) or ``table_version`` was bumped (a scenario was loaded), it is
mounted again from the latest table. An edited table that reads as a valid field is written into the
scenario; one that does not is kept and its error shown under the table
(:func:`dashboard.state.current_config` raises it until it is fixed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from dashboard.runner import worker_types
from dashboard.session_keys import TABLE_ERRORS
from dashboard.state import current, edit, get_field
from dashboard.state_fields import TABLES
from engine.errors import ConfigError


def render_table_editor(
    state_key: str, column_config: dict[str, Any], title: str = "", note: str = ""
) -> bool:
    """Draws ``title`` (Markdown), the editor of the table at ``st.session_state[state_key]``,
    ``note`` (a caption) and the error of an edit that does not read; a valid edit is written
    into the scenario.

    Returns:
        Whether the edited table reads as a valid field.
    """
    if title:
        st.markdown(title)
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
    if note:
        st.caption(note)
    errors = s.setdefault(TABLE_ERRORS, {})
    try:
        value = table.from_frame(edited)
        if table.into is not None:
            value = table.into(get_field(current(), table.path), value)
    except ConfigError as exc:
        errors[state_key] = str(exc)
        st.error(str(exc))
        return False
    errors.pop(state_key, None)
    if value != get_field(current(), table.path):
        edit(table.path, value)
    return True


def gpu_type_column(label: str, help: str, extra: Sequence[str] = ()) -> Any:
    """A required column whose options are the GPU types of the scenario's throughput matrix,
    then ``extra`` (e.g. the scenario's extra GPU types)."""
    options = [*worker_types(current().throughputs), *extra]
    return st.column_config.SelectboxColumn(label, options=options, required=True, help=help)

"""An ``st.data_editor`` whose edits survive page switches and can be replaced from code.

The edited table lives under a plain session key. The editor is mounted with a snapshot of it
and keeps that snapshot while it stays on screen (its edits are relative to it). When the
editor was dropped (another page was shown) or ``table_version`` was bumped (a scenario was
loaded), it is mounted again from the latest table.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st


def render_table_editor(state_key: str, column_config: dict[str, Any]) -> pd.DataFrame:
    """Draws the editor for the table at ``st.session_state[state_key]`` and stores the edits.

    Returns:
        The edited table (also written back to ``st.session_state[state_key]``).
    """
    editor_key = f"{state_key}_editor_{st.session_state.get('table_version', 0)}"
    base_key = f"{state_key}_base"
    if editor_key not in st.session_state or base_key not in st.session_state:
        st.session_state[base_key] = st.session_state[state_key].reset_index(drop=True).copy()
    edited = st.data_editor(
        st.session_state[base_key],
        key=editor_key,
        num_rows="dynamic",
        hide_index=True,
        column_config=column_config,
        width="stretch",
    )
    st.session_state[state_key] = edited
    return edited

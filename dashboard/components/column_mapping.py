"""The column-mapping step for an uploaded CSV whose format cannot be detected.

The user says which of the file's columns holds each canonical column; the engine builds the
canonical jobs table (:func:`engine.traces.apply_column_mapping`), which replaces the upload as a
canonical CSV so that runs and scenario files work the same way afterwards.
"""

from __future__ import annotations

import io

import pandas as pd
import streamlit as st

from dashboard.query import set_upload
from dashboard.state import edit
from dashboard.state_fields import SOURCE_KINDS, source_kind
from engine.config import ScenarioConfig
from engine.errors import EngineError
from engine.step_time.throughput import load_matrix
from engine.traces import (
    apply_column_mapping,
    optional_canonical_columns,
    required_canonical_columns,
    to_canonical_csv,
)
from engine.traces.reading import decode_text
from engine.traces.registry import comma_text

UNMAPPED = "(none)"


def needs_mapping(config: ScenarioConfig, upload: tuple[str, bytes] | None, exc: Exception) -> bool:
    """Whether ``exc`` says the uploaded file's format could not be recognised."""
    return (
        upload is not None
        and source_kind(config.trace) == SOURCE_KINDS[1]
        and config.trace.format == "auto"
        and "could not recognise the trace format" in str(exc)
    )


def render_column_mapping(upload: tuple[str, bytes]) -> None:
    """Selectboxes mapping canonical columns to the file's columns, and an Apply button."""
    name, raw = upload
    try:
        text, _ = comma_text(decode_text(raw, name), name)
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except EngineError as exc:
        st.error(str(exc))
        return
    except (ValueError, UnicodeDecodeError) as exc:
        st.error(f"{name}: cannot read the file as CSV: {exc}")
        return
    st.markdown("**Map the columns** of your file (or pick its format above).")
    options = [UNMAPPED, *frame.columns]
    mapping = {}
    cols = st.columns(4)
    for i, canonical in enumerate(required_canonical_columns() + optional_canonical_columns()):
        guess = canonical if canonical in frame.columns else UNMAPPED
        with cols[i % 4]:
            chosen = st.selectbox(
                canonical, options, index=options.index(guess), key=f"map.{canonical}"
            )
        if chosen != UNMAPPED:
            mapping[canonical] = chosen
    shift = st.checkbox("Arrival times are absolute (start the trace at 0)", key="map.shift")
    if st.button("Apply mapping", type="primary"):
        _apply(frame, mapping, name, shift)


def _apply(frame: pd.DataFrame, mapping: dict[str, str], name: str, shift: bool) -> None:
    try:
        jobs = apply_column_mapping(frame, mapping, load_matrix(), file=name, shift_to_zero=shift)
    except EngineError as exc:
        st.error(str(exc))
        return
    set_upload((name, to_canonical_csv(jobs)))
    st.session_state["column_mapping"] = mapping
    edit("trace.format", "canonical")  # the upload is a canonical CSV now
    st.rerun()

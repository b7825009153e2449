"""The trace picker: a sample, an uploaded file, or a synthetic workload, and how to read it."""

from __future__ import annotations

import streamlit as st

from dashboard.runner import worker_types
from dashboard.state import SOURCE_KINDS
from engine.traces import format_description, list_formats, list_samples


def _on_upload() -> None:
    file = st.session_state.get("trace_file")
    if file is not None:
        st.session_state["upload"] = (file.name, file.getvalue())
        st.session_state["column_mapping"] = None


def render_trace_source() -> None:
    """Source radio and the inputs of the chosen source."""
    kind = st.radio("Jobs come from", SOURCE_KINDS, key="source_kind", horizontal=True)
    if kind == SOURCE_KINDS[0]:
        st.selectbox("Sample trace", list_samples(), key="sample_name")
    elif kind == SOURCE_KINDS[1]:
        st.file_uploader(
            "Trace file (CSV or Gavel .trace)", type=["csv", "trace", "txt"], key="trace_file",
            on_change=_on_upload,
            help="Philly, ITP, Pollux, Tiresias, Gavel or canonical CSV; detected from the header.",
        )  # fmt: skip
        upload = st.session_state["upload"]
        if upload is not None:
            st.caption(f"Using **{upload[0]}** ({len(upload[1]) / 1024:,.0f} KB).")
    else:
        left, right = st.columns(2)
        left.number_input("Number of jobs", min_value=1, max_value=20000, step=50, key="num_jobs")
        right.number_input(
            "Jobs per hour", min_value=0.1, step=1.0, key="jobs_per_hour",
            help="Poisson arrival rate",
        )  # fmt: skip
    if kind != SOURCE_KINDS[2]:
        _render_reading_options()


def _format_label(name: str) -> str:
    return "detect from header" if name == "auto" else f"{name}: {format_description(name)}"


def _render_reading_options() -> None:
    formats = ["auto", *list_formats()]
    left, mid, right = st.columns(3)
    left.selectbox("Format", formats, key="trace_format", format_func=_format_label)
    mid.selectbox(
        "Durations were measured on", worker_types(), key="assumed_worker_type",
        help="GPU type the trace's durations were observed on (Philly and ITP record none).",
    )  # fmt: skip
    right.number_input(
        "Use only the first N jobs (0 = all)", min_value=0, step=100, key="max_jobs",
        help="Cut a long trace for a quicker run.",
    )  # fmt: skip

"""The trace picker: a sample, an uploaded file, or a synthetic workload, and how to read it.

After an upload the detected format, encoding and separator are stated, and a reading control
that does not apply to that format (the GPU type durations were measured on, for formats that
record step counts) is hidden. With "Upload a file" chosen and no file given, nothing else is
previewed or run in its place (:func:`upload_missing`).
"""

from __future__ import annotations

import streamlit as st

from dashboard.components.table_editor import render_table_editor
from dashboard.query import set_upload
from dashboard.runner import worker_types
from dashboard.state import bind, current, edit
from dashboard.state_fields import SOURCE_KINDS, source_kind
from engine.config import ScenarioConfig
from engine.errors import EngineError
from engine.traces import (
    TraceInfo,
    accepted_suffixes,
    carries_speeds,
    format_description,
    inspect_trace,
    list_formats,
    list_samples,
    uses_assumed_worker_type,
)
from engine.traces.resolve import SAMPLE_DIR
from engine.traces.rules import DURATIONS_MEASURED_ON, SPEEDS_MEASURED_ON


def accepted_files() -> str:
    """The extensions the registered trace formats read, e.g. ``".csv, .trace, ... or .yml"``."""
    suffixes = [f".{suffix}" for suffix in accepted_suffixes()]
    return f"{', '.join(suffixes[:-1])} or {suffixes[-1]}"


def _formats_help() -> str:
    """The uploader's help: every registered format, in the order detection tries them."""
    names = "; ".join(format_description(name) for name in list_formats())
    return (
        f'Detected from the first line: {names}. UTF-8 or UTF-16 (Excel\'s "Unicode text"), '
        "comma- or tab-separated."
    )


def _refusal(name: str) -> str | None:
    """Why the file ``name`` is refused by its extension (any is let through the uploader, so
    that the refusal is said on the page), or None for an accepted one."""
    if name.rsplit(".", 1)[-1].lower() in accepted_suffixes():
        return None
    return f"{name} is not a trace file this panel reads: upload a {accepted_files()} file."


def _on_upload() -> None:
    s = st.session_state
    file = s.get("trace_file")
    s["upload_refused"] = None if file is None else _refusal(file.name)
    if s["upload_refused"]:
        file = None  # as if removed: the previous file's preview and error go with it
    set_upload(None if file is None else (file.name, file.getvalue()))
    if s["column_mapping"] is not None and current().trace.format == "canonical":
        edit("trace.format", "auto")  # the mapping was the previous file's
    s["column_mapping"] = None
    if source_kind(current().trace) == SOURCE_KINDS[1]:
        edit("trace.source", f"upload:{file.name if file else s.get('link_trace_name', '')}")


def upload_missing() -> bool:
    """Whether "Upload a file" is chosen but no file was given (then nothing may run)."""
    return source_kind(current().trace) == SOURCE_KINDS[1] and st.session_state["upload"] is None


@st.cache_data(show_spinner=False, max_entries=16)
def _inspect(name: str, raw: bytes) -> TraceInfo | None:
    try:
        return inspect_trace(raw, name)
    except EngineError:
        return None  # the preview shows the engine's message


def _current_info() -> TraceInfo | None:
    s, trace = st.session_state, current().trace
    if source_kind(trace) == SOURCE_KINDS[1]:
        return _inspect(*s["upload"]) if s["upload"] else None
    path = SAMPLE_DIR / trace.source.removeprefix("sample:")
    return _inspect(path.name, path.read_bytes()) if path.is_file() else None


def speeds_types_to_offer(config: ScenarioConfig) -> list[str]:
    """GPU types to offer under :data:`SPEEDS_MEASURED_ON` when the trace carries its own
    speeds (Muri's testbed trace) measured on a type that ``config``'s cluster lacks: its jobs
    run only on that type, so every one is refused. Empty when that is not the case.

    Returns:
        The cluster's GPU types that the control lists, in its order.
    """
    info = _current_info()
    chosen = config.trace.format
    effective = info.format if chosen == "auto" and info is not None else chosen
    capacity = config.cluster.capacity()
    if not carries_speeds(effective) or config.trace.assumed_worker_type in capacity:
        return []
    return [worker_type for worker_type in worker_types() if worker_type in capacity]


def render_trace_source() -> None:
    """Source radio and the inputs of the chosen source."""
    kind = st.radio("Jobs come from", SOURCE_KINDS, horizontal=True, **bind("source_kind"))
    if kind == SOURCE_KINDS[0]:
        st.selectbox("Sample trace", list_samples(), **bind("sample_name"))
    elif kind == SOURCE_KINDS[1]:
        st.file_uploader(
            f"Trace file ({accepted_files()})",
            key="trace_file", on_change=_on_upload, help=_formats_help(),
        )  # fmt: skip
        upload, refused = st.session_state["upload"], st.session_state.get("upload_refused")
        if refused and upload is None:
            st.error(refused)
            return
        if upload is None:
            st.info("Upload a trace file to preview and run it. No sample is used in its place.")
            return
        st.caption(f"Using **{upload[0]}** ({len(upload[1]) / 1024:,.0f} KB).")
    else:
        left, right = st.columns(2)
        left.number_input("Number of jobs", step=50, **bind("num_jobs"))
        right.number_input(
            "Jobs per hour", step=1.0, **bind("jobs_per_hour"),
            help="Poisson arrival rate (the LLM-era mix: its daily mean)",
        )  # fmt: skip
        workload = st.radio(
            "Job mix", ["gavel", "llm"], horizontal=True, **bind("synthetic_workload"),
            format_func=lambda w: WORKLOAD_LABELS[w],
            help="LLM-era: small jobs on 1-8 GPUs, fine-tunes on 8-64, pre-training on 256-512, "
            "arrivals with a daily cycle (engine/traces/llm_mix.py; classes editable in the "
            "scenario JSON, trace.synthetic.llm). Its job types need the mlperf matrix.",
        )  # fmt: skip
        if workload == "llm":
            _render_llm_mix()
    if kind != SOURCE_KINDS[2]:
        _render_reading_options(_current_info())


WORKLOAD_LABELS = {"gavel": "Gavel's Philly-derived mix", "llm": "LLM-era mix (MLPerf job types)"}


def _render_llm_mix() -> None:
    """The LLM-era mix's classes, daily cycle and its rules, all editable."""
    number = st.column_config.NumberColumn
    st.caption(
        "Each job: a class by its share; a size, a power of two in [min, max] GPUs; a job type "
        "drawn from the class's list; a run time log-uniform in [min, max] hours on "
        "H100-SXM at that size (engine/traces/llm_mix.py)."
    )
    render_table_editor("llm_classes", {
        "name": st.column_config.TextColumn("Class", required=True),
        "share": number("Share", min_value=0.0, format="%.2f", required=True),
        "min_gpus": number("Min GPUs", min_value=1, step=1, required=True),
        "max_gpus": number("Max GPUs", min_value=1, step=1, required=True),
        "job_types": st.column_config.TextColumn(
            "Job types (comma-separated)", width="large", required=True,
            help="Benchmarks of the mlperf matrix (the Matrix page lists them)"),
        "min_hours": number("Min hours", min_value=0.01, format="%.2f", required=True),
        "max_hours": number("Max hours", min_value=0.01, format="%.2f", required=True),
    })  # fmt: skip
    left, right = st.columns(2)
    left.slider(
        "Daily swing of the arrival rate", step=0.05, **bind("llm_daily_amplitude"),
        help="0: constant rate; 0.5: the peak hour gets 3x the trough's arrivals",
    )  # fmt: skip
    right.number_input("Peak hour", step=1.0, **bind("llm_peak_hour"))


def _format_label(name: str) -> str:
    return "detect from header" if name == "auto" else f"{name}: {format_description(name)}"


def _render_reading_options(info: TraceInfo | None) -> None:
    if info is not None:
        st.markdown(
            f"Detected format: **{format_description(info.format)}** "
            f"(`{info.format}`; {info.encoding}, "
            f"{'tab' if info.tab_separated else 'comma'}-separated)"
            if info.format != "gavel"
            else f"Detected format: **{format_description(info.format)}** (`gavel`)"
        )
    formats = ["auto", *list_formats()]
    left, mid, right = st.columns(3)
    chosen = left.selectbox("Format", formats, format_func=_format_label, **bind("trace_format"))
    effective = info.format if chosen == "auto" and info is not None else chosen
    if carries_speeds(effective):
        mid.selectbox(
            SPEEDS_MEASURED_ON, worker_types(), **bind("assumed_worker_type"),
            help="GPU type of the trace's own measured iteration times (Muri's testbed: "
            "v100); its jobs run at those speeds on that type only.",
        )  # fmt: skip
    elif uses_assumed_worker_type(effective):
        mid.selectbox(
            DURATIONS_MEASURED_ON, worker_types(current().throughputs),
            **bind("assumed_worker_type"),
            help="GPU type the trace's durations were observed on (Philly and ITP record none).",
        )  # fmt: skip
    else:
        mid.caption("This format records step counts; no GPU type needs to be assumed.")
    right.number_input(
        "Use only the first N jobs (0 = all)", step=100, **bind("max_jobs"),
        help="Cut a long trace for a quicker run.",
    )  # fmt: skip

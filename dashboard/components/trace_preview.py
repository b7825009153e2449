"""The trace preview: engine notes, headline numbers, sizes, durations and the first rows."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import runner
from dashboard.charts import make_duration_histogram
from dashboard.components.chart import render_chart
from dashboard.components.column_mapping import needs_mapping, render_column_mapping
from dashboard.components.trace_panel import speeds_types_to_offer
from dashboard.formatting import human_duration
from dashboard.state import edit
from engine.config import ScenarioConfig
from engine.errors import EngineError, OversizedJobsError
from engine.traces import TraceLoad
from engine.traces.rules import SPEEDS_MEASURED_ON


def _drop_oversized() -> None:
    edit("trace.drop_oversized", True)


def _offer_measured_on(config: ScenarioConfig, exc: OversizedJobsError) -> bool:
    """Says which trace setting refuses every job of a trace with its own speeds, with a button
    per GPU type of the cluster that would run them; False when that is not the cause."""
    types = speeds_types_to_offer(config)
    if not types:
        return False
    st.error(
        f"This trace's jobs run only on the GPU type its iteration times were measured on, now "
        f"{config.trace.assumed_worker_type}, and the cluster has none: change "
        f'"{SPEEDS_MEASURED_ON}" above to {" or ".join(types)}.\n\n{exc}'
    )
    for column, worker_type in zip(st.columns(len(types)), types, strict=True):
        column.button(
            f"Measured on {worker_type}", key=f"measured_on.{worker_type}",
            on_click=edit, args=("trace.assumed_worker_type", worker_type),
        )  # fmt: skip
    return True


def render_trace_load(config: ScenarioConfig, upload: runner.Upload) -> TraceLoad | None:
    """Loads the scenario's trace and previews it; shows the engine's message on failure."""
    try:
        load = runner.load_trace(config, upload)
    except OversizedJobsError as exc:
        if _offer_measured_on(config, exc):
            return None
        st.error(str(exc))
        st.button(
            f"Drop them ({len(exc.job_ids)} jobs)", on_click=_drop_oversized,
            help="Or change the GPU mix so that the largest jobs fit.",
        )  # fmt: skip
        return None
    except EngineError as exc:
        st.error(str(exc))
        if needs_mapping(config, upload, exc):
            render_column_mapping(upload)
        return None
    render_trace_preview(load)
    return load


def render_trace_preview(load: TraceLoad) -> None:
    """Notes, numbers, a size table, a duration histogram and the first rows of ``load``."""
    jobs = load.jobs
    for note in load.notes:
        st.info(note)
    cols = st.columns(4)
    cols[0].metric("Jobs", f"{len(jobs):,}", help=f"format: {load.format}, file: {load.file_name}")
    cols[1].metric("Arrivals span", human_duration(float(jobs["arrival_s"].max())))
    gpu_s = (jobs["duration_s"] * jobs["scale_factor"]).sum(min_count=1)
    demand = (
        f"{gpu_s / 3600:,.0f} GPU-h" if pd.notna(gpu_s) else f"{jobs['scale_factor'].sum():,} GPUs"
    )
    cols[2].metric("Total GPU demand", demand, help="GPU-hours when durations are known")
    cols[3].metric("Largest job", f"{int(jobs['scale_factor'].max())} GPUs")
    left, right = st.columns([1, 3])
    with left:
        st.markdown("**Jobs per size**")
        sizes = jobs["scale_factor"].value_counts().sort_index()
        st.dataframe(
            sizes.rename_axis("GPUs per job").rename("jobs").reset_index(), hide_index=True
        )
    with right:
        if jobs["duration_s"].notna().any():
            render_chart(make_duration_histogram(jobs), key="duration_histogram")
        else:
            st.caption("The trace records no durations; the simulator uses its step counts.")
    st.markdown("**First rows**")
    st.dataframe(jobs.head(20), hide_index=True)

"""Which jobs the Gantt chart shows: all of a small trace, or a readable slice of a large one.

A large trace opens on its busiest hour: the jobs that arrived in the hour with the most
arrivals (at most :data:`READABLE_ROWS`, so every row keeps its label), on an axis from that
hour's start to one more hour, where their waits turn into runs [R]. A wider window (6 h, a day,
a week) or another slice is one click away.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.formatting import time_unit

MAX_BARS = 300
READABLE_ROWS = 30
"""[R] Rows of a Gantt that each keep a label and, with the time axis, fit a 1000-pixel
window (22 px a row)."""
BUSIEST = "Busiest window"
MODES = (BUSIEST, "Earliest jobs", "Time window", "Job range", "Only preempted", "Longest N")
WINDOWS_S = {"15 min": 900.0, "1 h": 3600.0, "6 h": 21600.0, "1 day": 86400.0,
             "1 week": 604800.0}  # fmt: skip
"""The busiest window's widths a person can pick (1 h by default)."""


@dataclass(frozen=True)
class GanttFilter:
    """A job selection: ``mode`` (one of MODES) and its bounds (seconds / 1-based ranks)."""

    mode: str = "Earliest jobs"
    window_s: tuple[float, float] = (0.0, float("inf"))
    ranks: tuple[int, int] = (1, MAX_BARS)
    top_n: int = MAX_BARS


def select_jobs(jobs: pd.DataFrame, segments: pd.DataFrame, spec: GanttFilter) -> pd.Series:
    """Ids of the jobs ``spec`` selects (at most MAX_BARS), ordered by arrival."""
    jobs = jobs.sort_values(["arrival_s", "job_id"]).reset_index(drop=True)
    if spec.mode == BUSIEST:
        lo, hi = spec.window_s
        jobs = jobs[(jobs["arrival_s"] >= lo) & (jobs["arrival_s"] < hi)].head(READABLE_ROWS)
    elif spec.mode == "Earliest jobs":
        jobs = jobs.head(spec.top_n)
    elif spec.mode == "Time window":
        lo, hi = spec.window_s
        end = jobs["completion_s"].fillna(float("inf"))
        jobs = jobs[(jobs["arrival_s"] <= hi) & (end >= lo)]
    elif spec.mode == "Job range":
        jobs = jobs.iloc[max(spec.ranks[0] - 1, 0) : spec.ranks[1]]
    elif spec.mode == "Only preempted":
        moved = segments.loc[segments["end_reason"].isin(["preempted", "migrated"]), "job_id"]
        jobs = jobs[jobs["job_id"].isin(moved)]
    elif spec.mode == "Longest N":
        jobs = jobs.loc[jobs["jct_s"].nlargest(spec.top_n).index].sort_index()
    return jobs["job_id"].head(MAX_BARS)


def render_gantt_filter(jobs: pd.DataFrame) -> GanttFilter:
    """Filter widgets; a trace of at most MAX_BARS jobs needs none."""
    if len(jobs) <= MAX_BARS:
        return GanttFilter(ranks=(1, len(jobs)))
    st.caption(f"{len(jobs):,} jobs: too many bars to read at once. Pick a slice (≤ {MAX_BARS}).")
    mode = st.radio("Show", MODES, horizontal=True, key="gantt_mode")
    if mode == BUSIEST:
        name = st.select_slider("Window (widen to see more)", list(WINDOWS_S), value="1 h",
                                key="gantt_busiest")  # fmt: skip
        width_s = WINDOWS_S[name]
        start_s = busiest_window_s(jobs["arrival_s"].to_numpy(float), width_s)
        unit, scale = time_unit(start_s + width_s)
        arrived = jobs["arrival_s"].between(start_s, start_s + width_s, inclusive="left")
        st.caption(
            f"The busiest {name}: {int(arrived.sum()):,} jobs arrived from "
            f"{start_s / scale:,.2f} to {(start_s + width_s) / scale:,.2f} {unit}"
            f"{f' (the first {READABLE_ROWS} shown)' if arrived.sum() > READABLE_ROWS else ''}; "
            f"the axis shows that {name} and one more."
        )
        return GanttFilter(mode, window_s=(start_s, start_s + width_s))
    if mode == "Time window":
        end_s = float(jobs["completion_s"].max())
        unit, scale = time_unit(end_s)
        top = round(end_s / scale, 1)
        lo, hi = st.slider(f"Time window ({unit})", 0.0, top, (0.0, top / 20), key="gantt_window")
        return GanttFilter(mode, window_s=(lo * scale, hi * scale))
    if mode == "Job range":
        lo, hi = st.slider("Jobs by arrival (#)", 1, len(jobs), (1, 100), key="gantt_ranks")
        return GanttFilter(mode, ranks=(lo, hi))
    if mode in ("Earliest jobs", "Longest N"):
        n = st.slider("How many jobs", 10, MAX_BARS, 100, step=10, key="gantt_top_n")
        return GanttFilter(mode, top_n=n)
    return GanttFilter(mode)


def shared_selection(sims: list, spec: GanttFilter) -> tuple[list[str], float]:
    """Job ids (rows, by arrival) and the initial time-range end (s) shared by side-by-side
    Gantt charts of ``sims`` (SimulationResults): "Longest N" ranks jobs by their longest JCT
    under any of them, "Only preempted" takes jobs preempted under any of them."""
    from dashboard.gantt import initial_end_s

    jobs = sims[0].jobs.copy()
    jct = pd.concat([s.jobs.set_index("job_id")["jct_s"] for s in sims], axis=1).max(axis=1)
    jobs["jct_s"] = jobs["job_id"].map(jct)
    segments = pd.concat([s.segments for s in sims], ignore_index=True)
    ids = [str(j) for j in select_jobs(jobs, segments, spec)]
    ends = []
    for sim in sims:
        shown = sim.jobs[sim.jobs["job_id"].astype(str).isin(ids)]
        end_s = float(shown["completion_s"].max()) if len(shown) else 0.0
        ends.append(initial_end_s(shown, end_s))
    return ids, max(ends) if ends else 0.0


def whole_range_s(sims: list, ids: list[str]) -> float:
    """The end (s) of the time axis that shows the whole run of jobs ``ids`` under every one of
    ``sims`` (SimulationResults): their last completion or segment end, whichever is later."""
    ends = [0.0]
    for sim in sims:
        jobs = sim.jobs[sim.jobs["job_id"].astype(str).isin(ids)]
        segments = sim.segments[sim.segments["job_id"].astype(str).isin(ids)]
        ends += [float(jobs["completion_s"].max()) if len(jobs) else 0.0,
                 float(segments["end_s"].max()) if len(segments) else 0.0]  # fmt: skip
    return max(e for e in ends if e == e)  # NaN (a job never completed) left out


def busiest_window_s(arrivals_s: np.ndarray, width_s: float) -> float:
    """Start (s) of the window ``[start, start + width_s)`` holding the most arrivals, the
    earliest of equals; windows start at an arrival (a busiest window always can). 0.0 for no
    arrivals."""
    arrivals = np.sort(np.asarray(arrivals_s, dtype=float))
    if not arrivals.size:
        return 0.0
    counts = np.searchsorted(arrivals, arrivals + width_s, side="left") - np.arange(arrivals.size)
    return float(arrivals[int(np.argmax(counts))])


def shown_range_s(sims: list, ids: list[str], spec: GanttFilter) -> tuple[float, float]:
    """The time axis (s) the Gantt opens on: the busiest window and one more of its width; a
    chosen time window; else the whole run of jobs ``ids`` (:func:`whole_range_s`)."""
    lo, hi = spec.window_s
    if spec.mode == BUSIEST:
        return lo, hi + (hi - lo)
    if spec.mode == "Time window":
        return lo, hi
    return 0.0, whole_range_s(sims, ids)

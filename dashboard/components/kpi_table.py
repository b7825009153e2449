"""The KPI table for a planning meeting: one row per policy, humane units, best value marked."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from engine import units
from engine.metrics import METRIC_GROUPS, METRICS, failures_by_size, makespan_tail
from engine.results import ComparisonResult

BEST_STYLE = "background-color: #d8f0dc; font-weight: 700"
ONLY_WHEN_USED = ("consolidation_wait_mean_s",)
"""Metrics only some policies produce (delay scheduling); a column of zeros is left out."""

POLICY_COLUMN_PX = (100, 230)
"""The policy column's narrowest and widest width (px): the widest holds "Gavel finish-time
fairness (agnostic)", the longest policy name. [R]"""


def policy_index(names: Iterable[str]) -> dict[str, Any]:
    """Column config of a table indexed by policy, as wide as the longest name it shows
    (8 px a character plus 32 px of padding at Streamlit's 14-px font, within
    :data:`POLICY_COLUMN_PX`; [R]): a fixed 230-px column for "FIFO" and "Tiresias LAS" pushed
    the last metric of a group behind a scroll bar at 1280 x 720."""
    narrowest, widest = POLICY_COLUMN_PX
    width = max((8 * len(str(name)) + 32 for name in names), default=narrowest)
    return {
        "_index": st.column_config.TextColumn("policy", width=min(max(width, narrowest), widest))
    }


KPI_GROUPS = METRIC_GROUPS
"""The KPI table's metrics in the tables the Results page shows them in, one below the other
(`engine.metrics.METRIC_GROUPS`; the durations of a table share one unit): all sixteen side
by side are wider than a 1600-pixel window, which hid the last columns. Each group fits beside
a policy column as wide as the longest policy name (:func:`policy_index`) in a 1600-pixel
window, and beside FIFO's and Tiresias LAS's at 1280 x 720 (the browser tests check that no
table scrolls sideways; five columns of long headers, as "Use of the cluster" with
GPU-hours had, do not fit). The GPU-hours lost to failures and checkpoints and the failure
group are shown only for a scenario with failures on (their metrics exist only then)."""


def kpi_formats(kpi: pd.DataFrame) -> dict[str, units.ColumnFormat]:
    """The format of every metric column of ``kpi`` (`engine.units.metric_formats`): the
    durations of a :data:`KPI_GROUPS` group in one unit, picked from all the policies' values,
    so mean, median, p95 and p99 JCT read in the same unit along a row."""
    numbers = {m: pd.to_numeric(kpi[m], errors="coerce") for m in kpi.columns if m in METRICS}
    return units.metric_formats(numbers)


def header(metric: str, fmt: units.ColumnFormat) -> str:
    """A metric column's header: label, unit and direction, e.g. "Mean JCT (min) ↓"."""
    spec = METRICS[metric]
    return f"{fmt.header(spec.label)} {'↓' if spec.lower_is_better else '↑'}"


def best_mask(kpi: pd.DataFrame) -> pd.DataFrame:
    """True where a cell holds the best value of its metric column as shown (rounded to the
    column's decimals): values that print the same are all marked; a column whose values
    all print the same marks none."""
    mask = pd.DataFrame(False, index=kpi.index, columns=kpi.columns)
    formats = kpi_formats(kpi)
    for metric in kpi.columns:
        values = pd.to_numeric(kpi[metric], errors="coerce")
        if metric not in METRICS or values.isna().all():
            continue
        shown = values.map(formats[metric].rounded)
        if shown.nunique() < 2:
            continue
        best = shown.min() if METRICS[metric].lower_is_better else shown.max()
        mask[metric] = shown == best
    return mask


def kpi_styler(kpi: pd.DataFrame) -> Styler:
    """``ComparisonResult.kpi_table()`` with METRICS headers, readable cells, best values shaded."""
    metrics = [
        m
        for m in METRICS
        if m in kpi.columns
        and not (m in ONLY_WHEN_USED and (pd.to_numeric(kpi[m], errors="coerce") == 0).all())
    ]
    formats = kpi_formats(kpi[metrics])
    headers = {m: header(m, formats[m]) for m in metrics}
    mask = best_mask(kpi[metrics]).rename(columns=headers)
    shown = kpi[metrics].rename(columns=headers)
    return shown.style.format({headers[m]: formats[m].text for m in metrics}).apply(
        lambda col: [BEST_STYLE if flag else "" for flag in mask[col.name]], axis=0
    )


def render_kpi_table(kpi: pd.DataFrame) -> None:
    """The styled KPI table as one table per :data:`KPI_GROUPS` entry, with a legend line."""
    for title, group in KPI_GROUPS.items():
        styler = kpi_styler(kpi[[m for m in group if m in kpi.columns]])
        if styler.data.columns.empty:
            continue
        st.markdown(f"**{title}**")
        key = "kpi_table_" + title.lower().replace(" ", "_")
        st.dataframe(
            styler, height=38 + 35 * len(kpi), key=key, width="content",
            column_config=policy_index(kpi.index),
        )  # fmt: skip
    st.caption(
        "↓ lower is better · ↑ higher is better · the best policy per column is shaded green. "
        "GPU utilization while jobs arrive: from the first arrival to the last; over the "
        "makespan: from the first arrival to the last completion; while jobs wait or run: "
        "only the time some job is in the system."
    )


def makespan_notes(result: ComparisonResult) -> list[str]:
    """One sentence per policy whose makespan one job set (`engine.metrics.makespan_tail`):
    which job, its GPUs, and how long it was alone, in the unit the table shows the makespan in."""
    notes = []
    fmt = kpi_formats(result.kpi_table())["makespan_s"]
    for sim in result.results:
        tail = makespan_tail(sim.jobs)
        if tail is None:
            continue
        job_id, alone_s, makespan_s = tail
        gpus = sim.jobs.loc[sim.jobs["job_id"] == job_id, "scale_factor"].iloc[0]
        notes.append(
            f"{sim.policy}: job {job_id} ({gpus:g} GPUs) ran alone for the last "
            f"{fmt.text(alone_s, unit=True)} of the {fmt.text(makespan_s, unit=True)} makespan"
        )
    return notes


def render_makespan_note(result: ComparisonResult) -> None:
    """A note naming the job that set a policy's makespan, when one did."""
    notes = makespan_notes(result)
    if notes:
        st.info(
            "**Makespan set by one job.** " + "; ".join(notes) + ". Utilization over the "
            "makespan counts that tail; utilization while jobs arrive leaves it out."
        )


OVER_REQUEST = 1.05
"""GPUs held per GPU requested above which a policy is said to hand jobs more than they asked."""


def over_requested(result: ComparisonResult) -> dict[str, float]:
    """Policies whose jobs held, over all their running time, more GPUs than they requested:
    policy -> GPU-seconds held / GPU-seconds requested (``scale_factor x run_time_s``)."""
    out = {}
    for sim in result.results:
        jobs = sim.jobs
        if "gpus_held_per_requested" not in jobs:
            continue
        requested = float((jobs["scale_factor"] * jobs["run_time_s"]).sum())
        ratio = float(jobs["attained_service_gpu_s"].sum()) / requested if requested > 0 else 0.0
        if ratio > OVER_REQUEST:
            out[sim.policy] = ratio
    return out


def render_over_request_note(result: ComparisonResult) -> None:
    """A note when some policy hands jobs more GPUs than they asked for (elastic policies)."""
    over = over_requested(result)
    if not over:
        return
    listed = ", ".join(f"{policy} {ratio:.1f}×" for policy, ratio in over.items())
    st.info(
        f"More GPUs than requested: {listed} (GPUs held per GPU requested, over the jobs' "
        "running time). These policies grow jobs or fork them into copies, so a shorter JCT "
        "costs GPU-hours; compare the 'GPU-hours used' column, and see gpus_held_per_requested "
        "in the per-job results."
    )


def kpi_csv(kpi: pd.DataFrame) -> str:
    """The KPI table as CSV in the table's units, named in the headers (e.g. ``jct_mean_h``,
    ``utilization_mean_pct``)."""
    out = pd.DataFrame(index=kpi.index)
    formats = kpi_formats(kpi)
    for metric in kpi.columns:
        if metric not in METRICS:
            out[metric] = kpi[metric]
            continue
        values = pd.to_numeric(kpi[metric], errors="coerce")
        fmt = formats[metric]
        suffix = {"%": "pct", "": ""}.get(fmt.unit, fmt.unit) if METRICS[metric].unit in (
            "s", "fraction") else ""  # fmt: skip
        name = metric.removesuffix("_s") + (f"_{suffix}" if suffix else "")
        out[name] = values.map(fmt.value)
    return out.to_csv(float_format="%.6f")


def render_downloads(result: ComparisonResult) -> None:
    """CSV downloads of the KPI table and of the per-job results (with a policy column), each
    written when its button is pressed, so the page's charts do not wait for them."""
    left, right = st.columns(2)
    left.download_button(
        "Download KPI table (CSV)", lambda: kpi_csv(result.kpi_table()), file_name="kpis.csv",
        mime="text/csv", help="Values in the units of the table; the headers say which.",
    )  # fmt: skip
    right.download_button(
        "Download per-job results (CSV)", lambda: result.combined("jobs").to_csv(index=False),
        file_name="jobs.csv", mime="text/csv",
    )  # fmt: skip


def failures_by_size_table(result: ComparisonResult) -> pd.DataFrame | None:
    """Failures per job by job size (rows: GPUs per job), a column group per policy; None for
    a scenario without failures (:func:`engine.metrics.failures_by_size`)."""
    if not result.config.failures.enabled or not result.results:
        return None
    frames = []
    for sim in result.results:
        table = failures_by_size(sim.jobs).set_index("scale_factor")
        table.columns = pd.MultiIndex.from_product([[sim.policy], _BY_SIZE_HEADERS])
        frames.append(table)
    return pd.concat(frames, axis=1).rename_axis("GPUs per job")


def render_failures_by_size(result: ComparisonResult) -> None:
    """:func:`failures_by_size_table`, when the scenario has failures on."""
    shown = failures_by_size_table(result)
    if shown is None:
        return
    st.markdown("**Failures by job size**")
    st.dataframe(by_size_styler(shown), key="failures_by_size", width="content")
    st.caption(
        "Failures per job and lost GPU-hours grow with the nodes a job holds: each of its "
        "nodes can fail under it. Lost work = the time since the job's last checkpoint and "
        "the restore after the failure, times its GPUs."
    )


_BY_SIZE_HEADERS = ["jobs", "failures", "failures per job", "share of jobs hit", "lost GPU-h"]
_BY_SIZE_FORMATS = ["{:,.0f}", "{:,.0f}", "{:.3f}", "{:.1%}", "{:,.1f}"]


def by_size_styler(table: pd.DataFrame) -> Styler:
    """:func:`failures_by_size_table` with each column in its format (counts whole, failures
    per job to 3 decimals, the share of jobs hit in %, GPU-hours to 1 decimal)."""
    formats = dict(zip(_BY_SIZE_HEADERS, _BY_SIZE_FORMATS, strict=True))
    return table.style.format({column: formats[column[1]] for column in table.columns})

"""Metrics: pure functions on result tables (see :mod:`engine.results` for the columns).

Definitions follow ``shared/docs/schedulers.md`` "Shared model":

- JCT = completion_s - arrival_s; mean, median, p95, p99 over completed jobs.
- makespan = last completion - first arrival.
- queueing delay = first start - arrival.
- utilization over the makespan (``utilization_mean``) = allocated GPU-seconds / (capacity x
  makespan), per worker type and overall. A few long jobs stretch the makespan while the
  cluster is nearly empty, so this figure reads low for a planner.
- utilization while jobs arrive (``utilization_arrivals``, :func:`arrival_utilization`) =
  allocated GPU-seconds between the first and the last arrival / (capacity x that window)
  [R: our definition; the cluster as the trace loads it, before one long job's tail stretches
  the makespan]. Not part of a run's summary (whose values are fixed by
  ``tests/engine/data/native_reference.json``): ``ComparisonResult.kpi_table`` adds it.
  :func:`makespan_tail` names the job that set the makespan when it ran alone at the end.
- utilization while jobs wait or run (``utilization_active``) = allocated GPU-seconds /
  (capacity x the time during which at least one job has arrived and not completed) [R: our
  definition for planners; idle gaps with no job in the system are left out, a long tail with
  one job running is kept].
- finish-time fairness ``ftf_rho = JCT / JCT_isolated`` (Themis, Mahajan et al., NSDI 2020), with
  JCT_isolated = the job alone on a 1/N share of the cluster, N = time-averaged number of jobs
  in the system during the job's life. A share of C/N GPUs runs an ``sf``-GPU gang a
  ``min(1, C/(N sf))`` fraction of the time [R: the share holds each worker type in proportion
  to its capacity, so the job's isolated speed is the capacity-weighted mean of its throughputs
  over the types with at least ``sf`` GPUs].
- Jain's fairness index (Jain, Chiu, Hawe, 1984) over each job's speed relative to its fair
  share, ``1 / ftf_rho``: 1 when every job got the same fraction of its fair share. (Over ρ
  itself a few starved jobs would dominate the index and invert rankings.)
- communication overhead = share of a job's running time spent in ring all-reduce.
- consolidation wait = time a job waited while its policy held it back for a better
  consolidated placement (delay scheduling, e.g. Dally); 0 for policies that never do.
- GPU-hours used = GPU-seconds held by all jobs (restores and consolidations included) / 3600;
  beside the jobs table's ``gpus_held_per_requested`` it shows when a policy hands jobs more
  GPUs than they asked for.
- with failures on (:mod:`engine.faults`): goodput = useful / allocated GPU-hours, GPU-hours
  lost to failures and spent on checkpoints, jobs stopped by failures
  (:func:`failure_summary`), and failures by job size (:func:`failures_by_size`).
- with sharing (:mod:`engine.sharing`): GPU-hours saved by sharing and each job's slowdown from
  sharing (:mod:`engine.metrics_sharing`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from engine.metrics_sharing import SHARING_COLUMN, SHARING_METRICS, sharing_summary


class Metric(NamedTuple):
    """A summary metric: display label, unit, and whether lower values are better. A duration
    (unit ``"s"``) is shown in the unit its column's magnitude picks
    (`engine.units.column_format`), the same for every row of a table."""

    label: str
    unit: str
    lower_is_better: bool


METRICS: dict[str, Metric] = {
    "jct_mean_s": Metric("Mean JCT", "s", True),
    "jct_median_s": Metric("Median JCT", "s", True),
    "jct_p95_s": Metric("p95 JCT", "s", True),
    "jct_p99_s": Metric("p99 JCT", "s", True),
    "makespan_s": Metric("Makespan", "s", True),
    "queueing_delay_mean_s": Metric("Mean queueing delay", "s", True),
    "utilization_arrivals": Metric("GPU utilization while jobs arrive", "fraction", False),
    "utilization_mean": Metric("GPU utilization over the makespan", "fraction", False),
    "utilization_active": Metric("GPU utilization while jobs wait or run", "fraction", False),
    "ftf_rho_mean": Metric("Mean finish-time fairness ρ", "ratio", True),
    "ftf_rho_max": Metric("Worst finish-time fairness ρ", "ratio", True),
    "jain_index": Metric("Jain's index of 1/ρ", "0..1", False),
    "comm_overhead_mean": Metric("Communication overhead", "fraction", True),
    "consolidation_wait_mean_s": Metric("Mean consolidation wait", "s", True),
    "gpu_hours_used": Metric("GPU-hours used", "GPU-h", True),
    "preemptions_total": Metric("Preemptions", "count", True),
    "jobs_completed": Metric("Jobs completed", "count", False),
    "goodput": Metric("Goodput (useful / allocated GPU-hours)", "fraction", False),
    "gpu_hours_lost_failures": Metric("GPU-hours lost to failures", "GPU-h", True),
    "gpu_hours_checkpoints": Metric("GPU-hours writing checkpoints", "GPU-h", True),
    "job_failures_total": Metric("Jobs stopped by failures", "count", True),
    "node_failures": Metric("Node failures", "count", True),
    "gpu_hours_saved_sharing": Metric("GPU-hours saved by sharing", "GPU-h", False),
    "slowdown_from_sharing_mean": Metric(
        "Mean slowdown from sharing (jobs that shared)", "ratio", True
    ),
    "jobs_shared": Metric("Jobs that shared GPUs", "count", False),
}
METRIC_GROUPS: dict[str, tuple[str, ...]] = {
    "Job completion": (
        "jct_mean_s", "jct_median_s", "jct_p95_s", "jct_p99_s", "makespan_s", "jobs_completed",
    ),
    "Waiting": ("queueing_delay_mean_s", "consolidation_wait_mean_s"),
    "Fairness": ("ftf_rho_mean", "ftf_rho_max", "jain_index"),
    "Use of the cluster": ("utilization_arrivals", "utilization_mean", "utilization_active"),
    "Overheads": ("comm_overhead_mean", "preemptions_total"),
    "GPU-hours": ("gpu_hours_used", "gpu_hours_lost_failures", "gpu_hours_checkpoints"),
    "Failures": ("goodput", "job_failures_total", "node_failures"),
    "Sharing GPUs": SHARING_METRICS,
}  # fmt: skip
"""The summary metrics in the groups a person reads them in, each group one table (the
dashboard's Results page and report) or one block of lines (the CLI). The durations of a group
share one unit (`engine.units.metric_formats`), so a row compares mean, median, p95 and p99 JCT
and the makespan in the same unit [R]."""
FAILURE_METRICS = (
    "goodput", "gpu_hours_lost_failures", "gpu_hours_checkpoints", "job_failures_total",
    "node_failures",
)  # fmt: skip
"""The summary metrics of a run with failures on (:mod:`engine.faults`); absent otherwise
(``node_failures``, failures of schedulable nodes while jobs were left, is the engine's count;
the others come from the jobs table, :func:`failure_summary`)."""


def jain_index(values: np.ndarray) -> float:
    """Jain's fairness index ``(sum x)^2 / (n sum x^2)`` in (0, 1]; NaN for no values."""
    values = np.asarray(values, dtype=float)
    if values.size == 0 or not np.any(values):
        return float("nan")
    return float(values.sum() ** 2 / (values.size * np.square(values).sum()))


def utilization_by_type(utilization: pd.DataFrame, end_s: float) -> pd.Series:
    """Time-weighted mean utilization per worker type over [0, end_s] (index: worker_type)."""
    out = {}
    for worker_type, rows in utilization.groupby("worker_type", sort=True):
        out[worker_type] = _busy_gpu_s(rows, end_s) / (rows["capacity_gpus"].iloc[0] * end_s)
    return pd.Series(out, name="utilization", dtype=float)


def _busy_gpu_s(rows: pd.DataFrame, end_s: float) -> float:
    return _busy_of(rows["time_s"].to_numpy(dtype=float), rows["busy_gpus"], end_s)


def _busy_of(time_s: np.ndarray, busy_gpus: ArrayLike, end_s: float) -> float:
    """Busy GPU-seconds of one worker type's step function (rows in time order) up to end_s."""
    times = np.minimum(time_s, end_s)
    widths = np.diff(np.append(times, end_s))
    return float(np.sum(widths * np.asarray(busy_gpus, dtype=float)))


def active_span_s(arrival_s: np.ndarray, completion_s: np.ndarray) -> float:
    """Length (s) of the union of the jobs' [arrival_s, completion_s] intervals, (J,) each: the
    time during which at least one job is waiting or running. Jobs without a completion (NaN) are
    left out. An np.float64 when any job completed (``utilization_active`` keeps the type it
    always had)."""
    done = ~np.isnan(completion_s)
    starts, ends = arrival_s[done], completion_s[done]
    order = np.argsort(starts, kind="quicksort")  # pandas' sort_values: the same tie order
    total, reach = 0.0, -np.inf
    for start, end in zip(starts[order].tolist(), ends[order].tolist(), strict=True):
        if end <= reach:
            continue
        total += end - max(start, reach)
        reach = end
    return np.float64(total) if starts.size else total  # the type the numpy loop gave


def summarize(
    jobs: pd.DataFrame, utilization: pd.DataFrame, failures: bool = False
) -> dict[str, float]:
    """The summary metrics of one run (keys: :data:`METRICS`; those of
    :data:`FAILURE_METRICS` only when ``failures``, see :func:`failure_summary`).

    Computed on the tables' numpy columns with the reductions pandas uses (NaN skipped as in
    ``Series.mean``/``max``/``sum``), without a pandas round trip per metric: the same floats,
    a fraction of the fixed cost of a small run."""
    column = {name: jobs[name].to_numpy() for name in _SUMMARY_COLUMNS if name in jobs}
    completion = column["completion_s"].astype(float)
    done = ~np.isnan(completion)
    jct = column["jct_s"].astype(float)[done]
    end_s = float(completion[done].max()) if jct.size else 0.0
    arrival = column["arrival_s"].astype(float)
    start_s = float(arrival.min()) if arrival.size else 0.0
    busy, capacity_gpus, num_types = _busy_and_capacity(utilization, end_s)
    span_s = max(end_s - start_s, 1e-9)
    quantile = (lambda q: float(np.quantile(jct, q))) if jct.size else (lambda q: float("nan"))
    ftf_rho = column["ftf_rho"].astype(float)[done]
    wait = column.get("consolidation_wait_s")
    summary = {
        "jct_mean_s": float(jct.mean()) if jct.size else float("nan"),
        "jct_median_s": quantile(0.5),
        "jct_p95_s": quantile(0.95),
        "jct_p99_s": quantile(0.99),
        "makespan_s": end_s - start_s,
        "queueing_delay_mean_s": _mean(column["queueing_delay_s"][done]),
        "utilization_active": (
            busy / (capacity_gpus * max(active_span_s(arrival, completion), 1e-9))
            if num_types
            else 0.0
        ),
        "utilization_mean": busy / (capacity_gpus * span_s) if num_types else 0.0,
        "ftf_rho_mean": _mean(ftf_rho),
        "ftf_rho_max": float(np.nanmax(ftf_rho)) if (ftf_rho == ftf_rho).any() else float("nan"),
        "jain_index": jain_index(1.0 / ftf_rho),
        "comm_overhead_mean": _mean(column["comm_overhead"][done]),
        "consolidation_wait_mean_s": _mean(np.zeros(1) if wait is None else wait[done]),
        "gpu_hours_used": _sum(column["attained_service_gpu_s"]) / 3600,
        "preemptions_total": _sum(column["num_preemptions"]),
        "jobs_completed": float(jct.size),
    }
    if failures:
        summary.update(failure_summary(jobs))
    if SHARING_COLUMN in jobs:  # some job shared GPUs (engine.metrics_sharing)
        summary.update(sharing_summary(jobs, busy))
    return summary


def failure_summary(jobs: pd.DataFrame) -> dict[str, float]:
    """Goodput and what failures and checkpoints cost (:data:`FAILURE_METRICS`).

    goodput = useful GPU-hours / allocated GPU-hours, with useful = allocated less the work
    failures lost (since each job's last checkpoint, and the restore after the failure) and
    less the time spent writing checkpoints [R: restores after preemptions, a cost of the
    policy rather than of failures, stay in "useful"; Kokolis et al. 2024 call the job-level
    analogue the effective training time ratio]."""
    allocated = _sum(jobs["attained_service_gpu_s"].to_numpy())
    lost = _sum(jobs["lost_work_gpu_s"].to_numpy())
    checkpoints = _sum(jobs["checkpoint_gpu_s"].to_numpy())
    return {
        "goodput": (allocated - lost - checkpoints) / allocated if allocated > 0 else float("nan"),
        "gpu_hours_lost_failures": lost / 3600,
        "gpu_hours_checkpoints": checkpoints / 3600,
        "job_failures_total": _sum(jobs["num_failures"].to_numpy()),
    }


def failures_by_size(jobs: pd.DataFrame) -> pd.DataFrame:
    """Failures per job by job size: one row per scale factor (GPUs requested), with columns
    scale_factor, jobs, failures (jobs stopped by a failure, counted per stop),
    failures_per_job, jobs_hit (share of jobs stopped at least once) and
    lost_gpu_hours (work lost to failures). A job on more nodes fails more often (its MTBF is
    its nodes' in series), as Kokolis et al. (2024) measure: MTTF falls with job size."""
    grouped = jobs.groupby("scale_factor", sort=True)
    return pd.DataFrame({
        "jobs": grouped.size(),
        "failures": grouped["num_failures"].sum(),
        "failures_per_job": grouped["num_failures"].mean(),
        "jobs_hit": grouped["num_failures"].apply(lambda f: float((f > 0).mean())),
        "lost_gpu_hours": grouped["lost_work_gpu_s"].sum() / 3600,
    }).reset_index()  # fmt: skip


_SUMMARY_COLUMNS = (
    "arrival_s", "completion_s", "jct_s", "queueing_delay_s", "ftf_rho", "comm_overhead",
    "consolidation_wait_s", "attained_service_gpu_s", "num_preemptions",
)  # fmt: skip


def _busy_and_capacity(utilization: pd.DataFrame, end_s: float) -> tuple[float, float, int]:
    """Busy GPU-seconds up to end_s summed over worker types (sorted, as groupby does), the
    total capacity (each type's first row) and the number of worker types."""
    worker_type = utilization["worker_type"].to_numpy()
    if not worker_type.size:
        return 0, 0.0, 0
    time_s = utilization["time_s"].to_numpy(dtype=float)
    busy_gpus = utilization["busy_gpus"].to_numpy()
    capacity = utilization["capacity_gpus"].to_numpy()
    busy: float = 0  # an int 0 when there are no types, as sum() of nothing gave
    capacity_gpus = 0
    names = sorted(set(worker_type.tolist()))
    for name in names:
        rows = worker_type == name
        busy += _busy_of(time_s[rows], busy_gpus[rows], end_s)
        capacity_gpus += capacity[rows][0]
    return busy, float(capacity_gpus), len(names)


def arrival_utilization(jobs: pd.DataFrame, utilization: pd.DataFrame) -> float:
    """Allocated GPU-seconds between the first and the last arrival over (capacity x that
    window), in [0, 1]; NaN when every job arrives at once (no window) or there is no job.

    Args:
        jobs: the jobs table (``arrival_s``); utilization: the utilization steps table.
    """
    arrival = jobs["arrival_s"].to_numpy(dtype=float)
    if not arrival.size or arrival.max() <= arrival.min():
        return float("nan")
    start_s, end_s = float(arrival.min()), float(arrival.max())
    busy_end, capacity_gpus, types = _busy_and_capacity(utilization, end_s)
    busy_start = _busy_and_capacity(utilization, start_s)[0]
    return (busy_end - busy_start) / (capacity_gpus * (end_s - start_s)) if types else 0.0


TAIL_SHARE = 0.25
"""[R] A makespan is said to be set by one job when that job was alone in the system (every
other job done) for at least a quarter of the makespan."""


def makespan_tail(jobs: pd.DataFrame) -> tuple[object, float, float] | None:
    """The job that set the makespan, when it did alone: ``(job_id, alone_s, makespan_s)``.

    The job completing last was alone from the later of its arrival and every other job's
    completion; that time is ``alone_s``. None when it is under :data:`TAIL_SHARE` of the
    makespan (first arrival to last completion), or with fewer than two completed jobs.
    """
    done = jobs[jobs["completion_s"].notna()]
    if len(done) < 2:
        return None
    order = done["completion_s"].to_numpy(dtype=float).argsort(kind="stable")
    last, before = done.iloc[order[-1]], float(done["completion_s"].iloc[order[-2]])
    makespan_s = float(last["completion_s"]) - float(jobs["arrival_s"].min())
    alone_s = float(last["completion_s"]) - max(before, float(last["arrival_s"]))
    if makespan_s <= 0 or alone_s < TAIL_SHARE * makespan_s:
        return None
    return last["job_id"], alone_s, makespan_s


def _mean(values: np.ndarray) -> float:
    """``Series.mean()`` of a float column (NaN skipped; NaN when none is left): numpy's
    ``nanmean``, the same zero-filled sum over the count, without its empty-slice warning."""
    values = np.asarray(values, dtype=float)
    return float(np.nanmean(values)) if (values == values).any() else float("nan")


def _sum(values: np.ndarray) -> float:
    """``Series.sum()`` of a float column: numpy's ``nansum`` (NaN skipped)."""
    return float(np.nansum(np.asarray(values, dtype=float)))


def jct_cdf(jobs: pd.DataFrame) -> pd.DataFrame:
    """Empirical CDF of JCT: columns jct_s (sorted) and fraction (in (0, 1])."""
    jct = np.sort(jobs["jct_s"].dropna().to_numpy(dtype=float))
    return pd.DataFrame({"jct_s": jct, "fraction": np.arange(1, jct.size + 1) / max(jct.size, 1)})

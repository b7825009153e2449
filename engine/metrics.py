"""Metrics: pure functions on result tables (see :mod:`engine.results` for the columns).

Definitions follow ``shared/docs/schedulers.md`` "Shared model":

- JCT = completion_s - arrival_s; mean, median, p95, p99 over completed jobs.
- makespan = last completion - first arrival.
- queueing delay = first start - arrival.
- utilization over the makespan (``utilization_mean``) = allocated GPU-seconds / (capacity x
  makespan), per worker type and overall. A few long jobs stretch the makespan while the
  cluster is nearly empty, so this figure reads low for a planner.
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
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd


class Metric(NamedTuple):
    """A summary metric: display label, unit, whether lower values are better, and the one unit
    a duration is always shown in (``"min"``, ``"h"``, ``"d"``; empty for other units), so a
    column never changes unit between runs."""

    label: str
    unit: str
    lower_is_better: bool
    display_unit: str = ""


SECONDS_PER_UNIT = {"s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0}


def display_value(metric: str, value: float) -> tuple[float, str]:
    """``value`` of ``metric`` in its display unit, and that unit (e.g. ``(3.6, "h")`` for a
    mean JCT of 12,960 s); other metrics unchanged, with their METRICS unit."""
    spec = METRICS[metric]
    if spec.unit == "s" and spec.display_unit:
        return value / SECONDS_PER_UNIT[spec.display_unit], spec.display_unit
    return value, spec.unit


METRICS: dict[str, Metric] = {
    "jct_mean_s": Metric("Mean JCT", "s", True, "h"),
    "jct_median_s": Metric("Median JCT", "s", True, "h"),
    "jct_p95_s": Metric("p95 JCT", "s", True, "h"),
    "jct_p99_s": Metric("p99 JCT", "s", True, "h"),
    "makespan_s": Metric("Makespan", "s", True, "d"),
    "queueing_delay_mean_s": Metric("Mean queueing delay", "s", True, "min"),
    "utilization_active": Metric("GPU utilization while jobs wait or run", "fraction", False),
    "utilization_mean": Metric("GPU utilization over the makespan", "fraction", False),
    "ftf_rho_mean": Metric("Mean finish-time fairness ρ", "ratio", True),
    "ftf_rho_max": Metric("Worst finish-time fairness ρ", "ratio", True),
    "jain_index": Metric("Jain's index of 1/ρ", "0..1", False),
    "comm_overhead_mean": Metric("Communication overhead", "fraction", True),
    "consolidation_wait_mean_s": Metric("Mean consolidation wait", "s", True, "min"),
    "gpu_hours_used": Metric("GPU-hours used", "GPU-h", True),
    "preemptions_total": Metric("Preemptions", "count", True),
    "jobs_completed": Metric("Jobs completed", "count", False),
}


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
    times = np.minimum(rows["time_s"].to_numpy(dtype=float), end_s)
    widths = np.diff(np.append(times, end_s))
    return float(np.sum(widths * rows["busy_gpus"].to_numpy(dtype=float)))


def active_span_s(jobs: pd.DataFrame) -> float:
    """Length (s) of the union of the jobs' [arrival_s, completion_s] intervals: the time during
    which at least one job is waiting or running. Jobs without a completion are left out."""
    done = jobs.dropna(subset=["completion_s"]).sort_values("arrival_s")
    total, reach = 0.0, -np.inf
    starts, ends = done["arrival_s"].to_numpy(float), done["completion_s"].to_numpy(float)
    for start, end in zip(starts, ends, strict=True):
        if end <= reach:
            continue
        total += end - max(start, reach)
        reach = end
    return total


def summarize(jobs: pd.DataFrame, utilization: pd.DataFrame) -> dict[str, float]:
    """The summary metrics of one run (keys: :data:`METRICS`)."""
    done = jobs.dropna(subset=["completion_s"])
    jct = done["jct_s"].to_numpy(dtype=float)
    end_s = float(done["completion_s"].max()) if len(done) else 0.0
    start_s = float(jobs["arrival_s"].min()) if len(jobs) else 0.0
    capacity = utilization.groupby("worker_type")["capacity_gpus"].first()
    busy = sum(
        _busy_gpu_s(rows, end_s) for _, rows in utilization.groupby("worker_type", sort=True)
    )
    span_s = max(end_s - start_s, 1e-9)
    quantile = (lambda q: float(np.quantile(jct, q))) if jct.size else (lambda q: float("nan"))
    return {
        "jct_mean_s": float(jct.mean()) if jct.size else float("nan"),
        "jct_median_s": quantile(0.5),
        "jct_p95_s": quantile(0.95),
        "jct_p99_s": quantile(0.99),
        "makespan_s": end_s - start_s,
        "queueing_delay_mean_s": float(done["queueing_delay_s"].mean()),
        "utilization_active": (
            busy / (float(capacity.sum()) * max(active_span_s(jobs), 1e-9))
            if len(capacity)
            else 0.0
        ),
        "utilization_mean": busy / (float(capacity.sum()) * span_s) if len(capacity) else 0.0,
        "ftf_rho_mean": float(done["ftf_rho"].mean()),
        "ftf_rho_max": float(done["ftf_rho"].max()),
        "jain_index": jain_index(1.0 / done["ftf_rho"].to_numpy(dtype=float)),
        "comm_overhead_mean": float(done["comm_overhead"].mean()),
        "consolidation_wait_mean_s": float(
            done.get("consolidation_wait_s", pd.Series([0.0])).mean()
        ),
        "gpu_hours_used": float(jobs["attained_service_gpu_s"].sum()) / 3600,
        "preemptions_total": float(jobs["num_preemptions"].sum()),
        "jobs_completed": float(len(done)),
    }


def jct_cdf(jobs: pd.DataFrame) -> pd.DataFrame:
    """Empirical CDF of JCT: columns jct_s (sorted) and fraction (in (0, 1])."""
    jct = np.sort(jobs["jct_s"].dropna().to_numpy(dtype=float))
    return pd.DataFrame({"jct_s": jct, "fraction": np.arange(1, jct.size + 1) / max(jct.size, 1)})

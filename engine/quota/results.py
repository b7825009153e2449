"""Per-team results of a run under quotas.

:func:`annotate` adds to a run's tables what the quota layer knows (only under queues; without
them the tables are untouched):

- ``jobs``: ``queue`` (LocalQueue), ``cluster_queue``, ``priority``, ``flavor`` (the worker
  type of its last admission), ``quota_wait_s`` and ``placement_wait_s`` (its queueing delay
  split as Jeon et al., ATC'19, split Philly's: its ClusterQueue's head did not fit the quota,
  against the quota fit but the GPUs were not free; the rest of its queueing delay is wait
  behind its own queue's earlier jobs while admission went on [R]), and its evictions by Kueue's
  reason (``preempted_in_cluster_queue``, ``preempted_reclaim``, ``preempted_fair_sharing``).
- ``segments``: ``preemption_reason`` on each segment that ended in an eviction (Kueue's
  reason: InClusterQueue, InCohortReclamation, InCohortReclaimWhileBorrowing,
  InCohortFairSharing), "" elsewhere.
- ``quota_usage``: a step function per ClusterQueue and worker type: from ``time_s`` on,
  ``gpus`` in use against ``nominal_gpus``.

:func:`team_table` then gives one row per ClusterQueue (Kueue users' per-queue questions:
wait, goodput as running time over lifetime, use against quota, borrowing and lending).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from engine.quota.model import QueueConfig
from engine.quota.preemption import (
    IN_CLUSTER_QUEUE,
    IN_COHORT_FAIR_SHARING,
    IN_COHORT_RECLAIM_WHILE_BORROWING,
    IN_COHORT_RECLAMATION,
)
from engine.results import SimulationResult

if TYPE_CHECKING:
    from engine.quota.gate import QuotaPolicy

QUOTA_USAGE_COLUMNS = ("time_s", "cluster_queue", "worker_type", "gpus", "nominal_gpus")
_REASON_COLUMNS = {
    IN_CLUSTER_QUEUE: "preempted_in_cluster_queue",
    IN_COHORT_RECLAMATION: "preempted_reclaim",
    IN_COHORT_RECLAIM_WHILE_BORROWING: "preempted_reclaim",
    IN_COHORT_FAIR_SHARING: "preempted_fair_sharing",
}


def annotate(result: SimulationResult, gate: QuotaPolicy) -> SimulationResult:
    """``result`` with the per-team columns and the ``quota_usage`` table (module docstring)."""
    jobs = result.jobs.copy()
    ids = pd.Index(jobs["job_id"].astype(str))
    rows = pd.Index(gate.job_ids).get_indexer(ids).tolist()  # (job ids are unique)
    jobs["queue"] = [gate.local_queue[i] for i in rows]
    jobs["cluster_queue"] = [gate.cluster_queue[i] for i in rows]
    jobs["priority"] = np.asarray([gate.priority[i] for i in rows], dtype=np.int64)
    jobs["flavor"] = [gate.flavor.get(i, "") for i in rows]
    jobs["quota_wait_s"] = np.asarray(gate.waits.quota_wait_s)[rows]
    jobs["placement_wait_s"] = np.asarray(gate.waits.placement_wait_s)[rows]
    counts = {column: np.zeros(len(gate.job_ids), dtype=np.int64)
              for column in dict.fromkeys(_REASON_COLUMNS.values())}  # fmt: skip
    reason_at: dict[tuple[str, float], str] = {}
    for time_s, index, reason, _ in gate.evictions:
        counts[_REASON_COLUMNS[reason]][index] += 1
        reason_at[(gate.job_ids[index], time_s)] = reason
    for column, values in counts.items():
        jobs[column] = values[rows]
    segments = result.segments.copy()
    if len(segments):
        keys = zip(segments["job_id"].astype(str), segments["end_s"], strict=True)
        segments["preemption_reason"] = [reason_at.get(key, "") for key in keys]
    else:
        segments["preemption_reason"] = pd.Series(dtype="str")
    summary = {**result.summary, **team_summary(jobs)}
    return dataclasses.replace(
        result, jobs=jobs, segments=segments, quota_usage=_usage_table(gate), summary=summary
    )


TEAM_METRICS = {
    "jct_mean_s": ("mean JCT", "jct_s", None),
    "jct_p95_s": ("p95 JCT", "jct_s", 0.95),
    "queueing_mean_s": ("mean queueing delay", "queueing_delay_s", None),
    "queueing_p95_s": ("p95 queueing delay", "queueing_delay_s", 0.95),
}
"""Per-team KPIs of a run's summary, keyed ``team_<metric>:<ClusterQueue>`` (label, jobs
column, quantile or None for the mean): Compare, Sweep and the study CLI pair them per team on
the same seeds like any KPI."""


def team_summary(jobs: pd.DataFrame) -> dict[str, float]:
    """``team_<metric>:<ClusterQueue>`` -> value for :data:`TEAM_METRICS` (seconds)."""
    out: dict[str, float] = {}
    for cq, group in jobs.groupby("cluster_queue", sort=True):
        for metric, (_, column, q) in TEAM_METRICS.items():
            values = group[column].dropna()
            out[f"team_{metric}:{cq}"] = _quantile(values, q) if q else _mean(values)
    return out


def team_metric_parts(key: str) -> tuple[str, str] | None:
    """(metric, ClusterQueue) of a per-team summary key, None for any other key."""
    if not key.startswith("team_") or ":" not in key:
        return None
    metric, cq = key[len("team_") :].split(":", 1)
    return (metric, cq) if metric in TEAM_METRICS else None


def _usage_table(gate: QuotaPolicy) -> pd.DataFrame:
    nominal = pd.DataFrame(
        [(cq.name, q.flavor, q.nominal_gpus)
         for cq in gate.queues.cluster_queues for q in cq.flavors],
        columns=["cluster_queue", "flavor", "nominal_gpus"],
    )  # fmt: skip
    usage = pd.DataFrame(gate.usage.rows, columns=["time_s", "cluster_queue", "flavor", "gpus"])
    table = usage.merge(nominal, how="left", on=["cluster_queue", "flavor"])
    flavor = table["flavor"]
    types = gate.queues.flavor_types()
    table["worker_type"] = flavor.map({name: types.get(name, name) for name in flavor.unique()})
    table["nominal_gpus"] = table["nominal_gpus"].fillna(0)
    table = table.astype({"time_s": "float64", "gpus": "int64", "nominal_gpus": "int64"})
    return table[list(QUOTA_USAGE_COLUMNS)]


def team_table(
    jobs: pd.DataFrame,
    quota_usage: pd.DataFrame,
    queues: QueueConfig,
    end_s: float,
    start_within_s: float = 3600.0,
) -> pd.DataFrame:
    """One row per ClusterQueue of a run under quotas.

    Args:
        jobs: the annotated jobs table (:func:`annotate`).
        quota_usage: the run's ``quota_usage`` table.
        queues: the configuration the run used.
        end_s: the end of the period the GPU-hours cover (s; the run's makespan).
        start_within_s: T of "share of jobs that start within T" (s).

    Returns:
        Columns: cluster_queue, cohort, jobs, jct_mean_s, jct_p95_s, queueing_mean_s,
        queueing_p95_s, start_within_share, quota_wait_mean_s, placement_wait_mean_s,
        gpu_h_used, gpu_h_nominal, gpu_h_borrowed, gpu_h_lent, preempted_in_cluster_queue,
        preempted_reclaim, preempted_fair_sharing, goodput (running time over lifetime, summed
        over its finished jobs, Kueue's per-queue goodput [R]).
    """
    borrowed, lent, used = _borrow_lend_gpu_h(quota_usage, queues, end_s)
    rows = []
    for cq in queues.cluster_queues:
        own = jobs[jobs["cluster_queue"] == cq.name]
        done = own[own["completion_s"].notna()]
        delay = own["queueing_delay_s"].dropna()
        nominal = sum(q.nominal_gpus for q in cq.flavors) * end_s / 3600.0
        rows.append({
            "cluster_queue": cq.name,
            "cohort": cq.cohort,
            "jobs": len(own),
            "jct_mean_s": _mean(done["jct_s"]),
            "jct_p95_s": _quantile(done["jct_s"], 0.95),
            "queueing_mean_s": _mean(delay),
            "queueing_p95_s": _quantile(delay, 0.95),
            "start_within_share": float((delay <= start_within_s).mean()) if len(delay) else np.nan,
            "quota_wait_mean_s": _mean(own["quota_wait_s"]),
            "placement_wait_mean_s": _mean(own["placement_wait_s"]),
            "gpu_h_used": used.get(cq.name, 0.0),
            "gpu_h_nominal": nominal,
            "gpu_h_borrowed": borrowed.get(cq.name, 0.0),
            "gpu_h_lent": lent.get(cq.name, 0.0),
            "preempted_in_cluster_queue": int(own["preempted_in_cluster_queue"].sum()),
            "preempted_reclaim": int(own["preempted_reclaim"].sum()),
            "preempted_fair_sharing": int(own["preempted_fair_sharing"].sum()),
            "goodput": float(done["run_time_s"].sum() / done["jct_s"].sum())
            if len(done) and done["jct_s"].sum() > 0 else np.nan,
        })  # fmt: skip
    return pd.DataFrame(rows)


def _mean(values: pd.Series) -> float:
    return float(values.mean()) if len(values) else float("nan")


def _quantile(values: pd.Series, q: float) -> float:
    return float(values.quantile(q)) if len(values) else float("nan")


def _borrow_lend_gpu_h(
    usage: pd.DataFrame, queues: QueueConfig, end_s: float
) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """GPU-hours each ClusterQueue borrowed (in use above its nominal quota), lent and used.

    Lent [R]: at each moment the GPUs borrowed in a cohort tree are charged to the tree's
    ClusterQueues that leave nominal GPUs of that worker type unused, in proportion to what
    each leaves unused.
    """
    borrowed: dict[str, float] = {}
    lent: dict[str, float] = {}
    used: dict[str, float] = {}
    if usage.empty:
        return borrowed, lent, used
    root = _roots(queues)
    nominal = {(cq.name, queues.worker_type_of(q.flavor)): q.nominal_gpus
               for cq in queues.cluster_queues for q in cq.flavors}  # fmt: skip
    table = usage.sort_values("time_s", kind="stable")
    times = sorted(set(table["time_s"]) | {end_s})
    state: dict[tuple[str, str], int] = dict.fromkeys(nominal, 0)
    by_time = {t: g for t, g in table.groupby("time_s", sort=True)}
    for t, t_next in zip(times, times[1:], strict=False):
        if t in by_time:
            group = by_time[t]
            for cq, worker_type, gpus in zip(group["cluster_queue"], group["worker_type"],
                                             group["gpus"], strict=True):  # fmt: skip
                state[(str(cq), str(worker_type))] = int(gpus)
        span_h = max(0.0, min(t_next, end_s) - t) / 3600.0
        if span_h <= 0:
            continue
        over: dict[tuple[str, str], float] = {}
        idle: dict[tuple[str, str], list[tuple[str, int]]] = {}
        for (cq, worker_type), gpus in state.items():
            used[cq] = used.get(cq, 0.0) + gpus * span_h
            extra = gpus - nominal.get((cq, worker_type), 0)
            pool = (root[cq], worker_type)
            if extra > 0:
                borrowed[cq] = borrowed.get(cq, 0.0) + extra * span_h
                over[pool] = over.get(pool, 0.0) + extra
            elif extra < 0:
                idle.setdefault(pool, []).append((cq, -extra))
        for pool, total in over.items():
            spare = idle.get(pool, [])
            spare_sum = sum(gpus for _, gpus in spare)
            for cq, gpus in spare:
                lent[cq] = lent.get(cq, 0.0) + min(total, spare_sum) * gpus / spare_sum * span_h
    return borrowed, lent, used


def _roots(queues: QueueConfig) -> dict[str, str]:
    """ClusterQueue -> the root of its cohort tree (itself without a cohort)."""
    parent = {c.name: c.parent for c in queues.cohorts}
    roots = {}
    for cq in queues.cluster_queues:
        node, seen = cq.cohort, set()
        while node and parent.get(node) and node not in seen:
            seen.add(node)
            node = parent[node]
        roots[cq.name] = node or cq.name
    return roots

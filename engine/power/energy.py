"""Facility power over a run and the energy KPIs: pure functions on the utilization table.

The rule [R; the busy factor's source in :mod:`engine.power.model`]: at every moment, per worker
type with ``C`` GPUs on ``N`` nodes of which ``B`` are held by jobs,

    IT power = B x gpu_full_w x busy_power_factor + (C - B) x gpu_idle_w + N x node_other_w

and facility power = ``pue`` x the sum over types. A node draws its other power whether its GPUs
work or not (an upper bound: the DGX figures are maximum system power); a failed or spare node
counts as idle. The KPIs are taken over the makespan (first arrival to last completion), as
``utilization_mean`` and the makespan's cost are: ``energy_kwh``, ``energy_per_job_kwh``,
``power_peak_kw``, ``power_mean_kw`` (energy / makespan) and ``co2e_kg`` (each stretch's energy
times the grid intensity of its hour).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np
import pandas as pd

from engine.config import ClusterSpec
from engine.metrics import Metric
from engine.power.model import PowerSpec, type_figures
from engine.results import SimulationResult

POWER_METRICS: Mapping[str, Metric] = {
    "energy_kwh": Metric("Facility energy", "kWh", True),
    "energy_per_job_kwh": Metric("Energy per completed job", "kWh", True),
    "power_peak_kw": Metric("Peak facility power", "kW", True),
    "power_mean_kw": Metric("Mean facility power", "kW", True),
    "co2e_kg": Metric("CO2e", "kg", True),
}
"""The power KPIs of a run with a power spec, as :data:`engine.metrics.METRICS` describes the
others (label, unit, lower is better)."""

HOUR_S = 3600.0


def power_series(utilization: pd.DataFrame, cluster: ClusterSpec, spec: PowerSpec) -> pd.DataFrame:
    """Facility power as a step function of time.

    Args:
        utilization: a run's utilization table (time_s, worker_type, busy_gpus, ...).
        cluster: the GPU mix (GPUs and nodes per worker type).

    Returns:
        Columns time_s and facility_kw: from ``time_s`` until the next row, the facility drew
        ``facility_kw``; the first row is at 0 s.

    Raises:
        ConfigError: a worker type without a figure (:func:`engine.power.model.type_figures`).
    """
    capacity = cluster.capacity()
    figures = type_figures(spec, sorted(capacity))
    times = np.union1d([0.0], utilization["time_s"].to_numpy(dtype=float))
    it_w = np.zeros_like(times)
    for worker_type, gpus in capacity.items():
        fig = figures[worker_type]
        busy = _busy_at(utilization[utilization["worker_type"] == worker_type], times)
        nodes = sum(g.nodes for g in cluster.node_groups if g.worker_type == worker_type)
        full_w = fig.gpu_full_w * spec.busy_power_factor
        it_w += busy * full_w + (gpus - busy) * fig.gpu_idle_w + nodes * fig.node_other_w
    return pd.DataFrame({"time_s": times, "facility_kw": spec.pue * it_w / 1000.0})


def _busy_at(rows: pd.DataFrame, times: np.ndarray) -> np.ndarray:
    """Busy GPUs of one type's step rows (any order) at each of ``times``; 0 before the first."""
    rows = rows.sort_values("time_s", kind="stable")
    index = np.searchsorted(rows["time_s"].to_numpy(dtype=float), times, side="right") - 1
    busy = rows["busy_gpus"].to_numpy(dtype=float)
    return np.where(index >= 0, busy[np.clip(index, 0, None)], 0.0) if busy.size else times * 0


def full_load_kw(cluster: ClusterSpec, spec: PowerSpec) -> float:
    """Facility power (kW) with every GPU held by a job: the figure a data hall is sized for.

    Raises:
        ConfigError: a worker type without a figure.
    """
    figures = type_figures(spec, sorted(cluster.capacity()))
    it_w = sum(
        g.nodes * (g.gpus_per_node * figures[g.worker_type].gpu_full_w * spec.busy_power_factor
                   + figures[g.worker_type].node_other_w)
        for g in cluster.node_groups
    )  # fmt: skip
    return spec.pue * it_w / 1000.0


def power_kpis(
    series: pd.DataFrame, start_s: float, end_s: float, jobs_completed: float, spec: PowerSpec
) -> dict[str, float]:
    """The power KPIs (:data:`POWER_METRICS`) of a :func:`power_series` over [start_s, end_s].

    ``energy_per_job_kwh`` is NaN with no completed job; a zero-length span gives zero energy
    and NaN mean power.
    """
    edges, kw = _pieces(series, start_s, end_s, spec)
    hours = np.diff(edges) / HOUR_S
    curve = np.asarray(spec.grid_hourly_g_co2e_per_kwh or (spec.grid_g_co2e_per_kwh,), float)
    intensity = curve[(edges[:-1] // HOUR_S).astype(int) % curve.size]
    energy = float(np.sum(kw * hours))
    span_h = (end_s - start_s) / HOUR_S
    return {
        "energy_kwh": energy,
        "energy_per_job_kwh": energy / jobs_completed if jobs_completed else float("nan"),
        "power_peak_kw": float(kw.max()) if kw.size else 0.0,
        "power_mean_kw": energy / span_h if span_h > 0 else float("nan"),
        "co2e_kg": float(np.sum(kw * hours * intensity)) / 1000.0,
    }


def _pieces(
    series: pd.DataFrame, start_s: float, end_s: float, spec: PowerSpec
) -> tuple[np.ndarray, np.ndarray]:
    """Edges (s) of the stretches of [start_s, end_s] on which both power and the grid's hour
    are constant, and each stretch's facility power (kW)."""
    times = series["time_s"].to_numpy(dtype=float)
    hourly = bool(spec.grid_hourly_g_co2e_per_kwh)
    first, last = np.ceil(start_s / HOUR_S), np.ceil(end_s / HOUR_S)
    hours = np.arange(first, last if hourly else first) * HOUR_S
    inside = times[(times > start_s) & (times < end_s)]
    edges = np.union1d(np.union1d(inside, hours), [start_s, end_s])
    index = np.searchsorted(times, edges[:-1], side="right") - 1
    return edges, series["facility_kw"].to_numpy(dtype=float)[np.clip(index, 0, None)]


def run_span(jobs: pd.DataFrame) -> tuple[float, float, float]:
    """(first arrival s, last completion s, jobs completed) of a jobs table: the makespan's
    span, as :func:`engine.metrics.summarize` takes it."""
    completion = jobs["completion_s"].to_numpy(dtype=float)
    done = completion[~np.isnan(completion)]
    start_s = float(jobs["arrival_s"].min()) if len(jobs) else 0.0
    return start_s, float(done.max()) if done.size else start_s, float(done.size)


def with_power(
    simulation: SimulationResult, cluster: ClusterSpec, spec: PowerSpec
) -> SimulationResult:
    """``simulation`` with the power KPIs (:func:`power_kpis` over :func:`run_span`) added to
    its summary."""
    series = power_series(simulation.utilization, cluster, spec)
    kpis = power_kpis(series, *run_span(simulation.jobs), spec)
    return dataclasses.replace(simulation, summary={**simulation.summary, **kpis})

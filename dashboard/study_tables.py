"""Named scenarios -> a Study, and a study's results -> the tables the study pages show.

Pure functions (no Streamlit). Each metric has one fixed display unit on these pages
(:data:`STUDY_METRICS`): JCTs in hours, queueing in minutes, makespan in days, money in USD.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from engine.config import ScenarioConfig
from engine.study import Study, StudyResult, Variant


@dataclass(frozen=True)
class Metric:
    """A summary KPI as shown: ``value / per_unit`` in ``unit``; ``lower_is_better``."""

    key: str
    label: str
    unit: str
    per_unit: float
    lower_is_better: bool = True

    @property
    def title(self) -> str:
        return f"{self.label} ({self.unit})"


STUDY_METRICS = {
    m.key: m
    for m in (
        Metric("jct_mean_s", "Mean JCT", "h", 3600.0),
        Metric("jct_p95_s", "p95 JCT", "h", 3600.0),
        Metric("queueing_delay_mean_s", "Mean queueing delay", "min", 60.0),
        Metric("makespan_s", "Makespan", "d", 86400.0),
        Metric("utilization_mean", "GPU utilization (makespan average)", "%", 0.01, False),
        Metric("cost_per_job_usd", "Work cost per completed job", "USD", 1.0),
        Metric("cluster_cost_usd_per_h", "Cluster cost", "USD/h", 1.0),
        Metric("goodput", "Goodput (useful / allocated GPU-hours)", "%", 0.01, False),
        Metric("gpu_hours_lost_failures", "GPU-hours lost to failures", "GPU-h", 1.0),
    )
}
FAILURE_STUDY_METRICS = ("goodput", "gpu_hours_lost_failures")
"""Metrics only a study with failures on has (:data:`engine.metrics.FAILURE_METRICS`)."""


def scenario_overrides(base: ScenarioConfig, variant: ScenarioConfig) -> dict[str, object]:
    """The top-level fields of ``variant`` that differ from ``base``, as JSON values (the
    overrides of a :class:`Variant`); the seed is left out (a study sets it)."""
    base_dict, variant_dict = base.to_dict(), variant.to_dict()
    return {
        key: value
        for key, value in variant_dict.items()
        if key not in ("seed", "trace_seed") and base_dict.get(key) != value
    }


def study_from_scenarios(
    scenarios: Mapping[str, ScenarioConfig],
    seeds: Sequence[int],
    trace_hash: str = "",
    prices: Mapping[str, float] | None = None,
) -> Study:
    """A study whose base is the first scenario and whose variants are all of them (the first
    with no overrides, so it is the baseline), paired on ``seeds``."""
    names = list(scenarios)
    base = scenarios[names[0]]
    variants = tuple(Variant(n, scenario_overrides(base, scenarios[n])) for n in names)
    return Study(
        base, variants, tuple(seeds), baseline=names[0], prices=dict(prices or {}),
        trace_hash=trace_hash,
    )  # fmt: skip


def differences(base: ScenarioConfig, variant: ScenarioConfig) -> str:
    """What a variant changes, in words: "cluster, network" ("-" for none)."""
    changed = scenario_overrides(base, variant)
    return ", ".join(key.replace("_", " ") for key in changed) or "-"


def describe_scenarios(scenarios: Mapping[str, ScenarioConfig]) -> pd.DataFrame:
    """One row per scenario: name, GPU mix, background load, round length, load, policies,
    and what it changes against the first."""
    base = next(iter(scenarios.values()))
    rows = []
    for name, config in scenarios.items():
        mix = ", ".join(f"{n} {wt}" for wt, n in sorted(config.cluster.capacity().items()))
        rows.append({
            "Scenario": name,
            "GPUs": f"{config.cluster.total_gpus} ({mix})",
            "Background load": config.network.background_load,
            "Round (s)": config.rounds.round_duration_s,
            "Arrival scale": config.load.arrival_scale,
            "Policies": ", ".join(p.display_name for p in config.policies),
            "Changes": differences(base, config) if config is not base else "(baseline)",
        })  # fmt: skip
    return pd.DataFrame(rows)


def _fmt(value: float, sign: bool = False) -> str:
    """Three significant figures or so, thousands separated: 3,793 / 86.3 / 1.11 / -0.42."""
    if value is None or not math.isfinite(value):
        return "n/a"
    digits = 0 if abs(value) >= 100 else 1 if abs(value) >= 10 else 2
    return f"{value:+,.{digits}f}" if sign else f"{value:,.{digits}f}"


def delta_table(result: StudyResult, metrics: Sequence[str]) -> pd.DataFrame:
    """Per (variant, policy): each metric's mean over seeds in its unit with the 95% interval,
    and for every variant but the baseline the paired difference to the baseline (same
    policy, same seeds) with its 95% interval, e.g. "12.41 h" and "-1.20 [-1.90, -0.51]"."""
    table = None
    for key in metrics:
        metric = STUDY_METRICS[key]
        stats = result.stats(key).set_index(["variant", "policy"])
        paired = result.paired(key).set_index(["variant", "policy"])
        scale = metric.per_unit
        column = pd.Series(
            {
                idx: f"{_fmt(row['mean'] / scale)} [{_fmt(row['ci_low'] / scale)}, "
                f"{_fmt(row['ci_high'] / scale)}]"
                for idx, row in stats.iterrows()
            }
        )
        delta = pd.Series(
            {
                idx: f"{_fmt(row['mean_diff'] / scale, sign=True)} "
                f"[{_fmt(row['ci_low'] / scale, sign=True)}, "
                f"{_fmt(row['ci_high'] / scale, sign=True)}]"
                for idx, row in paired.iterrows()
            },
            dtype=object,
        )
        part = pd.DataFrame({metric.title: column, f"Δ {metric.title}": delta})
        table = part if table is None else table.join(part)
    assert table is not None
    table = table.fillna("(baseline)").reset_index()
    return table.rename(columns={"level_0": "variant", "level_1": "policy"})


def split_delta_table(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`delta_table` as two narrower tables, each keyed by variant and policy: the means
    over seeds, and the differences to the baseline ("Δ" columns), which side by side are wider
    than a 1600-pixel window."""
    deltas = [c for c in table.columns if str(c).startswith("Δ ")]
    return table.drop(columns=deltas), table[["variant", "policy", *deltas]]


def paired_frame(result: StudyResult, metric: str) -> pd.DataFrame:
    """The paired differences of ``metric`` in its display unit (columns variant, policy,
    n, mean_diff, ci_low, ci_high, p_value)."""
    scale = STUDY_METRICS[metric].per_unit
    paired = result.paired(metric).copy()
    for column in ("mean_diff", "ci_low", "ci_high"):
        paired[column] = paired[column] / scale
    return paired


def stats_frame(result: StudyResult, metric: str) -> pd.DataFrame:
    """Mean and 95% interval per (variant, policy) in the metric's display unit, with the
    variant's axis values (grid studies) as columns."""
    scale = STUDY_METRICS[metric].per_unit
    stats = result.stats(metric).copy()
    for column in ("mean", "ci_low", "ci_high"):
        stats[column] = stats[column] / scale
    axes = {v.name: dict(v.axes) for v in result.study.all_variants()}
    for path in {p for a in axes.values() for p in a}:
        stats[path] = stats["variant"].map(lambda v, p=path: axes.get(v, {}).get(p))
    return stats

"""Named scenarios -> a Study, and a study's results -> the tables the study pages show.

Pure functions (no Streamlit). Every column of numbers is shown in the one unit its values pick
(`engine.units.column_format`: a class trace's JCTs in minutes, the full Philly trace's
queueing in days), named in its header; in the Compare page's tables of means and differences
the durations of one group (mean and p95 JCT with the makespan) share one unit.
:data:`STUDY_METRICS` lists the metrics the study pages offer; its ``unit`` is the unit the
Planner's target is typed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from engine.config import ScenarioConfig
from engine.metrics import METRICS
from engine.policies.base import display_name
from engine.quota.results import team_metric_parts
from engine.study import Study, StudyResult, Variant
from engine.study.paired import (
    SMALL_DIFFERENCE,
    cells,
    metric_info,
    paired_rows,
    shown_rows,
)
from engine.units import ColumnFormat, column_format, metric_formats


@dataclass(frozen=True)
class Metric:
    """A summary KPI of the study pages; a target typed in ``unit`` is ``value * per_unit`` in
    the metric's own unit (the Planner); ``lower_is_better``."""

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
            "Policies": ", ".join(display_name(p) for p in config.policies),
            "Changes": differences(base, config) if config is not base else "(baseline)",
        })  # fmt: skip
    return pd.DataFrame(rows)


def metric_format(values: Iterable[float], metric: str) -> ColumnFormat:
    """The one format of a column of ``metric`` values (interval bounds included)."""
    return column_format(values, metric_info(metric).unit)


def table_formats(columns: Mapping[str, pd.DataFrame]) -> dict[str, ColumnFormat]:
    """The formats of a table's metric columns (each given by its numbers, bounds included):
    the durations of one `engine.metrics.METRIC_GROUPS` group share a unit
    (`engine.units.metric_formats`); other metrics (costs, teams') pick their own."""
    values = {key: frame.to_numpy().ravel() for key, frame in columns.items()}
    grouped = metric_formats({k: v for k, v in values.items() if k in METRICS})
    return {k: grouped[k] if k in grouped else metric_format(v, k) for k, v in values.items()}


def cell_text(fmt: ColumnFormat, mean: float, low: float, high: float, sign: bool = False) -> str:
    """A mean and interval: "3.84 [3.63, 4.04]"; signed for differences: "-0.04 [-0.21, +0.13]"."""
    return f"{fmt.text(mean, sign)} [{fmt.text(low, sign)}, {fmt.text(high, sign)}]"


def delta_table(result: StudyResult, metrics: Sequence[str]) -> pd.DataFrame:
    """Per scenario (columns "Scenario", "Policy"): each metric's mean over seeds with the 95%
    interval, and for every variant but the baseline the paired difference to the baseline
    (same policy, same seeds) with its 95% interval, e.g. "12.41 [11.2, 13.6]" and "-1.20
    [-1.90, -0.51]"; each column in the unit its values pick, named in the header ("Mean JCT
    (h)", "Δ Mean JCT (min)")."""
    table = None
    stats_of = {key: result.stats(key).set_index(["variant", "policy"]) for key in metrics}
    paired_of = {key: result.paired(key).set_index(["variant", "policy"]) for key in metrics}
    formats = table_formats({k: v[["mean", "ci_low", "ci_high"]] for k, v in stats_of.items()})
    deltas = table_formats({k: v[["mean_diff", "ci_low", "ci_high"]] for k, v in paired_of.items()})
    for key in metrics:
        label = metric_info(key).label
        stats, paired, fmt, dfmt = stats_of[key], paired_of[key], formats[key], deltas[key]
        column = pd.Series(
            {i: cell_text(fmt, r["mean"], r["ci_low"], r["ci_high"]) for i, r in stats.iterrows()}
        )
        delta = pd.Series(
            {i: cell_text(dfmt, r["mean_diff"], r["ci_low"], r["ci_high"], sign=True)
             for i, r in paired.iterrows()},
            dtype=object,
        )  # fmt: skip
        part = pd.DataFrame({fmt.header(label): column, f"Δ {dfmt.header(label)}": delta})
        table = part if table is None else table.join(part)
    assert table is not None
    table = table.fillna("(baseline)").reset_index()
    return table.rename(columns={"level_0": "Scenario", "level_1": "Policy",
                                 "variant": "Scenario", "policy": "Policy"})  # fmt: skip


def split_delta_table(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`delta_table` as two narrower tables, each keyed by variant and policy: the means
    over seeds, and the differences to the baseline ("Δ" columns), which side by side are wider
    than a 1600-pixel window."""
    deltas = [c for c in table.columns if str(c).startswith("Δ ")]
    return table.drop(columns=deltas), table[["Scenario", "Policy", *deltas]]


def paired_frame(result: StudyResult, metric: str) -> tuple[pd.DataFrame, ColumnFormat]:
    """The paired differences of ``metric`` against the baseline variant in the unit they pick
    (columns variant, policy, n, mean_diff, ci_low, ci_high, p_value), and that format."""
    paired = result.paired(metric).copy()
    columns = ["mean_diff", "ci_low", "ci_high"]
    fmt = metric_format(paired[columns].to_numpy().ravel(), metric)
    paired[columns] = paired[columns].map(fmt.value)
    return paired, fmt


def stats_frame(
    result: StudyResult, metric: str, columns: Sequence[str] = ()
) -> tuple[pd.DataFrame, ColumnFormat]:
    """Mean and 95% interval per (variant, policy) in the unit they pick, with the variant's
    axis values (grid studies) as columns; and that format. With ``columns`` (the per-team
    columns of one team metric, :func:`team_columns`) their rows are stacked with a "team"
    column, all in one unit."""
    keys = list(columns) or [metric]
    frames = [result.stats(k).assign(team=(team_metric_parts(k) or ("", ""))[1]) for k in keys]
    stats = pd.concat(frames, ignore_index=True)
    if not columns:
        stats = stats.drop(columns="team")
    values = ["mean", "ci_low", "ci_high"]
    fmt = metric_format(stats[values].to_numpy().ravel(), keys[0])
    stats[values] = stats[values].map(fmt.value)
    axes = {v.name: dict(v.axes) for v in result.study.all_variants()}
    for path in {p for a in axes.values() for p in a}:
        stats[path] = stats["variant"].map(lambda v, p=path: axes.get(v, {}).get(p))
    return stats, fmt


def cell_key(cell: tuple[str, str]) -> str:
    """A (variant, policy) cell as one string (a selectbox option, a link field)."""
    return f"{cell[0]}\t{cell[1]}"


def cell_of(key: str) -> tuple[str, str]:
    """The cell :func:`cell_key` made."""
    variant, _, policy = key.partition("\t")
    return variant, policy


def default_pair(result: StudyResult) -> tuple[str, str] | None:
    """The pair the Compare page opens on, as cell keys (A, B): the baseline's second policy
    against its first ("Tiresias LAS vs FIFO"), else the first policy of the second variant
    against the baseline; None for a study of one cell."""
    all_cells = cells(result)
    base = [c for c in all_cells if c[0] == result.study.baseline_name]
    if len(base) >= 2:
        return cell_key(base[1]), cell_key(base[0])
    others = [c for c in all_cells if c not in base and base and c[1] == base[0][1]]
    if others:
        return cell_key(others[0]), cell_key(base[0])
    return (cell_key(all_cells[1]), cell_key(all_cells[0])) if len(all_cells) >= 2 else None


PAIR_COLUMNS = ["A vs B", "Metric", "A − B", "% of B", "95% interval", "p (Holm)", "Seeds",
                "Reading"]  # fmt: skip
"""The columns of the paired table as the Compare page shows it."""


def verdict_caption(metrics: int) -> str:
    """How the paired table's verdicts are reached, for a table of ``metrics`` metrics."""
    return (
        "A − B: the mean over seeds of A's value minus B's on the same seed, with its 95% "
        "interval; % of B: that difference as a share of B's (the baseline's) mean. A "
        f"difference under {SMALL_DIFFERENCE:.0%} of B's value is called small whatever its "
        f"p-value [our threshold]. p (Holm): Student's paired t-test, adjusted by Holm's method "
        f'for the {metrics} metrics tested at once; a verdict says "beyond seed noise" only '
        "when it is below 0.05."
    )


def pair_table(result: StudyResult, a: str, b: str, metrics: Sequence[str]) -> pd.DataFrame:
    """Cells ``a`` against ``b`` (cell keys) on the same seeds, one row per metric, as
    `engine.study.paired.shown_rows` writes them (the rows of the CLI's ``paired.csv``)."""
    raw = paired_rows(result, [(cell_of(a), cell_of(b))], metrics)
    return shown_rows(result, raw)


def runs_table(result: StudyResult, metrics: Sequence[str]) -> pd.DataFrame:
    """Every run (variant, policy, seed) with the given metrics, each column in the unit its
    values pick and named in words ("Mean JCT (h)")."""
    runs = result.runs
    out = runs[["variant", "policy", "seed"]].rename(
        columns={"variant": "Scenario", "policy": "Policy", "seed": "Seed"}
    )
    for key in metrics:
        if key in runs.columns:
            fmt = metric_format(runs[key], key)
            out[fmt.header(metric_info(key).label)] = runs[key].map(fmt.rounded)
    return out


TEAM_STUDY_METRICS = ("queueing_mean_s", "queueing_p95_s")
"""Per-team KPIs the Compare page pairs (:data:`engine.quota.results.TEAM_METRICS`)."""


def team_columns(runs: pd.DataFrame, metrics: Sequence[str] = TEAM_STUDY_METRICS) -> list[str]:
    """The runs' per-team KPI columns of ``metrics`` (keys of
    :data:`engine.quota.results.TEAM_METRICS`), by team then metric."""
    found = [
        (parts[1], list(metrics).index(parts[0]), str(c))
        for c in runs.columns
        if (parts := team_metric_parts(str(c))) and parts[0] in metrics
    ]
    return [column for _, _, column in sorted(found)]

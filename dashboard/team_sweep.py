"""A Sweep's answer per team (runs under queues, ``engine.quota``): each team's KPI at every
point, and every point paired with the axis' first value per team on the same seeds.

"What does a borrowing cap of N GPUs cost each team" is a sweep over
``queues.*.borrowing_limit_gpus`` (``dashboard.sweep_axes``) read here: a chart per team, and
per team and cap the paired difference to the first value typed (e.g. unlimited) with the
Compare page's statistics and words (`engine.study.paired`). Pure functions (no Streamlit).
"""

from __future__ import annotations

import pandas as pd

from dashboard.study_tables import team_columns
from dashboard.sweep_axes import shown_axis_value
from engine.quota.results import TEAM_METRICS, team_metric_parts
from engine.study import StudyResult
from engine.study.paired import Cell, cells, paired_rows, shown_rows

TEAM_PREFIX = "team:"
"""A Sweep metric ``team:<TEAM_METRICS key>``: that KPI of every team."""
TEAM_PAIR_COLUMNS = ["Team", "Point", "Policy", "A − B", "95% interval", "p", "Seeds", "Reading"]


def team_metric_options(runs: pd.DataFrame) -> dict[str, str]:
    """``team:<metric>`` -> "Each team: mean queueing delay" for the per-team KPIs the runs
    hold (none for runs without queues)."""
    found = {parts[0] for c in runs.columns if (parts := team_metric_parts(str(c)))}
    return {f"{TEAM_PREFIX}{m}": f"Each team: {label}"
            for m, (label, _, _) in TEAM_METRICS.items() if m in found}  # fmt: skip


def metric_columns(runs: pd.DataFrame, option: str) -> list[str]:
    """The runs' columns of a ``team:<metric>`` option, one per team (by team name)."""
    return team_columns(runs, (option.removeprefix(TEAM_PREFIX),))


def baseline_pairs(result: StudyResult, axis: str) -> list[tuple[Cell, Cell]]:
    """Every cell whose ``axis`` value is not the axis' first, with the cell of the same policy
    and other axis values at the first value (A = the point, B = the first value)."""
    variants = result.study.all_variants()
    first = dict(variants[0].axes).get(axis)
    base_of = {}
    for v in variants:
        others = {p: x for p, x in v.axes.items() if p != axis}
        base = next(b for b in variants if b.axes == {**others, axis: first})
        base_of[v.name] = base.name
    return [((v, p), (base_of[v], p)) for v, p in cells(result) if base_of.get(v, v) != v]


def team_pair_table(result: StudyResult, axis: str, option: str) -> pd.DataFrame:
    """Per team, point and policy: the point's KPI minus the first value's on the same seeds,
    as the Compare page words it (:data:`TEAM_PAIR_COLUMNS`, then ``shown_rows``' columns);
    each team's rows in one unit. A point reads "8 vs unlimited" (a second axis' value
    follows: "8 vs unlimited, arrival_scale=2")."""
    raw = paired_rows(result, baseline_pairs(result, axis), metric_columns(result.runs, option))
    if raw.empty:
        return pd.DataFrame(columns=TEAM_PAIR_COLUMNS)
    raw = raw.sort_values("metric", kind="stable").reset_index(drop=True)
    axes = {v.name: dict(v.axes) for v in result.study.all_variants()}

    def point(a: str, b: str) -> str:
        others = [f"{p.rsplit('.', 1)[-1]}={x}" for p, x in axes[a].items() if p != axis]
        shown = (shown_axis_value(axes[v].get(axis)) for v in (a, b))
        return ", ".join([" vs ".join(map(str, shown)), *others])

    shown = shown_rows(result, raw)
    # the reading names the point by its value ("8: worse ..."), not the variant's name
    values = [str(shown_axis_value(axes[a].get(axis))) for a in raw["a_variant"]]
    readings = [
        str(reading).replace(f"{variant} ", f"{value}: ", 1)
        for reading, variant, value in zip(shown["Reading"], raw["a_variant"], values, strict=True)
    ]
    return shown.assign(
        Team=[(team_metric_parts(k) or ("", k))[1] for k in raw["metric"]],
        Point=[point(a, b) for a, b in zip(raw["a_variant"], raw["b_variant"], strict=True)],
        Policy=raw["a_policy"].to_numpy(),
        Reading=readings,
    )

"""Paired comparisons of a study's cells: "is LAS better than FIFO here, or is that seed noise?"

A cell is one (variant, policy) of a :class:`~engine.study.result.StudyResult`. Every cell of a
study runs on the same seeds, and seed s draws the same trace (job types, arrivals, load) for
every cell (`engine.study.study.expand`), so two cells pair seed by seed: two policies of one
scenario, or one policy in two variants. :func:`paired_rows` gives one row per (pair, metric)
with the mean difference A - B, its 95% interval and p-value (`engine.study.stats.paired_test`)
and a reading in words; :func:`shown_rows` writes it as the table the Compare page and the
CLI's ``paired.csv`` share, each metric in the unit its rows' magnitude picks
(`engine.units.column_format`): "Tiresias LAS vs FIFO, mean JCT: -0.04 h [-0.21, 0.13],
p = 0.6, not distinguishable from seed noise".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from engine.metrics import METRICS, Metric
from engine.quota.results import TEAM_METRICS, team_metric_parts
from engine.study.cost import COST_METRICS
from engine.study.result import StudyResult
from engine.study.stats import FIRM_SEEDS, few_seeds_note, paired_test
from engine.units import column_format

Cell = tuple[str, str]
"""(variant, policy display name)."""

RAW_COLUMNS = [
    "a_variant", "a_policy", "b_variant", "b_policy", "metric", "n", "mean_diff", "ci_low",
    "ci_high", "p_value",
]  # fmt: skip


def metric_info(key: str) -> Metric:
    """Label, unit and direction of a study metric (a simulation KPI or a cost KPI).

    Raises:
        KeyError: for an unknown metric.
    """
    if key in METRICS:
        return METRICS[key]
    team = team_metric_parts(key)  # a team's KPI under queues (engine.quota.results)
    if team is not None:
        return Metric(f"{team[1]}: {TEAM_METRICS[team[0]][0]}", "s", True)
    return COST_METRICS[key]


def cells(result: StudyResult) -> list[Cell]:
    """Every (variant, policy) of the study, in study order."""
    runs = result.runs
    order = {name: i for i, name in enumerate(result.variants())}
    found = list(dict.fromkeys(zip(runs["variant"], runs["policy"], strict=True)))
    return sorted(found, key=lambda cell: order.get(cell[0], len(order)))


def pair_names(a: Cell, b: Cell, one_variant: bool) -> tuple[str, str, str]:
    """(comparison, name of A, name of B) in words: "Tiresias LAS vs FIFO" in a one-variant
    study; "Tiresias LAS vs FIFO in more V100s" for two policies of a variant; "more V100s vs
    base, FIFO" for one policy in two variants; else "Tiresias LAS in X vs FIFO in Y"."""
    if one_variant:
        return f"{a[1]} vs {b[1]}", a[1], b[1]
    if a[0] == b[0]:
        return f"{a[1]} vs {b[1]} in {a[0]}", a[1], b[1]
    if a[1] == b[1]:
        return f"{a[0]} vs {b[0]}, {a[1]}", a[0], b[0]
    a_name, b_name = f"{a[1]} in {a[0]}", f"{b[1]} in {b[0]}"
    return f"{a_name} vs {b_name}", a_name, b_name


def default_pairs(result: StudyResult) -> list[tuple[Cell, Cell]]:
    """The pairs the CLI writes: in each variant, every policy against the variant's first
    policy; then every policy of every other variant against itself in the baseline."""
    all_cells = cells(result)
    pairs = []
    for variant in result.variants():
        mine = [c for c in all_cells if c[0] == variant]
        pairs += [(c, mine[0]) for c in mine[1:]]
    baseline = result.study.baseline_name
    for cell in all_cells:
        if cell[0] != baseline and (baseline, cell[1]) in all_cells:
            pairs.append((cell, (baseline, cell[1])))
    return pairs


def paired_rows(
    result: StudyResult, pairs: Sequence[tuple[Cell, Cell]], metrics: Sequence[str]
) -> pd.DataFrame:
    """One row per (pair, metric), pair-major: :data:`RAW_COLUMNS`, the difference A - B in the
    metric's own unit (seconds, USD, fraction), paired by seed."""
    runs = result.runs
    by_cell = {
        (str(v), str(p)): g.set_index("seed")
        for (v, p), g in runs.groupby(["variant", "policy"], sort=False)
    }
    rows = []
    for a, b in pairs:
        a_runs, b_runs = by_cell[a], by_cell[b]
        seeds = sorted(set(a_runs.index) & set(b_runs.index))
        for metric in metrics:
            if metric not in runs.columns:
                continue
            test = paired_test(
                a_runs.loc[seeds, metric].to_numpy(float), b_runs.loc[seeds, metric].to_numpy(float)
            )
            rows.append({"a_variant": a[0], "a_policy": a[1], "b_variant": b[0],
                         "b_policy": b[1], "metric": metric, **test})  # fmt: skip
    frame = pd.DataFrame(rows, columns=RAW_COLUMNS)
    return frame.astype({"n": int})


def reading(row: Mapping[str, Any], a_name: str) -> str:
    """The row's verdict in words: "not distinguishable from seed noise", "Tiresias LAS better
    beyond seed noise", ...; with fewer than :data:`engine.study.stats.FIRM_SEEDS` seeds,
    "(weak: 3 seeds)" follows."""
    n, low, high = int(row["n"]), float(row["ci_low"]), float(row["ci_high"])
    if n < 2 or not (math.isfinite(low) and math.isfinite(high)):
        return f"cannot tell from {n} seed{'' if n == 1 else 's'}"
    if low == high == 0:
        words = "identical on every seed"
    elif low <= 0 <= high:
        words = "not distinguishable from seed noise"
    else:
        lower_is_better = metric_info(str(row["metric"])).lower_is_better
        better = (float(row["mean_diff"]) < 0) == lower_is_better
        words = f"{a_name} {'better' if better else 'worse'} beyond seed noise"
    return words + (f" (weak: {n} seeds)" if n < FIRM_SEEDS else "")


def p_text(p: float) -> str:
    """A p-value as read: "0.6", "0.048", "< 0.001"; "n/a" for NaN."""
    if not math.isfinite(p):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.2g}"


def p_phrase(p: float) -> str:
    """The p-value in a sentence: "p = 0.6", "p < 0.001"."""
    text = p_text(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def shown_rows(result: StudyResult, raw: pd.DataFrame) -> pd.DataFrame:
    """:func:`paired_rows` as people read it: columns "A vs B", "Metric", "A − B", "95%
    interval", "p", "Seeds", "Reading", "Sentence", then the numbers in the shown unit
    ("unit", "mean_diff", "ci_low", "ci_high", "p_value") and the note on few seeds. Each
    metric's rows share one unit, picked from their differences and bounds."""
    out = []
    one_variant = len(result.variants()) == 1
    formats = {
        str(metric): column_format(pd.concat([g["mean_diff"], g["ci_low"], g["ci_high"]]),
                                   metric_info(str(metric)).unit)
        for metric, g in raw.groupby("metric", sort=False)
    }  # fmt: skip
    records: list[dict[str, Any]] = raw.to_dict("records")  # type: ignore[assignment]
    for row in records:
        fmt, info = formats[str(row["metric"])], metric_info(str(row["metric"]))
        pair, a, _ = pair_names(
            (row["a_variant"], row["a_policy"]), (row["b_variant"], row["b_policy"]), one_variant
        )
        diff = fmt.text(row["mean_diff"], sign=True, unit=True)
        interval = f"[{fmt.text(row['ci_low'], sign=True)}, {fmt.text(row['ci_high'], sign=True)}]"
        words = reading(row, a)
        label = info.label[0].lower() + info.label[1:] if info.label[1:2].islower() else info.label
        out.append({
            "A vs B": pair, "Metric": info.label, "A − B": diff,
            "95% interval": interval, "p": p_text(row["p_value"]), "Seeds": int(row["n"]),
            "Reading": words,
            "Sentence": f"{pair}, {label}: {diff} {interval}, {p_phrase(row['p_value'])}, "
                        f"{words}",
            "metric": row["metric"], "unit": fmt.unit,
            **{k: fmt.value(row[k]) for k in ("mean_diff", "ci_low", "ci_high")},
            "p_value": row["p_value"], "note": few_seeds_note(int(row["n"])),
        })  # fmt: skip
    return pd.DataFrame(out)


def every_pair(result: StudyResult, metrics: Sequence[str]) -> pd.DataFrame:
    """The rows of the CLI's ``paired.csv`` (and the Compare page's download): every pair of
    :func:`default_pairs` x metric, as :func:`shown_rows` writes them."""
    return shown_rows(result, paired_rows(result, default_pairs(result), metrics))

"""Paired comparisons of a study's cells: "is LAS better than FIFO here, or is that seed noise?"

A cell is one (variant, policy) of a :class:`~engine.study.result.StudyResult`. Every cell of a
study runs on the same seeds, and seed s draws the same trace (job types, arrivals, load) for
every cell (`engine.study.study.expand`), so two cells pair seed by seed: two policies of one
scenario, or one policy in two variants. :func:`paired_rows` gives one row per (pair, metric)
with the mean difference A - B, its 95% interval and p-value (`engine.study.stats.paired_test`),
B's mean (the baseline's value) and the p-value adjusted by Holm's method over the metrics
tested for that pair (`engine.study.stats.holm`). :func:`reading` gives the verdict in words,
with the difference as a share of B's value: under :data:`SMALL_DIFFERENCE` it is "small"
whatever its p-value, else "beyond seed noise" only when the Holm-adjusted p is below 0.05.
:func:`shown_rows` writes it as the table the Compare page and the CLI's ``paired.csv`` share,
each metric in the unit its rows' magnitude picks (`engine.units.column_format`): "Tiresias
LAS vs FIFO, mean JCT: -0.9 h [-2.1, +0.3], p = 0.1 (Holm 0.4), -12% of FIFO's value, not
distinguishable from seed noise".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from engine.metrics import METRICS, Metric
from engine.quota.results import TEAM_METRICS, team_metric_parts
from engine.study.cost import COST_METRICS
from engine.study.result import StudyResult
from engine.study.stats import ALPHA, FIRM_SEEDS, few_seeds_note, holm, paired_test
from engine.units import column_format

Cell = tuple[str, str]
"""(variant, policy display name)."""

RAW_COLUMNS = [
    "a_variant", "a_policy", "b_variant", "b_policy", "metric", "n", "mean_diff", "ci_low",
    "ci_high", "p_value", "b_mean", "p_holm",
]  # fmt: skip
SMALL_DIFFERENCE = 0.05
"""[R] A difference under 5% of the baseline's (B's) value is called "small" whatever its
p-value: with enough seeds a 1.5-minute gain in a mean queueing delay of hours is beyond seed
noise, yet no one would choose a policy for it."""


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
        family: list[dict[str, Any]] = []
        for metric in [m for m in metrics if m in runs.columns]:
            x = a_runs.loc[seeds, metric].to_numpy(float)
            y = b_runs.loc[seeds, metric].to_numpy(float)
            both = np.isfinite(x) & np.isfinite(y)
            b_mean = float(y[both].mean()) if both.any() else math.nan
            family.append({"a_variant": a[0], "a_policy": a[1], "b_variant": b[0],
                           "b_policy": b[1], "metric": metric, **paired_test(x, y),
                           "b_mean": b_mean})  # fmt: skip
        adjusted = holm([row["p_value"] for row in family])
        rows += [{**row, "p_holm": float(p)} for row, p in zip(family, adjusted, strict=True)]
    frame = pd.DataFrame(rows, columns=RAW_COLUMNS)
    return frame.astype({"n": int})


def relative(row: Mapping[str, Any]) -> float:
    """A - B as a share of B's mean value (-0.12 for 12% less); NaN when B's mean is 0."""
    base = float(row["b_mean"])
    return float(row["mean_diff"]) / abs(base) if base and math.isfinite(base) else math.nan


def percent_text(share: float) -> str:
    """A share as a signed percentage: "-12%", "+1.5%", "-0.3%"; "n/a" for NaN."""
    if not math.isfinite(share):
        return "n/a"
    return f"{share:+.0%}" if abs(share) >= 0.1 else f"{share:+.1%}"


def reading(row: Mapping[str, Any], a_name: str, b_name: str) -> str:
    """The row's verdict in words, with A - B as a share of B's value: "small: -1.1% of FIFO's
    value" under :data:`SMALL_DIFFERENCE` whatever the p-value; "Tiresias LAS 12% better
    beyond seed noise" when the Holm-adjusted p (``p_holm``) is below 0.05; else "-8.0% of
    FIFO's value, not distinguishable from seed noise"; with fewer than
    :data:`engine.study.stats.FIRM_SEEDS` seeds, "(weak: 3 seeds)" follows."""
    n, low, high = int(row["n"]), float(row["ci_low"]), float(row["ci_high"])
    if n < 2 or not (math.isfinite(low) and math.isfinite(high)):
        return f"cannot tell from {n} seed{'' if n == 1 else 's'}"
    share = relative(row)
    of_b = f"{percent_text(share)} of {b_name}'s value"
    if low == high == 0:
        words = "identical on every seed"
    elif math.isfinite(share) and abs(share) < SMALL_DIFFERENCE:
        words = f"small: {of_b}"
    elif not float(row["p_holm"]) < ALPHA:
        words = f"{of_b}, not distinguishable from seed noise"
    else:
        lower_is_better = metric_info(str(row["metric"])).lower_is_better
        better = (float(row["mean_diff"]) < 0) == lower_is_better
        size = percent_text(abs(share)).lstrip("+") if math.isfinite(share) else ""
        words = f"{a_name} {size} {'better' if better else 'worse'} beyond seed noise"
        words = words.replace("  ", " ")
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
    """:func:`paired_rows` as people read it: columns "A vs B", "Metric", "A − B", "% of B",
    "95% interval", "p", "p (Holm)", "Seeds", "Reading", "Sentence", then the numbers in the
    shown unit ("unit", "mean_diff", "ci_low", "ci_high", "b_mean", "p_value", "p_holm") and
    the note on few seeds. Each
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
        pair, a, b = pair_names(
            (row["a_variant"], row["a_policy"]), (row["b_variant"], row["b_policy"]), one_variant
        )
        diff = fmt.text(row["mean_diff"], sign=True, unit=True)
        interval = f"[{fmt.text(row['ci_low'], sign=True)}, {fmt.text(row['ci_high'], sign=True)}]"
        words = reading(row, a, b)
        label = info.label[0].lower() + info.label[1:] if info.label[1:2].islower() else info.label
        holm_p = f"{p_phrase(row['p_value'])} (Holm {p_text(row['p_holm'])})"
        out.append({
            "A vs B": pair, "Metric": info.label, "A − B": diff,
            "% of B": percent_text(relative(row)), "95% interval": interval,
            "p": p_text(row["p_value"]), "p (Holm)": p_text(row["p_holm"]),
            "Seeds": int(row["n"]), "Reading": words,
            "Sentence": f"{pair}, {label}: {diff} {interval}, {holm_p}, {words}",
            "metric": row["metric"], "unit": fmt.unit,
            **{k: fmt.value(row[k]) for k in ("mean_diff", "ci_low", "ci_high", "b_mean")},
            "p_value": row["p_value"], "p_holm": row["p_holm"],
            "note": few_seeds_note(int(row["n"])),
        })  # fmt: skip
    return pd.DataFrame(out)


def every_pair(result: StudyResult, metrics: Sequence[str]) -> pd.DataFrame:
    """The rows of the CLI's ``paired.csv`` (and the Compare page's download): every pair of
    :func:`default_pairs` x metric, as :func:`shown_rows` writes them."""
    return shown_rows(result, paired_rows(result, default_pairs(result), metrics))

"""Display units: one unit per column of numbers, picked from the column's magnitude [R].

A duration column (metric unit ``"s"``) is shown in the largest of s, min, h, d that its
largest absolute value reaches twice (three times for days): 90 s stay seconds, 5 minutes read
"5.0 min", 5 hours "5.00 h", 40 days "40.0 d". So a 30-job class trace shows its JCTs in
minutes, not "0.1 h", and the full Philly trace's queueing in days, not "38,397.8 min". Every
row of the column shares that unit, which the header names. Shares (``"fraction"``) read in
percent. Decimals: enough for three significant digits of the largest value and two of the
smallest non-zero one, at most 2 (counts none): worst finish-time fairness 1.4 beside 369 reads
"1.4" and "369.0", not "1" and "369".

A table group (`engine.metrics.METRIC_GROUPS`: mean, median, p95 and p99 JCT with the
makespan; the queueing delays) shows all its durations in one unit, so a row reads along
(:func:`metric_formats`, :func:`group_formats`): the unit of the group's typical magnitude, the
geometric mean of every non-zero value of every column and every policy shown [R: the median
of a trace's JCTs lasts minutes and its p99 days; the largest value would show the median as
"0.02 d", the smallest the p99 as "10,000 min"; their geometric mean reads both within about
three digits]. The unit stays stable between runs of the same trace: it depends on the values
alone (a run is deterministic), on all the policies shown together rather than on one column's
extreme, and a geometric mean moves little when one policy's tail or one metric changes; each
column keeps the decimals its own values need in that unit.

Every table that shows a metric (the dashboard's tables and charts, the CLI's summaries, the
HTML report) asks :func:`metric_formats` (a summary table) or :func:`column_format` (a lone
column); charts with a time axis ask :func:`time_unit`. Two values that print the same are
equal for "best value" shading (:meth:`ColumnFormat.rounded`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from engine.metrics import METRIC_GROUPS, METRICS

K = TypeVar("K", bound=Hashable)

TIME_UNITS: tuple[tuple[str, float, float], ...] = (
    ("s", 1.0, 0.0),
    ("min", 60.0, 120.0),
    ("h", 3600.0, 2 * 3600.0),
    ("d", 86400.0, 3 * 86400.0),
)
"""(unit, seconds per unit, used from this many seconds up) [R: a value reads best between
about 2 and 120 of its unit]."""

SECONDS_PER_UNIT = {unit: per for unit, per, _ in TIME_UNITS}
MAX_DECIMALS = 2
"""[R] A column shows at most 2 decimals: in a column reaching 70 h, 36 s read "0.01"."""


def time_unit(seconds: float) -> tuple[str, float]:
    """The unit a magnitude of ``seconds`` reads best in, as ``(unit, seconds per unit)``.

    Args:
        seconds: a typical magnitude (the largest value of a column or an axis); its sign is
            ignored; NaN or infinity gives seconds.

    Returns:
        ``("h", 3600.0)`` for 5 hours, ``("min", 60.0)`` for 10 minutes, ``("s", 1.0)`` for
        90 s, ``("d", 86400.0)`` for 40 days.
    """
    chosen = TIME_UNITS[0]
    for unit in TIME_UNITS:
        if math.isfinite(seconds) and abs(seconds) >= unit[2]:
            chosen = unit
    return chosen[0], chosen[1]


@dataclass(frozen=True)
class ColumnFormat:
    """How one column is shown: ``value / scale`` with ``decimals`` decimals, in ``unit``.

    Attributes:
        unit: what the header names ("s", "min", "h", "d", "%", "USD", ...; "" for none).
        scale: stored units per shown unit (3600.0 for seconds shown in hours).
        decimals: digits after the point.
    """

    unit: str
    scale: float = 1.0
    decimals: int = 2

    def value(self, raw: float) -> float:
        """``raw`` in the shown unit (not rounded)."""
        return raw / self.scale

    def rounded(self, raw: float) -> float:
        """``raw`` as shown: in the unit, rounded to the shown decimals (NaN stays NaN)."""
        shown = raw / self.scale
        return round(shown, self.decimals) if math.isfinite(shown) else shown

    def text(self, raw: float, sign: bool = False, unit: bool = False) -> str:
        """``raw`` as shown, thousands separated: "3.84", "+0.25" (``sign``), "3.84 h"
        (``unit``); "n/a" for NaN or None."""
        if raw is None or not math.isfinite(raw):
            return "n/a"
        shown = f"{raw / self.scale:{'+' if sign else ''},.{self.decimals}f}"
        if shown.lstrip("+-").strip("0.,") == "":
            shown = shown.lstrip("+-")  # "-0.00" and "+0.00" read "0.00"
        if unit and self.unit:
            return f"{shown}%" if self.unit == "%" else f"{shown} {self.unit}"
        return shown

    def header(self, label: str) -> str:
        """``"Mean JCT (h)"``; the label alone for a column without a unit."""
        return f"{label} ({self.unit})" if self.unit else label


def column_format(
    values: Iterable[float], unit: str = "s", shown_time: tuple[str, float] | None = None
) -> ColumnFormat:
    """The one format of a column of ``values`` given in ``unit``.

    Args:
        values: the column's numbers in ``unit`` (NaN and infinities are ignored); include
            interval bounds shown in the same column.
        unit: the metric's unit (`engine.metrics.METRICS`): "s" for durations, "fraction"
            (shown as %), or any other unit, kept as it is ("ratio" and "count" show none).
        shown_time: for durations, the (unit, seconds per unit) of the column's table group
            (:func:`group_formats`); None picks it from this column alone.

    Returns:
        The :class:`ColumnFormat`: for durations ``shown_time`` or the unit of
        :func:`time_unit` at the largest absolute value; decimals from the largest and
        smallest non-zero absolute values in the shown unit (see the module docstring).
    """
    finite = [_magnitude(v) for v in values if v is not None and math.isfinite(float(v))]
    largest = max(finite, default=0.0)
    if unit == "s":
        shown_unit, scale = shown_time or time_unit(largest)
    elif unit == "fraction":
        shown_unit, scale = "%", 0.01
    else:
        shown_unit, scale = ("" if unit in ("ratio", "count") else unit), 1.0
    if unit == "count":
        return ColumnFormat(shown_unit, scale, 0)
    smallest = min((v for v in finite if v > 0), default=0.0)
    decimals = max(_decimals(largest / scale, 3), _decimals(smallest / scale, 2))
    return ColumnFormat(shown_unit, scale, min(decimals, MAX_DECIMALS))


def _decimals(value: float, significant: int) -> int:
    """Digits after the point that show ``value`` (> 0) with ``significant`` digits."""
    if value <= 0:
        return 0
    return max(0, significant - 1 - math.floor(math.log10(value)))


def _magnitude(value: float) -> float:
    return abs(float(value))


def group_time_unit(values: Iterable[float]) -> tuple[str, float]:
    """The one unit of a group of durations: :func:`time_unit` of the geometric mean of their
    non-zero finite magnitudes (seconds if there is none); see the module docstring.

    Example: JCTs of 0.5 h (median), 5 h (mean), 20 h (p95), 170 h (p99) and a makespan of
    1,000 h have a geometric mean of 24 h: hours, not the days the p99 alone would pick.
    """
    logs = [math.log(m) for v in values if math.isfinite(m := _magnitude(v)) and m > 0]
    return time_unit(math.exp(sum(logs) / len(logs)) if logs else 0.0)


def group_formats(columns: Mapping[K, tuple[Iterable[float], str]]) -> dict[K, ColumnFormat]:
    """The formats of one table group's columns: its durations share one unit.

    Args:
        columns: column key -> (its values, its unit as :func:`column_format` takes it), every
            policy's values together.

    Returns:
        column key -> :class:`ColumnFormat`; every "s" column in :func:`group_time_unit` of
        all the group's duration values, each with its own decimals.
    """
    listed = {key: ([float(v) for v in values], unit) for key, (values, unit) in columns.items()}
    durations = [v for values, unit in listed.values() if unit == "s" for v in values]
    shown_time = group_time_unit(durations)
    return {key: column_format(values, unit, shown_time) for key, (values, unit) in listed.items()}


def metric_formats(columns: Mapping[str, Iterable[float]]) -> dict[str, ColumnFormat]:
    """The formats of summary metric columns (keys of `engine.metrics.METRICS`, e.g. a KPI
    table's columns), the durations of each `engine.metrics.METRIC_GROUPS` group in one unit.

    Args:
        columns: metric key -> its values over the policies shown; keys that are not metrics
            are left out of the result.

    Returns:
        metric key -> :class:`ColumnFormat`.
    """
    out: dict[str, ColumnFormat] = {}
    for group in METRIC_GROUPS.values():
        present = {m: (columns[m], METRICS[m].unit) for m in group if m in columns}
        out.update(group_formats(present))
    return out

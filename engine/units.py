"""Display units: one unit per column of numbers, picked from the column's magnitude [R].

A duration column (metric unit ``"s"``) is shown in the largest of s, min, h, d that its
largest absolute value reaches twice (three times for days): 90 s stay seconds, 5 minutes read
"5.0 min", 5 hours "5.00 h", 40 days "40.0 d". So a 30-job class trace shows its JCTs in
minutes, not "0.1 h", and the full Philly trace's queueing in days, not "38,397.8 min". Every
row of the column shares that unit, which the header names. Shares (``"fraction"``) read in
percent. Decimals: enough for three significant digits of the largest value and two of the
smallest non-zero one, at most 2 (counts none): worst finish-time fairness 1.4 beside 369 reads
"1.4" and "369.0", not "1" and "369".

Every table that shows a metric (the dashboard's tables and charts, the CLI's summaries, the
HTML report) asks :func:`column_format`; charts with a time axis ask :func:`time_unit`. Two
values that print the same are equal for "best value" shading (:meth:`ColumnFormat.rounded`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

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


def column_format(values: Iterable[float], unit: str = "s") -> ColumnFormat:
    """The one format of a column of ``values`` given in ``unit``.

    Args:
        values: the column's numbers in ``unit`` (NaN and infinities are ignored); include
            interval bounds shown in the same column.
        unit: the metric's unit (`engine.metrics.METRICS`): "s" for durations, "fraction"
            (shown as %), or any other unit, kept as it is ("ratio" and "count" show none).

    Returns:
        The :class:`ColumnFormat`: for durations the unit of :func:`time_unit` at the largest
        absolute value; decimals from the largest and smallest non-zero absolute values in
        the shown unit (see the module docstring).
    """
    finite = [abs(float(v)) for v in values if v is not None and math.isfinite(float(v))]
    largest = max(finite, default=0.0)
    if unit == "s":
        shown_unit, scale = time_unit(largest)
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

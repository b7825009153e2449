"""Humane number formatting for a planning meeting: durations as "42 min" or "1.2 h"."""

from __future__ import annotations

import math

# (unit label, seconds per unit, use this unit from this many seconds up)
TIME_UNITS: tuple[tuple[str, float, float], ...] = (
    ("s", 1.0, 0.0),
    ("min", 60.0, 120.0),
    ("h", 3600.0, 2 * 3600.0),
    ("d", 86400.0, 3 * 86400.0),
)


def time_unit(seconds: float) -> tuple[str, float]:
    """The unit that makes ``seconds`` read best, as ``(label, seconds per unit)``.

    Args:
        seconds: a typical magnitude (e.g. the largest value on an axis).

    Returns:
        ``("h", 3600.0)`` for 5 hours, ``("min", 60.0)`` for 10 minutes, and so on.
    """
    chosen = TIME_UNITS[0]
    for unit in TIME_UNITS:
        if math.isfinite(seconds) and abs(seconds) >= unit[2]:
            chosen = unit
    return chosen[0], chosen[1]


def human_duration(seconds: float) -> str:
    """``5400 -> "1.5 h"``, ``90 -> "90 s"``, NaN -> ``"–"``."""
    if seconds is None or not math.isfinite(seconds):
        return "–"
    label, scale = time_unit(seconds)
    value = seconds / scale
    digits = 0 if abs(value) >= 100 or label == "s" else 1
    return f"{value:,.{digits}f} {label}"


def human_number(value: float, unit: str) -> str:
    """Formats a metric value by its METRICS unit ("s", "fraction", "ratio", "count", "GPU-h",
    "0..1")."""
    if value is None or not math.isfinite(value):
        return "–"
    if unit == "s":
        return human_duration(value)
    if unit == "fraction":
        return f"{value:.1%}"
    if unit in ("count", "GPU-h"):
        return f"{value:,.0f}"
    return f"{value:,.2f}"


def plain_number(value: float) -> str:
    """A tick label without scientific notation: ``0.001 -> "0.001"``, ``1000 -> "1,000"``."""
    if not math.isfinite(value) or value == 0:
        return f"{value:g}"
    digits = max(0, -math.floor(math.log10(abs(value))))
    return f"{value:,.{digits}f}"

"""Humane number formatting for a planning meeting: durations as "42 min" or "1.2 h".

The unit of a duration comes from the engine's one rule (`engine.units.time_unit`; a column of
a table: `engine.units.column_format`), so the dashboard, the CLI and the report agree.
"""

from __future__ import annotations

import math

from engine.units import time_unit

__all__ = ["human_duration", "human_number", "plain_number", "time_unit"]


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

"""The Compare, Sweep and Planner settings: kept across page switches and carried by a link.

Streamlit forgets a widget's value when its page is not drawn. The app calls :func:`restore`
before it runs a study page and :func:`remember` after, so the page's settings live in
``st.session_state["page_settings"][page]`` as plain JSON data; a link carries that mapping
(`dashboard.links`, field ``"study"``) and :func:`apply_link_settings` puts it back in a new
session. ``"ran": true`` marks a page whose study the sender ran, so the link runs it again
when it opens on that page.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

SETTINGS: dict[str, tuple[str, ...]] = {
    "compare": ("compare_seeds", "compare_metric", "compare_pair_a", "compare_pair_b",
                "compare_cdf_policy"),
    "sweep": ("sweep_axis_x", "sweep_axis_y", "sweep_seeds", "sweep_metric", "sweep_policy",
              "sweep_pair_a", "sweep_pair_b"),
    "planner": ("plan_policy", "plan_metric", "plan_seeds", "plan_within_h", "plan_confidence",
                "plan_max_seeds", "plan_max_spares", "plan_candidates", "plan_power_cap_kw",
                "plan_objective", "plan_years", "plan_electricity_usd_per_kwh"),
}  # fmt: skip
"""Page -> the session keys of its settings (a table, such as the Planner's candidates, is
kept as its records)."""
PREFIXES = {"sweep": ("sweep_values.",), "planner": ("plan_target_", "plan_candidates:")}
"""Page -> prefixes of further keys (the values typed per sweep axis)."""
STATE_KEY = "page_settings"
FRAME = "__records__"
SEED_KEYS = ("compare_seeds", "sweep_seeds", "plan_seeds")
SEED_RANGE = (1, 50)
"""The fewest and most seeds a study's seed input takes (the inputs of :data:`SEED_KEYS`:
``dashboard.components.study_controls.render_seed_count``); a link's seed count is held to
it. [R]"""
NUMBER_RANGES: dict[str, tuple[type, float, float]] = {
    "plan_target_start_within_share": (float, 0.01, 100.0),  # a share in %
    "plan_target_": (float, 0.01, 1e12),  # the other targets, in their shown unit (h, min)
    "plan_within_h": (float, 0.0, 1e6),
    "plan_confidence": (int, 50, 99),
    "plan_max_seeds": (int, 2, 50),
    "plan_max_spares": (int, 0, 64),
    "plan_power_cap_kw": (float, 0.0, 1e7),  # 0: no cap
    "plan_years": (float, 0.5, 50.0),
    "plan_electricity_usd_per_kwh": (float, 0.0, 10.0),
}
"""Planner number settings (a key or a key prefix; the first that matches) -> (type, lowest,
highest): the one declaration of each range, which the widget (:func:`widget_range`) and the
link vetting (:func:`check_setting`) both read."""
PLAN_CANDIDATE_COLUMNS = ("worker_type", "price_usd_per_gpu_h", "max_nodes", "gpus_per_node",
                          "max_spares", "purchase_usd_per_gpu")  # fmt: skip
"""The Planner's candidates table; ``max_spares`` and ``purchase_usd_per_gpu`` may be missing
(a link before them)."""
PLAN_OBJECTIVES = {"rental": "Rental price (USD/h)",
                   "ownership": "Total cost of ownership (USD/h)"}  # fmt: skip
"""The Planner's objectives (``plan_objective``) -> their words."""
CANDIDATE_RANGES: dict[str, tuple[float, float]] = {
    "worker_type": (1, 64),  # characters
    "price_usd_per_gpu_h": (0.0, 1000.0),
    "max_nodes": (1, 10_000),
    "gpus_per_node": (1, 64),
    "max_spares": (0, 64),
    "purchase_usd_per_gpu": (0.0, 1e7),
}
"""The Planner's candidates columns -> (lowest, highest) its editor takes (a text's length);
a link's table is held to them. Blank cells are allowed (the page names the row)."""
MAX_TEXT, MAX_ROWS = 1000, 64


def _keys(page: str) -> list[str]:
    s = st.session_state
    found = [k for k in s if str(k).startswith(PREFIXES.get(page, ("\0",)))]
    return [*SETTINGS[page], *sorted(str(k) for k in found)]


def _plain(value: Any) -> Any:
    if isinstance(value, pd.DataFrame):
        return {FRAME: value.astype(object).where(value.notna(), None).to_dict("records")}
    return value


def _live(value: Any) -> Any:
    if isinstance(value, dict) and FRAME in value:
        return pd.DataFrame(value[FRAME])
    return value


def remember(page: str) -> None:
    """Copies the page's settings (those set) into the kept settings, "ran" flag kept."""
    s = st.session_state
    kept = s.setdefault(STATE_KEY, {})
    mine = {k: _plain(s[k]) for k in _keys(page) if k in s}
    kept[page] = {**mine, **({"ran": True} if kept.get(page, {}).get("ran") else {})}


def restore(page: str) -> None:
    """Puts the page's kept settings back into the session where the widgets lost them."""
    s = st.session_state
    for key, value in s.get(STATE_KEY, {}).get(page, {}).items():
        if key != "ran" and key not in s and (key in SETTINGS[page] or _prefixed(page, key)):
            s[key] = _live(value)


def mark_ran(page: str) -> None:
    """Notes that the page's study ran (a link to the page runs it again on opening)."""
    remember(page)
    st.session_state[STATE_KEY][page]["ran"] = True


def _prefixed(page: str, key: str) -> bool:
    return any(key.startswith(p) for p in PREFIXES.get(page, ()))


def link_settings() -> dict[str, Any]:
    """The kept settings of every page, for a link."""
    return dict(st.session_state.get(STATE_KEY) or {})


def check_setting(key: str, value: Any) -> str:
    """Why a link's value for ``key`` cannot be used ("" when it can): seeds are whole numbers
    within :data:`SEED_RANGE` (the seed inputs' range), the Planner's target a positive number,
    its candidates a table of at most 64 rows with the page's columns, anything else a text of
    at most 1,000 characters; so a crafted link never breaks a widget."""
    if key == "ran":
        return "" if isinstance(value, bool) else "expected true or false"
    if key in SEED_KEYS:
        low, high = SEED_RANGE
        ok = isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
        return "" if ok else f"expected a whole number of seeds from {low} to {high}"
    number = _number_range(key)
    if number is not None and value is None and key.startswith("plan_target_"):
        return ""  # blank: no worse than today's (the Planner's default target)
    if number is not None:
        kind, low, high = number
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        ok = ok and low <= value <= high and (kind is float or float(value).is_integer())
        return "" if ok else f"expected a {kind.__name__} from {low:g} to {high:g}"
    if key.startswith("plan_candidates"):
        return _check_table(value)
    if key == "plan_objective":
        return "" if value in PLAN_OBJECTIVES else f"expected one of {', '.join(PLAN_OBJECTIVES)}"
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        return f"expected a text of at most {MAX_TEXT:,} characters"
    return ""


def widget_range(key: str) -> dict[str, Any]:
    """The ``min_value`` and ``max_value`` of the widget of a Planner number setting ``key``,
    from :data:`NUMBER_RANGES` (typed as the setting: an int setting takes int bounds).

    Raises:
        KeyError: for a key no range declares.
    """
    number = _number_range(key)
    if number is None:
        raise KeyError(f"no range declared for {key!r} in page_settings.NUMBER_RANGES")
    kind, low, high = number
    return {"min_value": kind(low), "max_value": kind(high)}


def _number_range(key: str) -> tuple[type, float, float] | None:
    for name, number in NUMBER_RANGES.items():
        if key == name or (name.endswith("_") and key.startswith(name)):
            return number
    return None


def _check_table(value: Any) -> str:
    rows = value.get(FRAME) if isinstance(value, Mapping) else None
    if not isinstance(rows, list) or len(rows) > MAX_ROWS:
        return f"expected a table of at most {MAX_ROWS} rows"
    for i, row in enumerate(rows, start=1):
        if not isinstance(row, Mapping) or not set(PLAN_CANDIDATE_COLUMNS[:4]) <= set(row) <= set(
            PLAN_CANDIDATE_COLUMNS
        ):
            return f"row {i}: expected the columns {', '.join(PLAN_CANDIDATE_COLUMNS)}"
        for column, value in row.items():
            why = _check_cell(column, value)
            if why:
                return f"row {i}, column {column}: {why}"
    return ""


def _check_cell(column: str, value: Any) -> str:
    """Why a candidates cell is refused ("" when it is blank or within
    :data:`CANDIDATE_RANGES`)."""
    low, high = CANDIDATE_RANGES[column]
    if value is None:
        return ""
    if column == "worker_type":
        ok = isinstance(value, str) and low <= len(value) <= high
        return "" if ok else f"expected a text of {low:g} to {high:g} characters"
    ok = isinstance(value, int | float) and not isinstance(value, bool) and low <= value <= high
    whole = column not in ("price_usd_per_gpu_h", "purchase_usd_per_gpu")
    ok = ok and (not whole or float(value).is_integer())
    return "" if ok else f"expected a {'whole ' if whole else ''}number from {low:g} to {high:g}"


def apply_link_settings(settings: Mapping[str, Any]) -> list[str]:
    """A link's settings into a new session: kept, and set now (the pages read them). Fields
    of no page and keys no page owns are ignored; a value :func:`check_setting` refuses is left
    out and named in the returned notes."""
    s = st.session_state
    kept: dict[str, dict[str, Any]] = {}
    notes = []
    for page, values in settings.items():
        if page not in SETTINGS or not isinstance(values, Mapping):
            continue
        kept[page] = {}
        for key, value in values.items():
            if not (key == "ran" or key in SETTINGS[page] or _prefixed(page, str(key))):
                continue
            why = check_setting(str(key), value)
            if why:
                notes.append(f"{page} setting {key!r} left at its default: {why}")
            else:
                number = _number_range(str(key))
                if number is not None and value is not None:  # (None: a blank Planner target)
                    value = number[0](value)
                kept[page][str(key)] = value
    s[STATE_KEY] = kept
    for values in kept.values():
        for key, value in values.items():
            if key != "ran":
                s[key] = _live(value)
    return notes

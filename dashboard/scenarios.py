"""The named scenarios of a session: add, duplicate, switch, rename, delete.

``st.session_state["scenarios"]`` maps a name to a ``ScenarioConfig`` (insertion order is the
order shown; the first is the baseline of a comparison); ``"current_scenario"`` names the one
the Scenario page's widgets edit (:mod:`dashboard.state`). The widgets write every edit into
their scenario, so switching only names another one and lets the widgets show it. Call these
from widget callbacks.
"""

from __future__ import annotations

import streamlit as st

from dashboard.state import current_config, forget_tables
from engine.config import ScenarioConfig
from engine.errors import ConfigError


def scenario_names() -> list[str]:
    """Names of the session's scenarios, baseline first."""
    return list(st.session_state["scenarios"])


def current_name() -> str:
    return str(st.session_state["current_scenario"])


def all_scenarios() -> dict[str, ScenarioConfig]:
    """Every named scenario (the current one as last validly edited)."""
    return dict(st.session_state["scenarios"])


def switch_to(name: str) -> None:
    """Makes ``name`` the current scenario (the widgets show it)."""
    s = st.session_state
    if name not in s["scenarios"] or name == s["current_scenario"]:
        return
    s["current_scenario"] = name
    s["scenario_choice"] = name
    forget_tables()


def check_new_name(name: str) -> str:
    """The stripped name; raises ConfigError if it is empty or taken."""
    name = name.strip()
    if not name:
        raise ConfigError("give the scenario a name")
    if name in st.session_state["scenarios"]:
        raise ConfigError(f"a scenario named {name!r} exists already")
    return name


def add_scenario(name: str, config: ScenarioConfig, switch: bool = True) -> str:
    """Stores ``config`` as a new scenario ``name`` (and makes it current). Raises ConfigError
    for an empty or taken name."""
    name = check_new_name(name)
    st.session_state["scenarios"][name] = config
    if switch:
        switch_to(name)
    return name


def duplicate_current(name: str) -> str:
    """A copy of the current scenario named ``name``, made current. Raises ConfigError (also
    while a table of the current scenario does not read)."""
    return add_scenario(name, current_config())


def rename(old: str, new: str) -> None:
    """Renames a scenario, keeping its place in the order. Raises ConfigError."""
    new = check_new_name(new)
    s = st.session_state
    s["scenarios"] = {(new if k == old else k): v for k, v in s["scenarios"].items()}
    if s["current_scenario"] == old:
        s["current_scenario"] = s["scenario_choice"] = new
    if s.get("result_scenario") == old:
        s["result_scenario"] = new  # the results keep naming their scenario


def delete(name: str) -> None:
    """Removes a scenario (never the last one); the first remaining becomes current if needed."""
    s = st.session_state
    if name not in s["scenarios"] or len(s["scenarios"]) == 1:
        return
    if s["current_scenario"] == name:
        first = next(k for k in s["scenarios"] if k != name)
        switch_to(first)
    del s["scenarios"][name]


def replace_all(scenarios: dict[str, ScenarioConfig], current: str) -> None:
    """Replaces the session's scenarios (a shared link) and shows ``current`` in the widgets."""
    s = st.session_state
    s["scenarios"] = dict(scenarios)
    s["current_scenario"] = s["scenario_choice"] = current
    forget_tables()


def upload_rows() -> int | None:
    """Lines of the session's uploaded trace (an upper bound of its jobs), counted once when it
    arrived (:func:`dashboard.query.set_upload`); None without one."""
    rows = st.session_state.get("upload_rows")
    return None if rows is None else int(rows)

"""Session state: a set of named scenarios; the widgets edit the current one.

The fields the widgets edit are declared in :mod:`dashboard.state_fields`, the session keys
and their defaults in :mod:`dashboard.session_keys`; this module edits the scenarios.

The truth is ``st.session_state["scenarios"]``, an ordered mapping of name -> ``ScenarioConfig``
(see :mod:`dashboard.scenarios`); ``"current_scenario"`` names the one the widgets edit. Data
flows one way:

- a link, a loaded file, a preset or a scenario switch sets a named config
  (:func:`set_current`, :mod:`dashboard.scenarios`);
- every run, a widget is seeded from the field it edits (:func:`bind`), and its ``on_change``
  callback writes the edited value into that field of the current config;
- pages read the config (:func:`current`, :func:`current_config`); nothing converts widgets
  back into a config, and a widget's value dropped by Streamlit loses nothing.

A table edited with ``st.data_editor`` (the GPU mix, congestion, ...) is an editing buffer under
a plain key (:data:`dashboard.state_fields.TABLES`), seeded from the config when absent; an
edit that reads as a valid field is written into the config, one that does not is kept with
its error until it is fixed, and meanwhile :func:`current_config` raises it. A config set from
outside drops the buffers (:func:`forget_tables`). :func:`dashboard.session_keys.init_state`
makes the base scenario once per session and :func:`dashboard.session_keys.keep_widget_state`
stops Streamlit from dropping the page widgets that are not scenario fields (the paper preset,
the Network page's pickers) when another page is shown.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import streamlit as st

from dashboard.session_keys import TABLE_ERRORS
from dashboard.state_fields import FIELDS, QUEUE_TABLES, TABLES
from engine.config import ScenarioConfig
from engine.errors import ConfigError


def current() -> ScenarioConfig:
    """The current scenario (its last valid edit)."""
    s = st.session_state
    return s["scenarios"][s["current_scenario"]]


def current_config() -> ScenarioConfig:
    """The current scenario, once every table being edited reads as a valid field.

    Raises:
        ConfigError: the message of the first table that does not (row and column named).
    """
    config = current()
    errors = dict(st.session_state.get(TABLE_ERRORS) or {})
    if config.trace.synthetic.workload != "llm":
        errors.pop("llm_classes", None)  # its classes are not used
    if config.queues is None:
        for key in QUEUE_TABLES:
            errors.pop(key, None)  # teams are off
    for key in TABLES:
        if key in errors:
            raise ConfigError(errors[key])
    return config


def get_field(config: Any, path: str) -> Any:
    """The value at a dotted attribute path of a (nested) dataclass."""
    for part in path.split("."):
        config = getattr(config, part)
    return config


def with_field(config: Any, path: str, value: Any) -> Any:
    """``config`` with the value at a dotted attribute path replaced (nested dataclasses)."""
    head, _, rest = path.partition(".")
    if rest:
        value = with_field(getattr(config, head), rest, value)
    return dataclasses.replace(config, **{head: value})


def edit(path: str, value: Any) -> None:
    """Writes one edited field into the current scenario (the widget shows it already)."""
    s = st.session_state
    s["scenarios"][s["current_scenario"]] = with_field(current(), path, value)


def set_current(config: ScenarioConfig) -> None:
    """Replaces the current scenario from outside its widgets (a loaded file, a preset, a
    lesson); the widgets then show it."""
    s = st.session_state
    s["scenarios"][s["current_scenario"]] = config
    forget_tables()


def forget_tables() -> None:
    """Drops the table editors' buffers and errors: drawn next, they show the current
    scenario."""
    s = st.session_state
    for key in TABLES:
        s.pop(key, None)
    s[TABLE_ERRORS] = {}
    s["table_version"] = s.get("table_version", 0) + 1


def forget_queue_tables() -> None:
    """Drops the Teams page's table buffers (after one of them changed the queues, the others
    show the queues anew) and mounts every table editor afresh."""
    s = st.session_state
    for key in QUEUE_TABLES:
        s.pop(key, None)
        s.get(TABLE_ERRORS, {}).pop(key, None)
    s["table_version"] = s.get("table_version", 0) + 1


def _on_edit(key: str) -> None:
    field = FIELDS[key]
    edit(field.path, field.read(st.session_state[key]))


def bind(key: str, on_change: Callable[[], None] | None = None) -> dict[str, Any]:
    """The keyword arguments that make a widget edit the field
    :data:`dashboard.state_fields.FIELDS` names: its key, seeded from the current scenario
    (every run: the browser may have redrawn the widget without its value), and the callback
    that writes its edits into the scenario (then ``on_change``, if given). Call it right
    before drawing the widget."""
    field = FIELDS[key]
    st.session_state[key] = field.show(get_field(current(), field.path))

    def changed() -> None:
        _on_edit(key)
        if on_change is not None:
            on_change()

    bounds = {"min_value": field.low, "max_value": field.high}
    return {"key": key, "on_change": changed, **{k: v for k, v in bounds.items() if v is not None}}

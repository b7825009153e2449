"""Scenario overrides by dotted path: ``{"rounds.round_duration_s": 600}`` on a ScenarioConfig.

A path walks the scenario's JSON form (``ScenarioConfig.to_dict``): object keys by name, list
items by index (``"policies.0.params.threshold_s"``). The result is rebuilt with
``ScenarioConfig.from_dict``, so a wrong key or type is a :class:`ConfigError` naming the path.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from engine.config import ScenarioConfig
from engine.errors import ConfigError
from engine.sources import Origin, check_matrix_name, check_trace_source


def apply_overrides(
    config: ScenarioConfig, overrides: Mapping[str, Any], where: str = "variant"
) -> ScenarioConfig:
    """``config`` with each dotted path set to its (JSON-able) value, in the mapping's order.

    Raises:
        ConfigError: for a path that does not exist in the scenario or a value of the wrong
            type, naming ``where`` and the path.
    """
    if not overrides:
        return config
    data = _json_form(config)
    for path, value in overrides.items():
        _set(data, path, copy.deepcopy(value), where)
    try:
        changed = ScenarioConfig.from_dict(data, Origin.LOCAL)
        # the base's files were checked when it was loaded; a variant naming other files is
        # held to the shared rule: an override never names a path or URL (engine.sources)
        if changed.trace.source != config.trace.source:
            check_trace_source(changed.trace.source, Origin.SHARED)
        if changed.throughputs != config.throughputs:
            check_matrix_name(changed.throughputs, Origin.SHARED)
        return changed
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from exc


def get_path(config: ScenarioConfig, path: str) -> Any:
    """The JSON value at a dotted path of ``config`` (for labels and axis columns).

    Raises:
        ConfigError: for a path that does not exist.
    """
    node: Any = _json_form(config)
    for part in path.split("."):
        node = _child(node, part, path, "scenario")
    return node


def _json_form(config: ScenarioConfig) -> dict[str, Any]:
    """The scenario as JSON data (lists, not tuples), a fresh copy."""
    data: dict[str, Any] = json.loads(config.to_json())
    return data


def _set(data: dict[str, Any], path: str, value: Any, where: str) -> None:
    parts = path.split(".")
    if not path or not all(parts):
        raise ConfigError(f"{where}: empty override path {path!r}")
    node: Any = data
    for part in parts[:-1]:
        node = _child(node, part, path, where)
    last = parts[-1]
    if isinstance(node, list):
        node[_index(node, last, path, where)] = value
    elif isinstance(node, dict):
        if last not in node and not _is_free_dict(parts):
            raise ConfigError(f"{where}: {path!r}: no key {last!r}; keys: {sorted(node)}")
        node[last] = value
    else:
        raise ConfigError(f"{where}: {path!r}: {'.'.join(parts[:-1])} is not an object or list")


def _child(node: Any, part: str, path: str, where: str) -> Any:
    if isinstance(node, list):
        return node[_index(node, part, path, where)]
    if isinstance(node, dict) and part in node:
        return node[part]
    keys = sorted(node) if isinstance(node, dict) else []
    raise ConfigError(f"{where}: {path!r}: no key {part!r}; keys: {keys}")


def _index(node: list[Any], part: str, path: str, where: str) -> int:
    if not part.isdigit() or int(part) >= len(node):
        raise ConfigError(f"{where}: {path!r}: {part!r} is not an index below {len(node)}")
    return int(part)


def _is_free_dict(parts: list[str]) -> bool:
    """Policy parameters are a free mapping: a new key there is allowed (validated later)."""
    return len(parts) >= 2 and parts[-2] == "params"

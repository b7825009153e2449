"""The axes a Sweep can vary, read from the current scenario, and their typed values.

An axis is a dotted ScenarioConfig path (``engine.study.overrides``): the load, the round
length, the background load, the nodes of one GPU-mix row, a numeric parameter of one
policy instance, or (failures on) the node MTBF, the checkpoint interval or the spares.
Pure functions (no Streamlit).
"""

from __future__ import annotations

import dataclasses
import math

from engine.config import ScenarioConfig
from engine.errors import ConfigError
from engine.policies import get_policy
from engine.policies.base import display_name
from engine.study.overrides import get_path

MAX_AXIS_VALUES = 40  # values of one axis (a grid is built from them on every rerun)
FIXED_AXES = {
    "load.arrival_scale": "Arrival scale (x load)",
    "rounds.round_duration_s": "Round length (s)",
    "network.background_load": "Background load",
    "rounds.checkpoint_restore_s": "Checkpoint-restore cost (s)",
}


FAILURE_AXES = {
    "failures.node_mtbf_h": "Node MTBF (h; failure rate = 1 / MTBF)",
    "failures.checkpoint_interval_s": "Checkpoint interval (s)",
    "failures.spares_per_type": "Spare nodes per GPU type",
}
"""Axes of a scenario with failures on (:class:`engine.config.FailureConfig`)."""


def sweep_axes(config: ScenarioConfig) -> dict[str, str]:
    """Path -> label of every axis the scenario offers, e.g.
    ``"cluster.node_groups.0.nodes": "Nodes of v100 (rack0)"``,
    ``"policies.1.params.threshold_s": "LAS: threshold s"``; the failure axes when the
    scenario has failures on."""
    axes = dict(FIXED_AXES)
    if config.failures.enabled:
        axes.update(FAILURE_AXES)
    for i, group in enumerate(config.cluster.node_groups):
        axes[f"cluster.node_groups.{i}.nodes"] = f"Nodes of {group.worker_type} ({group.rack})"
    for j, spec in enumerate(config.policies):
        defaults = get_policy(spec.name).Params()
        for field in dataclasses.fields(defaults):
            value = getattr(defaults, field.name)
            if isinstance(value, int | float) and not isinstance(value, bool):
                label = f"{display_name(spec)}: {field.name.replace('_', ' ')}"
                axes[f"policies.{j}.params.{field.name}"] = label
    return axes


def parse_values(config: ScenarioConfig, path: str, text: str) -> list[float | int]:
    """The comma-separated ``text`` as values of the axis' type (whole numbers for an int
    field such as nodes).

    Raises:
        ConfigError: naming the value that is not a finite number, or for no value or more
            than :data:`MAX_AXIS_VALUES` (a typed list is bounded before any grid is built).
    """
    kind = _kind(config, path)
    values: list[float | int] = []
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if len(parts) > MAX_AXIS_VALUES:
        raise ConfigError(f"axis values: {len(parts):,} given; at most {MAX_AXIS_VALUES}")
    for part in parts:
        try:
            number = float(part)
        except ValueError as exc:
            raise ConfigError(f"axis values: {part[:40]!r} is not a number") from exc
        if not math.isfinite(number):
            raise ConfigError(f"axis values: {part[:40]!r} is not a finite number")
        if kind is int and number != int(number):
            raise ConfigError(f"axis values: {part!r} must be a whole number")
        values.append(int(number) if kind is int else number)
    if not values:
        raise ConfigError("axis values: give at least one, e.g. 0.5, 1, 1.5")
    return list(dict.fromkeys(values))


def _kind(config: ScenarioConfig, path: str) -> type:
    if ".params." in path:
        j, name = path.split(".")[1], path.rsplit(".", 1)[-1]
        value = getattr(get_policy(config.policies[int(j)].name).Params(), name)
    else:
        value = get_path(config, path)
    return int if isinstance(value, int) and not isinstance(value, bool) else float

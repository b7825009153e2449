"""The axes a Sweep can vary, read from the current scenario, and their typed values.

An axis is a dotted ScenarioConfig path (``engine.study.overrides``): the load, the round
length, the background load, the nodes of one GPU-mix row, a numeric parameter of one
policy instance, or (failures on) the node MTBF, the checkpoint interval or the spares.
Under queues (``engine.quota``) three quota knobs of every team at once: the borrowing limit
(GPUs per GPU type, or unlimited), ``reclaimWithinCohort`` and the queueing strategy. Such an
axis is one name (``queues.*.<knob>``) that :func:`sweep_grid` writes into every
ClusterQueue's path, so "what does a borrowing cap of N GPUs cost each team" is one sweep.
Pure functions (no Streamlit).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

from engine.config import ScenarioConfig
from engine.errors import ConfigError
from engine.policies import get_policy
from engine.policies.base import display_name
from engine.quota.model import QUEUEING_STRATEGIES, RECLAIM_WITHIN_COHORT
from engine.study import Variant, grid
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

BORROWING_AXIS = "queues.*.borrowing_limit_gpus"
QUOTA_AXES = {
    BORROWING_AXIS: "Borrowing limit of every team (GPUs per GPU type)",
    "queues.*.reclaim_within_cohort": "Reclaim within cohort, every team",
    "queues.*.queueing_strategy": "Queueing strategy, every team",
}
"""Axes of a scenario with queues: one quota knob set on every ClusterQueue."""
UNLIMITED = "unlimited"
"""The borrowing limit's value for none (Kueue: ``borrowingLimit`` left out)."""
QUOTA_WORDS = {
    "queues.*.reclaim_within_cohort": RECLAIM_WITHIN_COHORT,
    "queues.*.queueing_strategy": QUEUEING_STRATEGIES,
}
DEFAULT_QUOTA_VALUES = {
    BORROWING_AXIS: f"{UNLIMITED}, 32, 8",
    "queues.*.reclaim_within_cohort": "Never, LowerPriority, Any",
    "queues.*.queueing_strategy": "BestEffortFIFO, StrictFIFO",
}


def sweep_axes(config: ScenarioConfig) -> dict[str, str]:
    """Path -> label of every axis the scenario offers, e.g.
    ``"cluster.node_groups.0.nodes": "Nodes of v100 (rack0)"``,
    ``"policies.1.params.threshold_s": "LAS: threshold s"``; the failure axes when the
    scenario has failures on, the quota axes when it has queues."""
    axes = dict(FIXED_AXES)
    if config.failures.enabled:
        axes.update(FAILURE_AXES)
    if config.queues is not None and config.queues.cluster_queues:
        axes.update(QUOTA_AXES)
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


def parse_values(config: ScenarioConfig, path: str, text: str) -> list[Any]:
    """The comma-separated ``text`` as values of the axis' type (whole numbers for an int
    field such as nodes; a quota axis' words, or whole GPUs and "unlimited" -> None).

    Raises:
        ConfigError: naming the value that is not a finite number, or for no value or more
            than :data:`MAX_AXIS_VALUES` (a typed list is bounded before any grid is built).
    """
    if path in QUOTA_AXES:
        return _quota_values(path, text)
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


def _quota_values(path: str, text: str) -> list[Any]:
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or len(parts) > MAX_AXIS_VALUES:
        raise ConfigError(f"axis values: give 1 to {MAX_AXIS_VALUES}, e.g. "
                          f"{DEFAULT_QUOTA_VALUES[path]}")  # fmt: skip
    words = QUOTA_WORDS.get(path)
    if words is not None:
        known = {w.lower(): w for w in words}
        for part in parts:
            if part.lower() not in known:
                raise ConfigError(f"axis values: {part[:40]!r} is not one of {', '.join(words)}")
        return list(dict.fromkeys(known[p.lower()] for p in parts))
    out: list[int | None] = []
    for part in parts:
        if part.lower() in (UNLIMITED, "none"):
            out.append(None)
        elif not (part.isascii() and part.isdigit() and len(part) <= 9):
            raise ConfigError(f"axis values: {part[:40]!r} is not a whole number of GPUs "
                              f"(>= 0) or {UNLIMITED!r}")  # fmt: skip
        else:
            out.append(int(part))
    return list(dict.fromkeys(out))


def sweep_grid(config: ScenarioConfig, axes: Mapping[str, Sequence[Any]]) -> tuple[Variant, ...]:
    """:func:`engine.study.grid` over ``axes``, with each quota axis written into every
    ClusterQueue (the borrowing limit into each flavor of every ClusterQueue in a cohort: Kueue
    allows a borrowing limit only there) and named as read ("borrowing_limit_gpus=unlimited").

    Raises:
        ConfigError: as :func:`engine.study.grid` does.
    """
    out = []
    for variant in grid(config, axes):
        overrides: dict[str, Any] = {}
        for path, value in variant.overrides.items():
            overrides.update(_every_queue(config, path, value) if path in QUOTA_AXES
                             else {path: value})  # fmt: skip
        name = variant.name.replace("_gpus=None", f"_gpus={UNLIMITED}")
        out.append(Variant(name, overrides, variant.axes))
    return tuple(out)


def _every_queue(config: ScenarioConfig, path: str, value: Any) -> dict[str, Any]:
    assert config.queues is not None  # a quota axis is offered only under queues
    knob = path.rsplit(".", 1)[-1]
    out: dict[str, Any] = {}
    for i, cq in enumerate(config.queues.cluster_queues):
        where = f"queues.cluster_queues.{i}"
        if knob == "borrowing_limit_gpus" and cq.cohort:
            out.update({f"{where}.flavors.{j}.{knob}": value for j in range(len(cq.flavors))})
        elif knob == "reclaim_within_cohort":
            out[f"{where}.preemption.{knob}"] = value
        elif knob == "queueing_strategy":
            out[f"{where}.{knob}"] = value
    return out


def shown_axis_value(value: Any) -> Any:
    """An axis value as a chart or table shows it: None (no borrowing limit; NaN once in a
    column of numbers) -> "unlimited"."""
    return UNLIMITED if value is None or (isinstance(value, float) and math.isnan(value)) else value

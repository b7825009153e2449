"""Policy instances and their parameters in the current scenario (no widgets drawn here).

Each ``PolicySpec`` of the scenario is one instance: the first of a name is the picked policy,
further ones are copies with their own labels. Each parameter of an instance is edited by a
widget keyed :func:`param_key` (``pp.<label or policy>.<field>``) on the Scenario page
(:mod:`dashboard.components.policy_form`); :func:`with_params` writes an edit into the spec.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from engine.config import PolicySpec
from engine.policies import get_policy

PARAM_PREFIX = "pp."  # widget keys of policy parameters: pp.<label or policy>.<field>
EDITABLE = (bool, int, float, str)


def param_key(instance: str, name: str) -> str:
    """Session key of one parameter's widget; ``instance`` is the policy instance's label, or
    the policy name when it has none."""
    return f"{PARAM_PREFIX}{instance}.{name}"


def instance_name(spec: PolicySpec) -> str:
    """The instance's label, or its policy's name when it has none (its widgets' key part)."""
    return spec.label or spec.name


def param_fields(policy: str) -> list[tuple[dataclasses.Field, Any]]:
    """(field, default value) of each parameter of ``policy``."""
    defaults = get_policy(policy).Params()
    return [(f, getattr(defaults, f.name)) for f in dataclasses.fields(defaults)]


def with_params(spec: PolicySpec, values: Mapping[str, Any]) -> PolicySpec:
    """``spec`` with parameters set from ``values`` (a value equal to the default is dropped,
    an editable one takes its default's type)."""
    defaults = {f.name: default for f, default in param_fields(spec.name)}
    params = dict(spec.params)
    for name, value in values.items():
        default = defaults.get(name)
        if isinstance(default, EDITABLE) and value == default:
            params.pop(name, None)
        else:
            params[name] = type(default)(value) if isinstance(default, EDITABLE) else value
    return dataclasses.replace(spec, params=params)


def picked_policies(specs: tuple[PolicySpec, ...], chosen: list[str]) -> tuple[PolicySpec, ...]:
    """The instances after the picker chose ``chosen`` (registry names, in order): the first
    instance of each (kept, or new with default parameters), then the copies of chosen ones."""
    firsts = {p.name: p for p in reversed(specs)}
    copies = [p for p in specs if firsts[p.name] is not p and p.name in chosen]
    return (*(firsts.get(name, PolicySpec(name)) for name in chosen), *copies)

"""Policy instances and their parameters as session state holds them (no widgets drawn here).

A picked policy is one instance; ``"policy_copies"`` adds further instances with their own
labels. Each parameter of an instance lives under :func:`param_key` (``pp.<label or
policy>.<field>``), the key of its widget on the Scenario page
(:mod:`dashboard.components.policy_form`). :func:`policy_specs` reads them into
``PolicySpec``\\ s; :func:`set_policy_params` writes loaded ones back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import streamlit as st

from engine.config import PolicySpec
from engine.policies import get_policy, list_policies

PARAM_PREFIX = "pp."  # widget keys of policy parameters: pp.<label or policy>.<field>
EDITABLE = (bool, int, float, str)


def param_key(instance: str, name: str) -> str:
    """Session key of one parameter's widget; ``instance`` is the policy instance's label, or
    the policy name when it has none."""
    return f"{PARAM_PREFIX}{instance}.{name}"


def policy_instances(
    policies: list[str], labels: Mapping[str, str], copies: list[dict[str, str]]
) -> list[tuple[str, str]]:
    """(policy name, label) of every instance: each picked policy (labelled as ``labels``
    says, "" otherwise), then the copies of picked policies. Copies of a policy no longer
    picked are left out."""
    firsts = [(name, labels.get(name, "")) for name in policies]
    return firsts + [(c["name"], c["label"]) for c in copies if c["name"] in policies]


def param_fields(policy: str) -> list[tuple[dataclasses.Field, Any]]:
    """(field, default value) of each parameter of ``policy``."""
    defaults = get_policy(policy).Params()
    return [(f, getattr(defaults, f.name)) for f in dataclasses.fields(defaults)]


def policy_specs(
    policies: list[str],
    labels: Mapping[str, str] | None = None,
    copies: list[dict[str, str]] | None = None,
) -> tuple[PolicySpec, ...]:
    """PolicySpecs of every instance (see :func:`policy_instances`), with the parameters
    changed from their defaults and their labels (without one, a result carries the policy's
    display name: :func:`engine.policies.base.display_name`)."""
    specs = []
    for policy, label in policy_instances(policies, labels or {}, copies or []):
        overrides = {}
        for field, default in param_fields(policy):
            value = st.session_state.get(param_key(label or policy, field.name), default)
            if isinstance(default, EDITABLE) and value != default:
                overrides[field.name] = type(default)(value)
        specs.append(PolicySpec(policy, overrides, label))
    return tuple(specs)


def set_policy_params(specs: tuple[PolicySpec, ...]) -> None:
    """Writes the parameters of loaded PolicySpecs into the form widgets (defaults elsewhere)."""
    known = set(list_policies())
    for spec in specs:
        if spec.name not in known:
            continue
        for field, default in param_fields(spec.name):
            st.session_state[param_key(spec.label or spec.name, field.name)] = spec.params.get(
                field.name, default
            )

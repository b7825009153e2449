"""Policy picker and per-policy parameter forms, built from the policy registry alone.

Each policy's ``Params`` dataclass drives its form: a bool field becomes a checkbox, an int or
float a number input, a str a text input (a selectbox when the field's metadata lists
``"choices"``), with ``metadata["help"]`` as the tooltip. A new policy needs no edit here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import streamlit as st

from dashboard.state import PARAM_PREFIX
from engine.config import PolicySpec
from engine.policies import get_policy, list_policies
from engine.policies.base import describe

EDITABLE = (bool, int, float, str)


def param_key(policy: str, name: str) -> str:
    """Session key of one policy parameter's widget."""
    return f"{PARAM_PREFIX}{policy}.{name}"


def _fields(policy: str) -> list[tuple[dataclasses.Field, Any]]:
    """(field, default value) of each parameter of ``policy``."""
    defaults = get_policy(policy).Params()
    return [(f, getattr(defaults, f.name)) for f in dataclasses.fields(defaults)]


def render_policy_picker() -> list[str]:
    """Multiselect of registered policies, with each policy's one-line description as help."""
    names = list_policies()
    help_text = "\n\n".join(f"**{n}**: {describe(get_policy(n))}" for n in names)
    return st.multiselect("Policies to compare", names, key="policies", help=help_text)


def render_policy_params(policy: str) -> None:
    """An expander with one widget per parameter of ``policy``."""
    cls = get_policy(policy)
    with st.expander(f"{policy} parameters", expanded=False):
        st.caption(describe(cls))
        fields = _fields(policy)
        if not fields:
            st.write("This policy has no parameters.")
        for field, default in fields:
            _render_field(policy, field, default)


def _render_field(policy: str, field: dataclasses.Field, default: Any) -> None:
    key = param_key(policy, field.name)
    st.session_state.setdefault(key, default)
    label, help_text = field.name.replace("_", " "), field.metadata.get("help")
    choices = field.metadata.get("choices")
    if isinstance(default, bool):
        st.checkbox(label, key=key, help=help_text)
    elif choices:
        st.selectbox(label, list(choices), key=key, help=help_text)
    elif isinstance(default, int):
        st.number_input(label, step=1, key=key, help=help_text)
    elif isinstance(default, float):
        st.number_input(label, key=key, help=help_text, format="%g")
    elif isinstance(default, str):
        st.text_input(label, key=key, help=help_text)
    else:
        st.text_input(label, value=repr(default), disabled=True, help=help_text)


def policy_specs(
    policies: list[str], labels: Mapping[str, str] | None = None
) -> tuple[PolicySpec, ...]:
    """PolicySpecs of the chosen policies, with the parameters changed from their defaults and
    the display labels a loaded scenario gave them."""
    labels = labels or {}
    specs = []
    for policy in policies:
        overrides = {}
        for field, default in _fields(policy):
            value = st.session_state.get(param_key(policy, field.name), default)
            if isinstance(default, EDITABLE) and value != default:
                overrides[field.name] = type(default)(value)
        specs.append(PolicySpec(policy, overrides, labels.get(policy, "")))
    return tuple(specs)


def set_policy_params(specs: tuple[PolicySpec, ...]) -> None:
    """Writes the parameters of loaded PolicySpecs into the form widgets (defaults elsewhere)."""
    known = set(list_policies())
    for spec in specs:
        if spec.name not in known:
            continue
        for field, default in _fields(spec.name):
            st.session_state[param_key(spec.name, field.name)] = spec.params.get(
                field.name, default
            )

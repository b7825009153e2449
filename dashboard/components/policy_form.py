"""Policy picker and per-policy parameter forms, built from the policy registry alone.

Each policy's ``Params`` dataclass drives its form: a bool field becomes a checkbox, an int or
float a number input, a str a text input (a selectbox when the field's metadata lists
``"choices"``), with ``metadata["help"]`` as the tooltip. A new policy needs no edit here.
The widgets edit the current scenario's policy specs (:mod:`dashboard.policy_params`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pandas as pd
import streamlit as st

from dashboard.policy_params import (
    instance_name,
    param_fields,
    param_key,
    picked_policies,
    with_params,
)
from dashboard.session_keys import POLICY_PICKER
from dashboard.state import current, edit
from engine.config import PolicySpec
from engine.policies import get_policy, list_policies
from engine.policies.base import POLICY_GROUPS, describe, policy_display_name, policy_group


def grouped_policies() -> list[str]:
    """Registry names ordered by picker group (:data:`POLICY_GROUPS`), then display name."""
    return sorted(
        list_policies(),
        key=lambda n: (POLICY_GROUPS.index(policy_group(n)), policy_display_name(n)),
    )


def policy_overview() -> pd.DataFrame:
    """One row per policy: group, display name, registry name, one-line description."""
    names = grouped_policies()
    return pd.DataFrame(
        {
            "Group": [policy_group(n) for n in names],
            "Policy": [policy_display_name(n) for n in names],
            "Registry name": names,
            "What it does": [describe(get_policy(n)) for n in names],
        }
    )


def render_policy_picker() -> list[str]:
    """Multiselect of registered policies by readable name, ordered by group (baselines, Gavel,
    seed papers, network-aware), and a grouped table of one-line descriptions."""
    names = grouped_policies()
    specs = current().policies
    labels = {p.name: p.label for p in reversed(specs)}  # the first instance's label
    st.session_state[POLICY_PICKER] = list(dict.fromkeys(p.name for p in specs))  # see bind
    chosen = st.multiselect(
        "Policies to compare", names, key=POLICY_PICKER, on_change=_on_pick,
        format_func=lambda n: f"{policy_display_name(n)} · {policy_group(n)}",
        help="Ordered by group: baselines, Gavel, seed papers, network-aware. The table below "
        "says what each one does.",
    )  # fmt: skip
    renamed = [f"{policy_display_name(n)} as “{labels[n]}”" for n in chosen if labels.get(n)]
    if renamed:
        st.caption("This scenario names some policies after a paper: " + ", ".join(renamed) + ".")
    with st.expander("What each policy does", expanded=False):
        st.dataframe(policy_overview(), hide_index=True, width="stretch")
    return chosen


def _on_pick() -> None:
    edit("policies", picked_policies(current().policies, st.session_state[POLICY_PICKER]))


def render_policy_params(spec: PolicySpec) -> None:
    """An expander with one widget per parameter of one policy instance, and the controls to
    add another instance of it (or to remove this copy)."""
    policy, label = spec.name, spec.label
    cls = get_policy(policy)
    with st.expander(f"{label or policy_display_name(policy)} parameters", expanded=False):
        st.caption(describe(cls))
        if not cls.honours_placement:
            st.caption(f"Ignores the scenario's placement setting: {cls.placement_note}")
        fields = param_fields(policy)
        if not fields:
            st.write("This policy has no parameters.")
        for field, default in fields:
            _render_field(spec, field, default)
        if fields:
            _render_copy_controls(spec)


def _render_copy_controls(spec: PolicySpec) -> None:
    """'Add a copy' (first instance) or 'Remove this copy' (a copy)."""
    policy, label = spec.name, spec.label
    first = next(p for p in current().policies if p.name == policy)
    if first != spec and label:  # a copy (labels are unique)
        st.button("Remove this copy", key=f"uncopy.{label}", on_click=_remove_copy, args=(label,))
        return
    row = st.container(horizontal=True, vertical_alignment="bottom")
    row.text_input(
        "Label of a copy", value=f"{policy} #2", key=f"copy_label.{policy}",
        help="Compare the same policy with other parameters, e.g. two thresholds.",
    )  # fmt: skip
    row.button("Add a copy", key=f"copy.{policy}", on_click=_add_copy, args=(policy,))


def _add_copy(policy: str) -> None:
    s = st.session_state
    label = str(s.get(f"copy_label.{policy}") or "").strip()
    specs = current().policies
    if not label or label in {instance_name(p) for p in specs} or label in list_policies():
        s["flash"] = ("error", f"Give the copy of {policy} a label not used yet (got {label!r}).")
        return
    first = next(p for p in specs if p.name == policy)  # the copy starts with its parameters
    edit("policies", (*specs, dataclasses.replace(first, params=dict(first.params), label=label)))


def _remove_copy(label: str) -> None:
    edit("policies", tuple(p for p in current().policies if p.label != label or _is_first(p)))


def _is_first(spec: PolicySpec) -> bool:
    return next(p for p in current().policies if p.name == spec.name) == spec


def _on_param(instance: str, name: str) -> None:
    value = st.session_state[param_key(instance, name)]
    edit("policies", tuple(with_params(p, {name: value}) if instance_name(p) == instance else p
                           for p in current().policies))  # fmt: skip


def _render_field(spec: PolicySpec, field: dataclasses.Field, default: Any) -> None:
    instance = instance_name(spec)
    key = param_key(instance, field.name)
    st.session_state[key] = spec.params.get(field.name, default)  # as dashboard.state.bind
    label, help_text = field.name.replace("_", " "), field.metadata.get("help")
    choices = field.metadata.get("choices")
    bound: dict[str, Any] = {"key": key, "on_change": _on_param, "args": (instance, field.name)}
    if isinstance(default, bool):
        st.checkbox(label, help=help_text, **bound)
    elif choices:
        st.selectbox(label, list(choices), help=help_text, **bound)
    elif isinstance(default, int):
        st.number_input(label, step=1, help=help_text, **bound)
    elif isinstance(default, float):
        st.number_input(label, help=help_text, format="%g", **bound)
    elif isinstance(default, str):
        st.text_input(label, help=help_text, **bound)
    else:
        st.text_input(label, value=repr(default), disabled=True, help=help_text)

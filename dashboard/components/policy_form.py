"""Policy picker and per-policy parameter forms, built from the policy registry alone.

Each policy's ``Params`` dataclass drives its form: a bool field becomes a checkbox, an int or
float a number input, a str a text input (a selectbox when the field's metadata lists
``"choices"``), with ``metadata["help"]`` as the tooltip. A new policy needs no edit here.
Where the values live: :mod:`dashboard.policy_params`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pandas as pd
import streamlit as st

from dashboard.policy_params import param_fields, param_key, policy_instances
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
    labels = st.session_state.get("policy_labels") or {}
    chosen = st.multiselect(
        "Policies to compare", names, key="policies",
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


def render_policy_params(policy: str, label: str = "") -> None:
    """An expander with one widget per parameter of one instance of ``policy``, and the
    controls to add another instance of it (or to remove this copy)."""
    cls = get_policy(policy)
    instance = label or policy  # the widgets' key
    with st.expander(f"{label or policy_display_name(policy)} parameters", expanded=False):
        st.caption(describe(cls))
        if not cls.honours_placement:
            st.caption(f"Ignores the scenario's placement setting: {cls.placement_note}")
        fields = param_fields(policy)
        if not fields:
            st.write("This policy has no parameters.")
        for field, default in fields:
            _render_field(instance, field, default)
        if fields:
            _render_copy_controls(policy, label)


def _render_copy_controls(policy: str, label: str) -> None:
    """'Add a copy' (first instance) or 'Remove this copy' (a copy)."""
    s = st.session_state
    if any(c["label"] == label for c in s["policy_copies"]) and label:
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
    taken = {lab or name for name, lab in policy_instances(
        s["policies"], s["policy_labels"], s["policy_copies"])}  # fmt: skip
    if not label or label in taken or label in list_policies():
        s["flash"] = ("error", f"Give the copy of {policy} a label not used yet (got {label!r}).")
        return
    source = s["policy_labels"].get(policy) or policy
    for field, default in param_fields(policy):
        s[param_key(label, field.name)] = s.get(param_key(source, field.name), default)
    s["policy_copies"] = [*s["policy_copies"], {"name": policy, "label": label}]


def _remove_copy(label: str) -> None:
    s = st.session_state
    s["policy_copies"] = [c for c in s["policy_copies"] if c["label"] != label]


def _render_field(instance: str, field: dataclasses.Field, default: Any) -> None:
    key = param_key(instance, field.name)
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

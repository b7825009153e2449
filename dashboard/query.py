"""Key choices mirrored in the URL, so a link reproduces the what-if; and scenario presets.

URL keys: ``trace`` (sample file name), ``policies`` (comma-separated), ``seed``, ``round``
(round length in seconds) and ``preset``. They are read once, on a session's first load.
"""

from __future__ import annotations

import contextlib
import dataclasses

import streamlit as st

from dashboard.state import rounds_from_state
from engine.config import NetworkConfig, ScenarioConfig
from engine.presets import PRESETS

NO_PRESET = "None"


def apply_preset(name: str) -> None:
    """Applies preset ``name``'s transformation to the round and network widgets."""
    if name not in PRESETS:
        return
    s = st.session_state
    network = NetworkConfig(enabled=bool(s["network_enabled"]))
    changed = PRESETS[name](ScenarioConfig(rounds=rounds_from_state(), network=network))
    for key, value in dataclasses.asdict(changed.rounds).items():
        s[key] = value
    s["network_enabled"] = changed.network.enabled


def on_preset_change() -> None:
    """Callback of the preset selectbox."""
    apply_preset(st.session_state["preset"])


def read_query_params() -> None:
    """Copies valid URL choices into session state (unknown values are ignored)."""
    from engine.policies import list_policies
    from engine.traces import list_samples

    params, s = st.query_params, st.session_state
    if params.get("trace") in list_samples():
        s["source_kind"], s["sample_name"] = "Sample trace", params["trace"]
    if "policies" in params:
        known = list_policies()
        chosen = [p for p in params["policies"].split(",") if p in known]
        s["policies"] = chosen or s["policies"]
    for key, state_key, kind in (("seed", "seed", int), ("round", "round_duration_s", float)):
        with contextlib.suppress(ValueError):
            s[state_key] = kind(params[key]) if key in params else s[state_key]
    if params.get("preset") in PRESETS:
        s["preset"] = params["preset"]
        apply_preset(params["preset"])


def wanted_query_params() -> dict[str, str]:
    """The URL parameters describing the current choices."""
    s = st.session_state
    wanted = {"policies": ",".join(s["policies"]), "seed": str(int(s["seed"]))}
    wanted["round"] = f"{float(s['round_duration_s']):g}"
    if s["source_kind"] == "Sample trace":
        wanted["trace"] = s["sample_name"]
    if s["preset"] != NO_PRESET:
        wanted["preset"] = s["preset"]
    return wanted


def sync_query_params() -> None:
    """Rewrites the URL parameters when the choices changed."""
    wanted = wanted_query_params()
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)

"""The URL: a reproducible link to the session's scenarios, and scenario presets.

The ``scenario`` parameter carries every named scenario, the current one, the uploaded trace's
SHA-256 and the study settings (:mod:`dashboard.links`); it is rewritten whenever they change.
An uploaded trace is kept in the server's trace store under its hash. Opening a link (a
session's first load) restores all of it and asks the pages to run it (``"autorun"``); if the
trace is not in this server's store it says so and asks for the file: never another trace.

Older short links (``trace``, ``policies``, ``seed``, ``round``, ``preset``) are still read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib

import streamlit as st

from dashboard.links import LINK_PARAM, LinkState, decode_link, encode_link
from dashboard.page_settings import apply_link_settings, link_settings
from dashboard.state import SOURCE_KINDS, rounds_from_state
from engine.config import NetworkConfig, PolicySpec, ScenarioConfig
from engine.errors import EngineError
from engine.presets import PRESET_ALIASES, PRESETS

NO_PRESET = "None"


def apply_preset(name: str) -> None:
    """Applies preset ``name``'s transformation (:mod:`engine.presets`) to the round, network
    and placement widgets and to Tiresias LAS's parameters."""
    from dashboard.policy_params import param_key

    name = PRESET_ALIASES.get(name, name)
    if name not in PRESETS:
        return
    s = st.session_state
    network = NetworkConfig(enabled=bool(s["network_enabled"]))
    before = ScenarioConfig(
        rounds=rounds_from_state(), network=network, placement=s["placement"],
        policies=(PolicySpec("las"),),
    )  # fmt: skip
    changed = PRESETS[name](before)
    for key, value in dataclasses.asdict(changed.rounds).items():
        s[key] = value
    s["network_enabled"] = changed.network.enabled
    s["placement"] = changed.placement
    for spec in changed.policies:
        for field_name, value in spec.params.items():
            s[param_key(spec.name, field_name)] = value


def on_preset_change() -> None:
    """Callback of the preset selectbox."""
    apply_preset(st.session_state["preset"])


def trace_store():  # noqa: ANN201 - engine.study.traces.TraceStore, imported lazily
    """The server's trace store (``$GPUSCHED_STORE`` or ``~/.cache/gpusched``)."""
    from engine.study.traces import TraceStore

    return TraceStore()


def read_query_params() -> None:
    """Restores a shared link, or copies valid short URL choices into session state."""
    params = st.query_params
    if LINK_PARAM in params:
        _read_link(params[LINK_PARAM])
        return
    _read_short_params()


def _read_link(text: str) -> None:
    from dashboard.scenarios import replace_all

    s = st.session_state
    try:
        link = decode_link(text)
    except EngineError as exc:
        s["flash"] = ("error", f"This link cannot be opened: {exc}")
        return
    replace_all(dict(link.scenarios), link.current)
    settings = link.study if isinstance(link.study, dict) else {}
    notes = apply_link_settings(settings)
    if notes:
        s["link_notes"] = notes
    preset = PRESET_ALIASES.get(st.query_params.get("preset", ""), st.query_params.get("preset"))
    if preset in PRESETS:
        s["preset"] = preset  # its rules are in the scenario already
    _read_paper_name()
    s["autorun"] = True  # the scenario whose results the sender saw (else the current one)
    s["link_results"] = (link.results_scenario, link.results_config)
    s["link_page"] = link.page
    ran = settings.get(link.page, {})
    s["autorun_study"] = link.page if isinstance(ran, dict) and ran.get("ran") else ""
    if link.trace_sha256:
        _restore_upload(link)


def _restore_upload(link: LinkState) -> None:
    """Puts the link's trace from the store into the session, or asks for the file."""
    s = st.session_state
    s["source_kind"] = SOURCE_KINDS[1]
    s["link_trace"] = link.trace_sha256
    store = trace_store()
    if store.has(link.trace_sha256):
        s["upload"] = store.get(link.trace_sha256)
        return
    name = link.scenarios[link.current].trace.source.removeprefix("upload:")
    s["link_trace_name"] = name
    s["upload"], s["autorun"], s["autorun_study"] = None, False, ""
    s["link_trace_missing"] = (name, link.trace_sha256)


def render_link_notes() -> None:
    """What a link could not restore (once), and, on every page while a link's uploaded trace
    is not here, that it is missing and nothing else runs in its place. Once the right file
    is uploaded, the linked scenario runs."""
    s = st.session_state
    for note in s.pop("link_notes", []):
        st.warning(f"This link's {note}.")
    missing = s.get("link_trace_missing")
    if not missing or s["source_kind"] != SOURCE_KINDS[1]:
        return
    name, digest = missing
    upload = s.get("upload")
    if upload is not None and hashlib.sha256(upload[1]).hexdigest() == digest:
        del s["link_trace_missing"]
        s["autorun"] = True
        return
    if upload is None:
        st.error(
            f"This link's trace **{name}** (SHA-256 {digest[:12]}…) is not on this server, so "
            "the link's results cannot be shown. Upload that file on the Scenario page (tab "
            "1 · Jobs) to reproduce the link; nothing else is simulated in its place."
        )
    else:
        st.error(
            f"The uploaded file **{upload[0]}** is not this link's trace **{name}** (its "
            f"SHA-256 differs from {digest[:12]}…): results shown are not the link's."
        )


def _read_paper_name() -> None:
    from engine.papers import list_paper_presets

    if st.query_params.get("paper") in list_paper_presets():
        st.session_state["paper_preset"] = st.query_params["paper"]


def _read_short_params() -> None:
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
    preset = PRESET_ALIASES.get(params.get("preset", ""), params.get("preset"))
    if preset in PRESETS:
        s["preset"] = preset
        apply_preset(preset)


def upload_sha256() -> str:
    """SHA-256 of the session's uploaded trace, stored in the trace store ("" without one)."""
    s = st.session_state
    upload = s.get("upload")
    if upload is None or s["source_kind"] != SOURCE_KINDS[1]:
        return ""
    digest = hashlib.sha256(upload[1]).hexdigest()
    if s.get("_stored_trace") != digest:
        with contextlib.suppress(ImportError, OSError):
            trace_store().put(upload[0], upload[1])
            s["_stored_trace"] = digest
    return digest


def current_link() -> str | None:
    """The ``scenario`` parameter describing the session now (None if a scenario is invalid)."""
    from dashboard.scenarios import all_scenarios, current_name

    s = st.session_state
    try:
        named = all_scenarios()
    except EngineError:
        return None
    ran, ran_config = _results_shown(named)
    state = LinkState(
        named, current_name(), upload_sha256(), link_settings(), s.get("page_name", ""),
        ran, ran_config,
    )  # fmt: skip
    return encode_link(state)


def _results_shown(named: dict[str, ScenarioConfig]) -> tuple[str, ScenarioConfig | None]:
    """The scenario whose results the session shows, and its config as run when it was edited
    since (else None); ("", None) without results or when that scenario is gone."""
    s = st.session_state
    name = s.get("result_scenario") or ""
    if s.get("result") is None or name not in named:
        return "", None
    try:
        ran = ScenarioConfig.from_json(s["result_config"])
    except EngineError:
        return name, None
    return name, None if ran == named[name] else ran


def wanted_query_params() -> dict[str, str]:
    """The URL parameters describing the current choices."""
    s = st.session_state
    link = current_link()
    if link is None:
        return st.query_params.to_dict()
    wanted = {LINK_PARAM: link}
    if s["preset"] != NO_PRESET:
        wanted["preset"] = s["preset"]
    if s.get("paper_preset", NO_PRESET) != NO_PRESET:
        wanted["paper"] = s["paper_preset"]
    return wanted


def sync_query_params() -> None:
    """Rewrites the URL parameters when the choices changed."""
    wanted = wanted_query_params()
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)

"""The URL: a reproducible link to the session's scenarios, and scenario presets.

The ``scenario`` parameter carries every named scenario, the current one, the uploaded trace's
SHA-256 and the study settings (:mod:`dashboard.links`); it is rewritten whenever they change.
An uploaded trace is kept in the server's trace store under its hash. Opening a link (a
session's first load) restores all of it and asks the pages to run it (``"autorun"``) when the
work is small (:mod:`dashboard.components.link_run`); if the trace is not in this server's
store it says so and asks for the file: never another trace.

A link is written by whoever sends it: it is decoded with limits (:func:`dashboard.links.
decode_link`: never a server path or URL) and checked against the server's work budget
(:mod:`engine.budget`) before anything is restored; a link that fails either is answered with
one message on every page, and the reason is logged on the server.

Older short links (``trace``, ``policies``, ``seed``, ``round``, ``preset``) are still read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math

import streamlit as st

from dashboard.links import LINK_PARAM, LinkState, decode_link, encode_link
from dashboard.page_settings import apply_link_settings, link_settings
from dashboard.state import current, set_current, with_field
from dashboard.state_fields import COLUMN_RANGES, FIELDS, SOURCE_KINDS, source_kind
from engine.budget import Budget, check_config, count_rows
from engine.config import NetworkConfig, PolicySpec, ScenarioConfig
from engine.content import sha256_hex
from engine.errors import ConfigError, EngineError
from engine.presets import PRESET_ALIASES, PRESETS

NO_PRESET = "None"
LOG = logging.getLogger("gpusched.dashboard")


def apply_preset(name: str) -> None:
    """Applies preset ``name``'s transformation (:mod:`engine.presets`) to the current
    scenario's rounds, network penalty and placement, and to the unlabelled instances of the
    engine's default policies (:class:`engine.config.ScenarioConfig`'s ``policies``): the
    parameters the preset gives those (Muri's testbed: Tiresias LAS's queue order) [R]."""
    from dashboard.policy_params import with_params

    name = PRESET_ALIASES.get(name, name)
    if name not in PRESETS:
        return
    config = current()
    before = ScenarioConfig(
        rounds=config.rounds, network=NetworkConfig(enabled=config.network.enabled),
        placement=config.placement,
    )  # fmt: skip
    changed = PRESETS[name](before)
    params = {spec.name: spec.params for spec in changed.policies}
    policies = tuple(
        with_params(p, params[p.name]) if p.name in params and not p.label else p
        for p in config.policies
    )
    set_current(dataclasses.replace(
        config, rounds=changed.rounds, placement=changed.placement, policies=policies,
        network=dataclasses.replace(config.network, enabled=changed.network.enabled),
    ))  # fmt: skip


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
    from dashboard.components.link_run import LINK_NOTICE, plan_link_run
    from dashboard.run_queue import server_budget
    from dashboard.scenarios import replace_all

    s = st.session_state
    budget = server_budget()
    try:
        link = decode_link(text)
        upload = _stored_upload(link.trace_sha256)
        rows = trace_store().rows(link.trace_sha256) if upload else None
        check_link(link, budget, rows)
    except EngineError as exc:
        LOG.warning("link refused: %s", exc)
        s[LINK_NOTICE] = ("error", f"This link cannot be opened: {exc}")
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
    ran = link.results_config or link.scenarios[link.results_scenario or link.current]
    s["autorun"] = plan_link_run(ran, rows, budget)
    s["link_results"] = (link.results_scenario, link.results_config)
    s["link_page"] = link.page
    page_settings = settings.get(link.page, {})
    rerun_study = s["autorun"] and isinstance(page_settings, dict) and page_settings.get("ran")
    s["autorun_study"] = link.page if rerun_study else ""  # a study runs only under the budget
    if link.trace_sha256:
        _restore_upload(link, upload)


def check_link(link: LinkState, budget: Budget, upload_rows: int | None) -> None:
    """Checks a link's scenarios before anything is restored: against the work budget (their
    count, and each one's policies, GPUs, round length, table rows and jobs), then that the
    Scenario page's widgets can show them (:func:`check_widget_values`).

    Args:
        upload_rows: lines of the link's stored trace (None when it is not on this server).

    Raises:
        BudgetError: naming the scenario, the limit and the value; ConfigError naming the
            scenario and the field a widget cannot take.
    """
    budget.check("max_scenarios", len(link.scenarios), "the number of scenarios in the link")
    for name, config in link.scenarios.items():
        check_config(config, budget, upload_rows, name)
        check_widget_values(config, name)
    if link.results_config is not None:  # the results the sender saw, as they were run
        check_config(link.results_config, budget, upload_rows, link.results_scenario)


def check_widget_values(config: ScenarioConfig, name: str) -> None:
    """Checks that the Scenario page's widgets can show ``config``: numbers in their widgets'
    ranges (:data:`dashboard.state_fields.FIELDS`) and table columns'
    (:data:`dashboard.state_fields.COLUMN_RANGES`), known trace format, GPU type, placement
    and policies (with their parameters: :func:`engine.validate.validate_config`).

    Raises:
        ConfigError: naming the scenario, the field and what it may be.
    """
    from engine.placement import list_placements
    from engine.scenario import scenario_matrix
    from engine.study.overrides import get_path
    from engine.traces import list_formats
    from engine.validate import validate_config

    where = f"scenario {name[:60]!r}"
    values = [
        (field.path, get_path(config, field.path), (field.low, field.high))
        for field in FIELDS.values()
        if field.low is not None or field.high is not None
    ]
    for (table, column), bounds in COLUMN_RANGES.items():
        rows = get_path(config, table)
        values += [(f"{table}[{i}].{column}", row[column], bounds) for i, row in enumerate(rows)]
    for path, value, (low, high) in values:
        low, high = -math.inf if low is None else low, math.inf if high is None else high
        if value is not None and not low <= value <= high:
            raise ConfigError(
                f"{where}: {path} is {_number(value)}; the dashboard takes {_number(low)} "
                f"to {_number(high)}"
            )
    matrix = scenario_matrix(config)
    options = {
        "trace.format": ["auto", *list_formats()],
        "trace.assumed_worker_type": matrix.worker_types,
        "placement": list_placements(),
    }
    for path, allowed in options.items():
        if get_path(config, path) not in allowed:
            raise ConfigError(f"{where}: {path} must be one of {allowed}")
    try:
        validate_config(config, matrix)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from exc


def _number(value: float) -> str:
    """4294967295 -> "4,294,967,295"; 0.05 -> "0.05"; inf -> "∞"."""
    if math.isinf(value):
        return "∞"
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def _stored_upload(digest: str) -> tuple[str, bytes] | None:
    """The stored trace a link names by hash (None without one, or when not on this server)."""
    if not digest:
        return None
    store = trace_store()
    return store.get(digest) if store.has(digest) else None


def _restore_upload(link: LinkState, upload: tuple[str, bytes] | None) -> None:
    """Puts the link's trace from the store into the session, or asks for the file."""
    s = st.session_state
    s["link_trace"] = link.trace_sha256
    if upload is not None:
        set_upload(upload)
        return
    name = link.scenarios[link.current].trace.source.removeprefix("upload:")
    s["link_trace_name"] = name
    set_upload(None)
    s["autorun"], s["autorun_study"] = False, ""
    s["link_trace_missing"] = (name, link.trace_sha256)


def render_link_notes() -> None:
    """What a link could not restore (once), and, on every page while a link's uploaded trace
    is not here, that it is missing and nothing else runs in its place. Once the right file
    is uploaded, the linked scenario runs."""
    s = st.session_state
    for note in s.pop("link_notes", []):
        st.warning(f"This link's {note}.")
    missing = s.get("link_trace_missing")
    if not missing or source_kind(current().trace) != SOURCE_KINDS[1]:
        return
    name, digest = missing
    upload = s.get("upload")
    if upload is not None and sha256_hex(upload[1]) == digest:
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

    params, s, config = st.query_params, st.session_state, current()
    if params.get("trace") in list_samples():
        config = dataclasses.replace(
            config, trace=dataclasses.replace(config.trace, source=f"sample:{params['trace']}")
        )
    if "policies" in params:
        known = list_policies()
        chosen = [p for p in params["policies"].split(",") if p in known]
        if chosen:
            config = dataclasses.replace(config, policies=tuple(PolicySpec(p) for p in chosen))
    for key, widget, kind in (("seed", "seed", int), ("round", "round_duration_s", float)):
        with contextlib.suppress(ValueError):
            value = kind(params[key][:20]) if key in params else None
            field = FIELDS[widget]
            low, high = field.low or 0, math.inf if field.high is None else field.high
            if value is not None and low <= value <= high:  # else the widget would refuse it
                config = with_field(config, field.path, value)
    if config != current():
        set_current(config)
    preset = PRESET_ALIASES.get(params.get("preset", ""), params.get("preset"))
    if preset in PRESETS:
        s["preset"] = preset
        apply_preset(preset)


def set_upload(upload: tuple[str, bytes] | None) -> None:
    """The session's uploaded trace (file name, bytes), or None: hashed, put in the trace store
    and its lines counted once, when it arrives (an upload, a lesson, a mapped CSV, a link's
    stored trace); every page after carries it by that SHA-256 (:func:`upload_sha256`) and
    the work budget reads its lines (:func:`dashboard.scenarios.upload_rows`) instead of
    counting them again."""
    s = st.session_state
    s["upload"] = upload
    s["upload_sha256"] = "" if upload is None else sha256_hex(upload[1])
    s["upload_rows"] = None if upload is None else _stored_rows(upload)


def _stored_rows(upload: tuple[str, bytes]) -> int:
    """The upload's lines as the trace store counted them when it was stored, or counted here
    when the store cannot be written (a read-only store: runs still work)."""
    try:
        store = trace_store()
        return int(store.rows(store.put(upload[0], upload[1])))
    except OSError:
        return count_rows(upload[1])


def upload_sha256() -> str:
    """SHA-256 of the session's uploaded trace ("" without one, or when the scenario's trace
    is not the upload); it was stored when it arrived (:func:`set_upload`)."""
    s = st.session_state
    if s.get("upload") is None or source_kind(current().trace) != SOURCE_KINDS[1]:
        return ""
    return str(s.get("upload_sha256") or "")


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

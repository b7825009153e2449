"""Session keys, declared once: the page widgets that are not scenario fields, the plain
session values with their defaults, and the keys with no default that modules share; and
:func:`init_state`, which fills them once per session with the base scenario.

With :data:`dashboard.state_fields.FIELDS`, :data:`dashboard.state_fields.TABLES` and
``dashboard.page_settings.SETTINGS`` every shared session key is declared once
(``tests/dashboard/test_seam.py`` reads the code for them).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import streamlit as st

from dashboard.state_fields import DEFAULT_SAMPLE
from engine.config import PolicySpec, ScenarioConfig
from engine.power.model import PowerSpec

DEFAULT_POLICIES = ("fifo", "las", "gavel_maxmin")  # those registered are preselected
BASE_SCENARIO = "base"
POLICY_PICKER = "policies"  # the picker of the scenario's policies (components.policy_form)
TABLE_ERRORS = "table_errors"  # table key -> the message of an edit that does not read

PUE_KEY, GRID_KEY = "power_pue", "power_grid_g_per_kwh"  # the power panel's site inputs
PAGE_WIDGETS: dict[str, Any] = {  # widgets that are not scenario fields, kept across pages
    "preset": "None",
    "paper_preset": "None",
    "log_x": True,
    "network_policy": None,  # Network page: set from the result shown
    "network_time_s": None,
    "scenario_choice": BASE_SCENARIO,  # the scenario picker (mirrors current_scenario)
    PUE_KEY: PowerSpec().pue,  # Results' power panel (components.power_section)
    GRID_KEY: PowerSpec().grid_g_co2e_per_kwh,
}
PLAIN_DEFAULTS: dict[str, Any] = {
    "upload": None,  # (file name, bytes) of the uploaded trace (dashboard.query.set_upload)
    "upload_sha256": "",  # its SHA-256, taken once when it arrived
    "upload_rows": None,  # its lines (a bound of its jobs for the work budget), counted then
    "scenarios": {},  # name -> ScenarioConfig; the current one is edited by the widgets
    "current_scenario": BASE_SCENARIO,
    TABLE_ERRORS: {},
    "column_mapping": None,  # canonical -> file column, once the user mapped an unknown CSV
    "result": None,  # the last ComparisonResult
    "result_config": "",  # config JSON of the last run
    "result_scenario": "",  # the name of the scenario the last run ran
    "cancel_requested": False,
    "flash": None,  # (kind, message) shown once on the Scenario page
}
SESSION_KEYS: dict[str, str] = {  # set by one module, read by another; absent until set
    "page_name": "the page drawn last (dashboard.app), for a link",
    "link_page": "the page a link opens on (dashboard.query; dashboard.app switches to it once)",
    "link_results": "(scenario name, config JSON) whose results a link's sender saw",
    "link_notes": "what a link's settings left at their defaults, shown once",
    "link_trace": "the SHA-256 of the upload a link names",
    "link_trace_name": "the file name of the upload a link names (the trace panel shows it)",
    "link_trace_missing": "(name, SHA-256) of a linked upload this server does not hold",
    "autorun": "True: run the linked scenario on opening (components.link_run)",
    "autorun_study": "the study page ('compare', 'sweep') whose linked study runs on opening",
    "result_paper_preset": "the paper preset of the last run (Results' claims and report)",
    "compare_result": "Compare's last study (components.share_link carries its settings)",
    "sweep_result": "Sweep's last study: (result, x axis, y axis, axis labels, scenario)",
    "plan_result": "the Planner's last plan",
    "replay_t": "Step through's moment (simulated s; a lesson's moment sets it)",
    "replay_playing": "whether Step through is playing (a lesson stops it)",
    "table_version": "bumped to mount every table editor afresh (forget_tables)",
}
"""Session keys with no default that more than one module uses -> what each holds. With
:data:`dashboard.state_fields.FIELDS`, :data:`dashboard.state_fields.TABLES`,
:data:`PAGE_WIDGETS`, :data:`PLAIN_DEFAULTS` and ``dashboard.page_settings.SETTINGS`` every
shared session key is declared once (``tests/dashboard/test_seam.py`` reads the code for
them)."""


def default_scenario() -> ScenarioConfig:
    """A session's first scenario: the sample trace, the default cluster and rules, and the
    default policies that are registered."""
    from engine.policies import list_policies

    known = list_policies()
    names = [p for p in DEFAULT_POLICIES if p in known] or known[:2]
    base = ScenarioConfig()
    return dataclasses.replace(
        base, trace=dataclasses.replace(base.trace, source=f"sample:{DEFAULT_SAMPLE}"),
        policies=tuple(PolicySpec(name) for name in names), seed=0,
    )  # fmt: skip


def init_state() -> bool:
    """Fills missing keys with defaults once per session; True on that first call (the app
    then applies the URL's query parameters: :func:`dashboard.query.read_query_params`)."""
    s = st.session_state
    if s.get("_initialized"):
        return False
    for key, value in {**PAGE_WIDGETS, **PLAIN_DEFAULTS}.items():
        s.setdefault(key, value.copy() if hasattr(value, "copy") else value)
    s["scenarios"].setdefault(s["current_scenario"], default_scenario())
    s["_initialized"] = True
    return True


def keep_widget_state() -> None:
    """Re-assigns the page widgets' keys so they survive a page switch (Streamlit drops
    unrendered ones); the scenario's widgets need not: they are seeded from the scenario."""
    for key in PAGE_WIDGETS:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]

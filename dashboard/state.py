"""Session state: a set of named scenarios; the widgets edit the current one.

The truth is ``st.session_state["scenarios"]``, an ordered mapping of name -> ``ScenarioConfig``
(see :mod:`dashboard.scenarios`); ``"current_scenario"`` names the one the widgets edit. Data
flows one way:

- a link, a loaded file, a preset or a scenario switch sets a named config
  (:func:`set_current`, :mod:`dashboard.scenarios`);
- every run, a widget is seeded from the field it edits (:func:`bind`), and its ``on_change``
  callback writes the edited value into that field of the current config;
- pages read the config (:func:`current`, :func:`current_config`); nothing converts widgets
  back into a config, and a widget's value dropped by Streamlit loses nothing.

A table edited with ``st.data_editor`` (the GPU mix, congestion, ...) is an editing buffer under
a plain key (:data:`TABLES`), seeded from the config when absent; an edit that reads as a valid
field is written into the config, one that does not is kept with its error until it is fixed,
and meanwhile :func:`current_config` raises it. A config set from outside drops the buffers
(:func:`forget_tables`). :func:`init_state` makes the base scenario once per session and
:func:`keep_widget_state` stops Streamlit from dropping the page widgets that are not scenario
fields (the paper preset, the Network page's pickers) when another page is shown.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, NamedTuple

import pandas as pd
import streamlit as st

from engine.config import PolicySpec, ScenarioConfig, TraceSpec
from engine.errors import ConfigError
from engine.power.model import PowerSpec

DEFAULT_SAMPLE = "philly_2000.csv"
DEFAULT_POLICIES = ("fifo", "las", "gavel_maxmin")  # those registered are preselected
SOURCE_KINDS = ("Sample trace", "Upload a file", "Synthetic")
BASE_SCENARIO = "base"


def source_kind(trace: TraceSpec) -> str:
    """Which of :data:`SOURCE_KINDS` a trace's source is."""
    return _kind_of(trace.source)


def _kind_of(source: str) -> str:
    if source == "synthetic":
        return SOURCE_KINDS[2]
    return SOURCE_KINDS[0] if source.startswith("sample:") else SOURCE_KINDS[1]


def _source_of_kind(kind: str) -> str:
    s = st.session_state
    if kind == SOURCE_KINDS[2]:
        return "synthetic"
    if kind == SOURCE_KINDS[1]:  # never a sample in place of a missing file
        upload = s.get("upload")
        return f"upload:{upload[0] if upload else s.get('link_trace_name', '')}"
    return f"sample:{s.get('sample_name') or DEFAULT_SAMPLE}"


def _sample_of(source: str) -> str:
    return source.removeprefix("sample:") if source.startswith("sample:") else DEFAULT_SAMPLE


def _same(value: Any) -> Any:
    return value


class Field(NamedTuple):
    """A widget's field: its attribute path in ``ScenarioConfig``, the field value of a widget
    value (``read``) and the widget value of a field value (``show``; a number is shown as the
    type its widget takes, whatever a loaded file gave), and for a number the lowest and
    highest value its widget takes (``low``, ``high``; None: unbounded), in that type. The one
    place a number widget's range is said: :func:`bind` gives it to the widget and the link
    vetting (:func:`dashboard.query.check_widget_values`) refuses a link outside it."""

    path: str
    read: Callable[[Any], Any] = _same
    show: Callable[[Any], Any] = _same
    low: float | None = None
    high: float | None = None


def _fields() -> dict[str, Field]:
    fields = {
        "source_kind": Field("trace.source", _source_of_kind, _kind_of),
        "sample_name": Field("trace.source", lambda v: f"sample:{v}", _sample_of),
        "trace_format": Field("trace.format"),
        "assumed_worker_type": Field("trace.assumed_worker_type"),
        "max_jobs": Field("trace.max_jobs", lambda v: int(v) or None, lambda v: v or 0),
        "num_jobs": Field("trace.synthetic.num_jobs", int, int),
        "jobs_per_hour": Field("trace.synthetic.jobs_per_hour", float, float),
        "synthetic_workload": Field("trace.synthetic.workload"),
        "llm_daily_amplitude": Field("trace.synthetic.llm.daily_amplitude", float, float),
        "llm_peak_hour": Field("trace.synthetic.llm.peak_hour", float, float),
        "throughputs": Field("throughputs"),
        "network_enabled": Field("network.enabled", bool, bool),
        "placement": Field("placement"),
        "seed": Field("seed", int, int),
        "arrival_scale": Field("load.arrival_scale", float, float),
        "fail_young": Field(
            "failures.checkpoint_interval_s", _interval_of_young, lambda v: v is None
        ),
        "fail_checkpoint_interval_s": Field(
            "failures.checkpoint_interval_s", float, lambda v: v or 3600.0
        ),
    }
    for name in ("intra_node_gbps", "intra_rack_gbps", "cross_rack_gbps",
                 "uplink_oversubscription", "background_load"):  # fmt: skip
        fields[name] = Field(f"network.{name}", float, float)
    fields["share_links"] = Field("network.share_links", bool, bool)
    fields["team_column"] = Field(  # the Teams page: "none" reads no team column
        "trace.team_column", lambda v: "" if v == "none" else v, lambda v: v or "none"
    )
    fields["team_fair_sharing"] = Field("queues.fair_sharing.enabled", bool, bool)
    for name in ("round_duration_s", "checkpoint_restore_s", "reallocation_interval_s",
                 "step_time_overhead"):  # fmt: skip
        fields[name] = Field(f"rounds.{name}", float, float)
    for name in ("admit_mid_round", "gavel_rules", "relaunch_on_event"):
        fields[name] = Field(f"rounds.{name}", bool, bool)
    for name, kind in (("enabled", bool), ("node_mtbf_h", float), ("distribution", str),
                       ("weibull_shape", float), ("repair_h", float), ("rack_mtbf_h", float),
                       ("checkpoint_cost_s", float), ("spares_per_type", int),
                       ("spare_swap_s", float)):  # fmt: skip
        fields[f"fail_{name}"] = Field(f"failures.{name}", kind, kind)
    for key, (low, high) in NUMBER_RANGES.items():
        fields[key] = fields[key]._replace(low=low, high=high)
    return fields


NUMBER_RANGES: dict[str, tuple[float | None, float | None]] = {
    "seed": (0, 2**32 - 1),  # numpy's SeedSequence takes any; a link's seed stays in uint32
    "max_jobs": (0, None),
    "num_jobs": (1, 20_000),
    "jobs_per_hour": (0.1, None),
    "llm_daily_amplitude": (0.0, 1.0),
    "llm_peak_hour": (0.0, 23.5),
    "arrival_scale": (0.05, None),
    "intra_node_gbps": (0.1, None),
    "intra_rack_gbps": (0.1, None),
    "cross_rack_gbps": (0.1, None),
    "uplink_oversubscription": (1.0, None),
    "background_load": (0.0, 0.9),
    "round_duration_s": (1.0, None),
    "checkpoint_restore_s": (0.0, None),
    "reallocation_interval_s": (0.0, None),
    "step_time_overhead": (0.0, 1.0),
    "fail_node_mtbf_h": (0.001, None),
    "fail_weibull_shape": (0.05, None),
    "fail_repair_h": (0.0, None),
    "fail_rack_mtbf_h": (0.0, None),
    "fail_spares_per_type": (0, None),
    "fail_spare_swap_s": (0.0, None),
    "fail_checkpoint_cost_s": (0.0, None),
    "fail_checkpoint_interval_s": (1.0, None),
}
"""Widget key -> (lowest, highest) its number input takes, in its value's type (see
:class:`Field`)."""


COLUMN_RANGES: dict[tuple[str, str], tuple[float, float]] = {
    ("cluster.node_groups", "gpus_per_node"): (1, 64),
    ("network.congestion", "factor"): (1.0, 1000.0),
    ("extra_worker_types", "speed_ratio"): (0.01, 100.0),
}
"""(scenario path of a table, column) -> (lowest, highest) its editor's number column takes
(:func:`column_range`; the link vetting refuses a row outside it)."""


def column_range(table: str, column: str) -> dict[str, float]:
    """``min_value``/``max_value`` of a table editor's number column (:data:`COLUMN_RANGES`)."""
    low, high = COLUMN_RANGES[(table, column)]
    return {"min_value": low, "max_value": high}


def _interval_of_young(young: bool) -> float | None:
    return None if young else float(st.session_state.get("fail_checkpoint_interval_s") or 3600.0)


FIELDS: dict[str, Field] = _fields()
"""Widget key -> the field of the current scenario it edits (the Scenario page's widgets and
the study pages' quick edits use the same keys)."""


class Table(NamedTuple):
    """A table editor's field: its path, and the converters (``dashboard.tables``); ``into``,
    when given, merges what ``from_frame`` read into the field's value (a table that edits a
    part of it: ``dashboard.quota_tables``)."""

    path: str
    to_frame: Callable[[Any], pd.DataFrame]
    from_frame: Callable[[pd.DataFrame], Any]
    into: Callable[[Any, Any], Any] | None = None


def _tables() -> dict[str, Table]:
    from dashboard import tables as t
    from dashboard.quota_tables import queue_tables

    return {  # in the order their errors are reported
        "llm_classes": Table(
            "trace.synthetic.llm.classes", t.llm_classes_to_frame, t.llm_classes_from_frame
        ),
        "gpu_mix": Table("cluster", t.cluster_to_frame, t.cluster_from_frame),
        "congestion": Table("network.congestion", t.congestion_to_frame, t.congestion_from_frame),
        "extra_types": Table(
            "extra_worker_types", t.extra_types_to_frame, t.extra_types_from_frame
        ),
        "type_mtbf": Table("failures.type_mtbf", t.type_mtbf_to_frame, t.type_mtbf_from_frame),
        **{key: Table("queues", *converters) for key, converters in queue_tables().items()},
    }


TABLES: dict[str, Table] = _tables()
"""Plain session key of an edited table -> the field of the current scenario it edits."""
QUEUE_TABLES = tuple(key for key, table in TABLES.items() if table.path == "queues")
"""The Teams page's tables (their buffers are dropped together: :func:`forget_queue_tables`)."""
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
:data:`FIELDS`, :data:`TABLES`, :data:`PAGE_WIDGETS`, :data:`PLAIN_DEFAULTS` and
``dashboard.page_settings.SETTINGS`` every shared session key is declared once
(``tests/dashboard/test_seam.py`` reads the code for them)."""


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


def current() -> ScenarioConfig:
    """The current scenario (its last valid edit)."""
    s = st.session_state
    return s["scenarios"][s["current_scenario"]]


def current_config() -> ScenarioConfig:
    """The current scenario, once every table being edited reads as a valid field.

    Raises:
        ConfigError: the message of the first table that does not (row and column named).
    """
    config = current()
    errors = dict(st.session_state.get(TABLE_ERRORS) or {})
    if config.trace.synthetic.workload != "llm":
        errors.pop("llm_classes", None)  # its classes are not used
    if config.queues is None:
        for key in QUEUE_TABLES:
            errors.pop(key, None)  # teams are off
    for key in TABLES:
        if key in errors:
            raise ConfigError(errors[key])
    return config


def get_field(config: Any, path: str) -> Any:
    """The value at a dotted attribute path of a (nested) dataclass."""
    for part in path.split("."):
        config = getattr(config, part)
    return config


def with_field(config: Any, path: str, value: Any) -> Any:
    """``config`` with the value at a dotted attribute path replaced (nested dataclasses)."""
    head, _, rest = path.partition(".")
    if rest:
        value = with_field(getattr(config, head), rest, value)
    return dataclasses.replace(config, **{head: value})


def edit(path: str, value: Any) -> None:
    """Writes one edited field into the current scenario (the widget shows it already)."""
    s = st.session_state
    s["scenarios"][s["current_scenario"]] = with_field(current(), path, value)


def set_current(config: ScenarioConfig) -> None:
    """Replaces the current scenario from outside its widgets (a loaded file, a preset, a
    lesson); the widgets then show it."""
    s = st.session_state
    s["scenarios"][s["current_scenario"]] = config
    forget_tables()


def forget_tables() -> None:
    """Drops the table editors' buffers and errors: drawn next, they show the current
    scenario."""
    s = st.session_state
    for key in TABLES:
        s.pop(key, None)
    s[TABLE_ERRORS] = {}
    s["table_version"] = s.get("table_version", 0) + 1


def forget_queue_tables() -> None:
    """Drops the Teams page's table buffers (after one of them changed the queues, the others
    show the queues anew) and mounts every table editor afresh."""
    s = st.session_state
    for key in QUEUE_TABLES:
        s.pop(key, None)
        s.get(TABLE_ERRORS, {}).pop(key, None)
    s["table_version"] = s.get("table_version", 0) + 1


def _on_edit(key: str) -> None:
    field = FIELDS[key]
    edit(field.path, field.read(st.session_state[key]))


def bind(key: str, on_change: Callable[[], None] | None = None) -> dict[str, Any]:
    """The keyword arguments that make a widget edit the field :data:`FIELDS` names: its key,
    seeded from the current scenario (every run: the browser may have redrawn the widget
    without its value), and the callback that writes its edits into the scenario (then
    ``on_change``, if given). Call it right before drawing the widget."""
    field = FIELDS[key]
    st.session_state[key] = field.show(get_field(current(), field.path))

    def changed() -> None:
        _on_edit(key)
        if on_change is not None:
            on_change()

    bounds = {"min_value": field.low, "max_value": field.high}
    return {"key": key, "on_change": changed, **{k: v for k, v in bounds.items() if v is not None}}

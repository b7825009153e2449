"""The scenario's fields as the widgets and table editors edit them, each declared once.

:data:`FIELDS` maps a widget's key to the field of ``ScenarioConfig`` it edits (its attribute
path, how a widget value reads as a field value and back, and a number's range: the one place
it is said, read by :func:`dashboard.state.bind` and by the link vetting); :data:`TABLES` maps
a table editor's key to the field it edits and its converters (:mod:`dashboard.tables`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import pandas as pd
import streamlit as st

from engine.config import TraceSpec

DEFAULT_SAMPLE = "philly_2000.csv"
SOURCE_KINDS = ("Sample trace", "Upload a file", "Synthetic")


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

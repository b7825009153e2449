"""Session state: a set of named scenarios, and the widgets that edit the current one.

The truth is ``st.session_state["scenarios"]``, an ordered mapping of name -> ``ScenarioConfig``
(see :mod:`dashboard.scenarios`); ``"current_scenario"`` names the one the Scenario page edits.
The widgets are its editing buffer: they use the keys below and never pass ``value=``;
:func:`build_config` reads them into the current scenario (fields without a widget, e.g. the
load or the throughput matrix, are carried over from the stored scenario) and
:func:`apply_config` writes a scenario back into them when another one becomes current.
:func:`init_state` fills the defaults once per session and :func:`keep_widget_state` stops
Streamlit from dropping them when another page is shown. Tables edited with ``st.data_editor``
live under plain keys (see :mod:`dashboard.components.table_editor`).

Policies: ``"policies"`` picks registry names; ``"policy_labels"`` gives the first instance of a
name its label; ``"policy_copies"`` lists further instances ``{"name", "label"}`` of a picked
policy with their own parameters. Parameter widgets are keyed by the instance's label (its name
when unlabelled), so LAS can appear twice with two thresholds.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any

import pandas as pd
import streamlit as st

from dashboard.policy_params import PARAM_PREFIX, policy_specs, set_policy_params
from engine.config import (
    FailureConfig,
    NetworkConfig,
    RoundConfig,
    ScenarioConfig,
    SyntheticSpec,
    TraceSpec,
    default_cluster,
)
from engine.errors import EngineError
from engine.policies.base import display_name

DEFAULT_SAMPLE = "philly_2000.csv"
DEFAULT_POLICIES = ("fifo", "las", "gavel_maxmin")  # those registered are preselected
SOURCE_KINDS = ("Sample trace", "Upload a file", "Synthetic")
BASE_SCENARIO = "base"

GPU_MIX_COLUMNS = ["worker_type", "nodes", "gpus_per_node", "rack"]
NETWORK_KEYS = (  # NetworkConfig fields stored under their own name
    "intra_node_gbps", "intra_rack_gbps", "cross_rack_gbps", "latency_s",
    "uplink_oversubscription", "background_load", "share_links",
)  # fmt: skip
CONGESTION_COLUMNS = ["start_s", "end_s", "factor", "links"]
DEFAULT_GPU_MIX = pd.DataFrame(
    [dataclasses.astuple(group) for group in default_cluster().node_groups],
    columns=GPU_MIX_COLUMNS,
)

_NET, _ROUNDS, _SYN = NetworkConfig(), RoundConfig(), SyntheticSpec()
WIDGET_DEFAULTS: dict[str, Any] = {
    "source_kind": SOURCE_KINDS[0],
    "sample_name": DEFAULT_SAMPLE,
    "trace_format": "auto",
    "assumed_worker_type": TraceSpec().assumed_worker_type,
    "max_jobs": 0,
    "drop_oversized": False,
    "num_jobs": _SYN.num_jobs,
    "jobs_per_hour": _SYN.jobs_per_hour,
    "synthetic_workload": _SYN.workload,
    "llm_daily_amplitude": _SYN.llm.daily_amplitude,
    "llm_peak_hour": _SYN.llm.peak_hour,
    "throughputs": ScenarioConfig().throughputs,
    "intra_node_gbps": _NET.intra_node_gbps,
    "intra_rack_gbps": _NET.intra_rack_gbps,
    "cross_rack_gbps": _NET.cross_rack_gbps,
    "network_enabled": _NET.enabled,
    "uplink_oversubscription": _NET.uplink_oversubscription,
    "background_load": _NET.background_load,
    "share_links": _NET.share_links,
    "placement": ScenarioConfig().placement,
    "seed": 0,
    "round_duration_s": _ROUNDS.round_duration_s,
    "checkpoint_restore_s": _ROUNDS.checkpoint_restore_s,
    "admit_mid_round": _ROUNDS.admit_mid_round,
    "reallocation_interval_s": _ROUNDS.reallocation_interval_s,
    "gavel_rules": _ROUNDS.gavel_rules,
    "relaunch_on_event": _ROUNDS.relaunch_on_event,
    "step_time_overhead": _ROUNDS.step_time_overhead,
    "preset": "None",
    "paper_preset": "None",
    "policies": [],
    "log_x": True,
    "network_policy": None,  # Network page: set from the result shown
    "network_time_s": None,
    "arrival_scale": 1.0,  # load.arrival_scale (Compare and Sweep pages)
    "scenario_choice": BASE_SCENARIO,  # the scenario picker (mirrors current_scenario)
}


def failures_from_state() -> FailureConfig:
    """The FailureConfig the failure widgets describe (the per-type table and the seed are
    set by the caller)."""
    s = st.session_state
    return FailureConfig(
        enabled=bool(s["fail_enabled"]),
        node_mtbf_h=float(s["fail_node_mtbf_h"]),
        distribution=str(s["fail_distribution"]),
        weibull_shape=float(s["fail_weibull_shape"]),
        repair_h=float(s["fail_repair_h"]),
        rack_mtbf_h=float(s["fail_rack_mtbf_h"]),
        checkpoint_interval_s=None if s["fail_young"] else float(s["fail_checkpoint_interval_s"]),
        checkpoint_cost_s=float(s["fail_checkpoint_cost_s"]),
        spares_per_type=int(s["fail_spares_per_type"]),
        spare_swap_s=float(s["fail_spare_swap_s"]),
    )


def failure_widget_values(config: FailureConfig) -> dict[str, Any]:
    """Widget key -> value for a loaded scenario's failure settings."""
    values: dict[str, Any] = {
        f"fail_{name}": getattr(config, name)
        for name in ("enabled", "node_mtbf_h", "distribution", "weibull_shape", "repair_h",
                     "rack_mtbf_h", "checkpoint_cost_s", "spares_per_type", "spare_swap_s")
    }  # fmt: skip
    values["fail_young"] = config.checkpoint_interval_s is None
    values["fail_checkpoint_interval_s"] = config.checkpoint_interval_s or 3600.0
    return values


WIDGET_DEFAULTS.update(failure_widget_values(FailureConfig()))  # the "fail_*" widgets
PLAIN_DEFAULTS: dict[str, Any] = {
    "gpu_mix": DEFAULT_GPU_MIX,
    "congestion": pd.DataFrame(columns=CONGESTION_COLUMNS),
    "type_mtbf": pd.DataFrame(  # failures.type_mtbf (the Failures tab)
        {"worker_type": pd.Series(dtype=str), "node_mtbf_h": pd.Series(dtype=float)}
    ),
    "extra_types": pd.DataFrame(
        {
            "name": pd.Series(dtype=str),
            "base": pd.Series(dtype=str),
            "speed_ratio": pd.Series(dtype=float),
        }
    ),  # fmt: skip
    "llm_classes": pd.DataFrame(
        [dataclasses.astuple(c) for c in _SYN.llm.classes],
        columns=["name", "share", "min_gpus", "max_gpus", "job_types", "min_hours", "max_hours"],
    ),  # the LLM-era mix's job classes (trace.synthetic.llm.classes)
    "upload": None,  # (file name, bytes) of the uploaded trace
    "policy_labels": {},  # policy -> label of its first instance (loaded scenario, preset)
    "policy_copies": [],  # further instances: {"name": policy, "label": unique label}
    "scenarios": {},  # name -> ScenarioConfig; the current one is edited by the widgets
    "current_scenario": BASE_SCENARIO,
    "column_mapping": None,  # canonical -> file column, once the user mapped an unknown CSV
    "result": None,  # the last ComparisonResult
    "result_config": "",  # config JSON of the last run
    "result_scenario": "",  # the name of the scenario the last run ran
    "cancel_requested": False,
    "flash": None,  # (kind, message) shown once on the Scenario page
    "latency_s": _NET.latency_s,  # no widget; kept so a loaded scenario round-trips
}


def init_state() -> bool:
    """Fills missing keys with defaults once per session; True on that first call (the app
    then applies the URL's query parameters: :func:`dashboard.query.read_query_params`)."""
    if st.session_state.get("_initialized"):
        return False
    from engine.policies import list_policies

    for key, value in {**WIDGET_DEFAULTS, **PLAIN_DEFAULTS}.items():
        st.session_state.setdefault(key, value.copy() if hasattr(value, "copy") else value)
    known = list_policies()
    st.session_state["policies"] = [p for p in DEFAULT_POLICIES if p in known] or known[:2]
    st.session_state["_initialized"] = True
    with contextlib.suppress(EngineError):
        build_config()
    return True


def keep_widget_state() -> None:
    """Re-assigns widget keys so they survive a page switch (Streamlit drops unrendered ones)."""
    for key in list(st.session_state.keys()):
        if key in WIDGET_DEFAULTS or str(key).startswith(PARAM_PREFIX):
            st.session_state[key] = st.session_state[key]


def trace_spec() -> TraceSpec:
    """The TraceSpec the trace panel describes."""
    s = st.session_state
    kind = s["source_kind"]
    if kind == SOURCE_KINDS[2]:
        source = "synthetic"
    elif kind == SOURCE_KINDS[1]:  # never a sample in place of a missing file
        upload = s["upload"]
        source = f"upload:{upload[0] if upload else s.get('link_trace_name', '')}"
    else:
        source = f"sample:{s['sample_name']}"
    mapped = kind == SOURCE_KINDS[1] and s["column_mapping"] is not None
    synthetic = stored_scenario().trace.synthetic
    if s["synthetic_workload"] == "llm":
        from dashboard.tables import llm_classes_from_frame

        llm = dataclasses.replace(
            synthetic.llm, classes=llm_classes_from_frame(s["llm_classes"]),
            daily_amplitude=float(s["llm_daily_amplitude"]), peak_hour=float(s["llm_peak_hour"]),
        )  # fmt: skip
        synthetic = dataclasses.replace(synthetic, llm=llm)
    return TraceSpec(
        source=source,
        format="canonical" if mapped else s["trace_format"],
        assumed_worker_type=s["assumed_worker_type"],
        max_jobs=int(s["max_jobs"]) or None,
        drop_oversized=bool(s["drop_oversized"]),
        synthetic=dataclasses.replace(
            synthetic, num_jobs=int(s["num_jobs"]),
            jobs_per_hour=float(s["jobs_per_hour"]), workload=s["synthetic_workload"],
        ),
    )  # fmt: skip


def stored_scenario() -> ScenarioConfig:
    """The current scenario as last stored (fields without a widget are kept from it)."""
    s = st.session_state
    return s["scenarios"].get(s["current_scenario"], ScenarioConfig())


def rounds_from_state() -> RoundConfig:
    """The RoundConfig the round widgets describe."""
    s = st.session_state
    return RoundConfig(
        round_duration_s=float(s["round_duration_s"]),
        admit_mid_round=bool(s["admit_mid_round"]),
        reallocation_interval_s=float(s["reallocation_interval_s"]),
        checkpoint_restore_s=float(s["checkpoint_restore_s"]),
        gavel_rules=bool(s["gavel_rules"]),
        relaunch_on_event=bool(s["relaunch_on_event"]),
        step_time_overhead=float(s["step_time_overhead"]),
    )


def build_config() -> ScenarioConfig:
    """The current scenario as the Scenario page's widgets describe it; also stored under its
    name in ``st.session_state["scenarios"]``.

    Raises:
        ConfigError: for a GPU mix or congestion table that cannot be read (row named).
    """
    from dashboard.tables import (
        cluster_from_frame,
        congestion_from_frame,
        extra_types_from_frame,
        type_mtbf_from_frame,
    )

    s = st.session_state
    network = NetworkConfig(
        intra_node_gbps=float(s["intra_node_gbps"]),
        intra_rack_gbps=float(s["intra_rack_gbps"]),
        cross_rack_gbps=float(s["cross_rack_gbps"]),
        latency_s=float(s["latency_s"]),
        enabled=bool(s["network_enabled"]),
        uplink_oversubscription=float(s["uplink_oversubscription"]),
        background_load=float(s["background_load"]),
        share_links=bool(s["share_links"]),
        congestion=congestion_from_frame(s["congestion"]),
    )
    stored = stored_scenario()
    config = dataclasses.replace(
        stored,
        load=dataclasses.replace(stored.load, arrival_scale=float(s["arrival_scale"])),
        trace=trace_spec(),
        cluster=cluster_from_frame(s["gpu_mix"]),
        network=network,
        rounds=rounds_from_state(),
        policies=policy_specs(s["policies"], s["policy_labels"], s["policy_copies"]),
        seed=int(s["seed"]),
        placement=s["placement"],
        throughputs=s["throughputs"],
        extra_worker_types=extra_types_from_frame(s["extra_types"]),
        failures=dataclasses.replace(  # (the failure seed has no widget: kept)
            failures_from_state(),
            type_mtbf=type_mtbf_from_frame(s["type_mtbf"]),
            seed=stored.failures.seed,
        ),
    )
    s["scenarios"][s["current_scenario"]] = config
    return config


def apply_config(config: ScenarioConfig) -> None:
    """Writes a loaded or transformed config back into the widgets (call from a callback)."""
    from dashboard.tables import (
        cluster_to_frame,
        congestion_to_frame,
        extra_types_to_frame,
        llm_classes_to_frame,
        type_mtbf_to_frame,
    )

    s = st.session_state
    trace = config.trace
    if trace.source.startswith("sample:"):
        s["source_kind"], s["sample_name"] = SOURCE_KINDS[0], trace.source.removeprefix("sample:")
    elif trace.source == "synthetic":
        s["source_kind"] = SOURCE_KINDS[2]
    else:
        s["source_kind"] = SOURCE_KINDS[1]
    s["trace_format"], s["assumed_worker_type"] = trace.format, trace.assumed_worker_type
    s["max_jobs"], s["drop_oversized"] = trace.max_jobs or 0, trace.drop_oversized
    s["num_jobs"], s["jobs_per_hour"] = trace.synthetic.num_jobs, trace.synthetic.jobs_per_hour
    s["synthetic_workload"] = trace.synthetic.workload
    s["llm_daily_amplitude"] = trace.synthetic.llm.daily_amplitude
    s["llm_peak_hour"] = trace.synthetic.llm.peak_hour
    s["llm_classes"] = llm_classes_to_frame(trace.synthetic.llm.classes)
    net = dataclasses.asdict(config.network)
    for key in NETWORK_KEYS:
        s[key] = net[key]
    s["network_enabled"] = config.network.enabled
    for key, value in dataclasses.asdict(config.rounds).items():
        s[key] = value
    s["seed"], s["placement"], s["throughputs"] = config.seed, config.placement, config.throughputs
    s["arrival_scale"] = config.load.arrival_scale
    s.update(failure_widget_values(config.failures))
    firsts = {p.name: p for p in reversed(config.policies)}  # first instance of each name
    s["policies"] = list(dict.fromkeys(p.name for p in config.policies))
    s["policy_labels"] = {name: p.label for name, p in firsts.items() if p.label}
    s["policy_copies"] = [
        {"name": p.name, "label": display_name(p)}
        for p in config.policies
        if firsts[p.name] is not p
    ]
    set_policy_params(config.policies)
    s["gpu_mix"] = cluster_to_frame(config.cluster)
    s["congestion"] = congestion_to_frame(config.network.congestion)
    s["extra_types"] = extra_types_to_frame(config.extra_worker_types)
    s["type_mtbf"] = type_mtbf_to_frame(config.failures.type_mtbf)
    s["table_version"] = s.get("table_version", 0) + 1
    s["scenarios"][s["current_scenario"]] = config

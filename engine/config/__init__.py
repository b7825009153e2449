"""Scenario configuration: frozen dataclasses that fully describe one what-if.

A :class:`ScenarioConfig` is the unit of reproducibility. The dashboard downloads and uploads
it as JSON, the command line (`python -m engine run scenario.json`) reads the same JSON, and the
same config (seed included) always produces identical result tables.

The parts live in modules named for what they describe (:mod:`.cluster`, :mod:`.network`,
:mod:`.workload`, :mod:`.failures`); ``engine.config`` is the one place to import them from.
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from dataclasses import dataclass, field
from typing import Any

from engine.config.cluster import ClusterSpec, NodeGroup, WorkerTypeSpec, default_cluster
from engine.config.failures import (
    FAILURE_DISTRIBUTIONS,
    LLAMA3_NODE_MTBF_H,
    FailureConfig,
    TypeMtbf,
    TypeSpares,
    spares_of,
)
from engine.config.network import CongestionEpisode, NetworkConfig
from engine.config.workload import (
    DEFAULT_LLM_CLASSES,
    JobClass,
    LLMMixSpec,
    LoadConfig,
    SyntheticSpec,
    TraceSpec,
)
from engine.errors import ConfigError
from engine.power.model import PowerSpec
from engine.quota.model import QueueConfig
from engine.sharing.config import SharingConfig
from engine.sources import Origin, check_sources

__all__ = [
    "DEFAULT_LLM_CLASSES",
    "FAILURE_DISTRIBUTIONS",
    "LLAMA3_NODE_MTBF_H",
    "ClusterSpec",
    "CongestionEpisode",
    "FailureConfig",
    "JobClass",
    "LLMMixSpec",
    "LoadConfig",
    "NetworkConfig",
    "NodeGroup",
    "PolicySpec",
    "RoundConfig",
    "ScenarioConfig",
    "SharingConfig",
    "SyntheticSpec",
    "TraceSpec",
    "TypeMtbf",
    "TypeSpares",
    "WorkerTypeSpec",
    "default_cluster",
    "json_object",
    "spares_of",
]


@dataclass(frozen=True)
class RoundConfig:
    """Round, lease and admission rules of the scheduler loop.

    Attributes:
        round_duration_s: length of a scheduling round and of a lease (Gavel default 360 s).
        admit_mid_round: start waiting jobs on GPUs freed mid-round (False: only at round
            boundaries, as in Gavel's simulator).
        reallocation_interval_s: a policy that solves an allocation problem (Gavel's LPs)
            recomputes it at most this often; 0 means at every round with a changed job set.
        checkpoint_restore_s: cost, in seconds of lost progress, of every preemption or
            migration (a change of a running job's GPUs).
        gavel_rules: run Gavel's own simulator rules for the policies of Gavel's family
            (micro-task rounds, per-type priority queues, jobs placed only once an allocation
            includes them; see :mod:`engine.lease_rounds` and :mod:`engine.policies.gavel.queues`).
            Set by the Gavel-compatible preset; off by default, where our rules apply.
        relaunch_on_event: at a round boundary that has an event (an arrival or a completion
            since the last boundary, or a start, preemption or migration at this one), every
            running job is relaunched and pays ``checkpoint_restore_s`` again, and every start,
            the first included, pays it: the rule of a testbed that restarts all its jobs
            whenever it re-plans (Muri's, set by the ``muri_testbed`` preset). Off by default:
            only a preemption or migration costs a restore.
        step_time_overhead: share added to every step time by the cluster's own harness
            (0.015: every step 1.5% slower than the throughput matrix and the trace's own
            measured speeds say), e.g. a testbed's per-iteration logging and profilers. 0 by
            default; the ``muri_testbed`` preset sets Muri's.
    """

    round_duration_s: float = field(default=360.0, metadata={"help": "Round / lease length (s)"})
    admit_mid_round: bool = field(
        default=True, metadata={"help": "Start jobs on GPUs freed mid-round"}
    )
    reallocation_interval_s: float = field(
        default=0.0, metadata={"help": "Minimum time between allocation recomputations (s)"}
    )
    checkpoint_restore_s: float = field(
        default=30.0, metadata={"help": "Checkpoint-restore cost per preemption/migration (s)"}
    )
    gavel_rules: bool = field(
        default=False,
        metadata={"help": "Gavel's simulator rules for Gavel's policies (micro-task rounds)"},
    )
    relaunch_on_event: bool = field(
        default=False,
        metadata={
            "help": "At a round boundary with an event, relaunch every running job (each "
            "launch, the first included, costs the checkpoint-restore time)"
        },
    )
    step_time_overhead: float = field(
        default=0.0,
        metadata={"help": "Share added to every step time by the cluster's harness (0.015 = 1.5%)"},
    )


@dataclass(frozen=True)
class PolicySpec:
    """A policy by registry name, with parameter overrides (field name -> value) and an
    optional label; what it is called everywhere is resolved where the policies are
    registered (:func:`engine.policies.base.display_name`)."""

    name: str
    params: dict[str, Any] = field(default_factory=dict, hash=False, compare=True)
    label: str = ""


def json_object(text: str, what: str) -> dict[str, Any]:
    """``text`` parsed as a JSON object: the one parse of every JSON a user gives (a scenario,
    a study, a plan).

    Raises:
        ConfigError: "<what> JSON is not valid JSON / nested too deeply / must be an object".
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{what} JSON is not valid JSON: {exc}") from exc
    except RecursionError as exc:
        raise ConfigError(f"{what} JSON is nested too deeply") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{what} JSON must be an object")
    return data


@dataclass(frozen=True)
class ScenarioConfig:
    """Everything one what-if needs; serialisable to and from JSON."""

    trace: TraceSpec = TraceSpec()
    cluster: ClusterSpec = field(default_factory=default_cluster)
    network: NetworkConfig = NetworkConfig()
    rounds: RoundConfig = RoundConfig()
    policies: tuple[PolicySpec, ...] = (PolicySpec("fifo"), PolicySpec("las"))
    seed: int = 0
    trace_seed: int | None = field(
        default=None,
        metadata={"help": "Seed of the trace's random rules and load; None: the same as seed"},
    )
    load: LoadConfig = LoadConfig()
    placement: str = field(
        default="consolidated", metadata={"help": "Placement strategy: consolidated or first_fit"}
    )
    throughputs: str = field(
        default="gavel",
        metadata={
            "help": "Built-in matrix ('gavel'; 'mlperf' or 'mlperf-best': MLPerf Training "
            "time-to-train, engine/mlperf.py), 'sha256:<hex>' (an uploaded matrix in the "
            "store) or, in a local scenario only, a path to a CSV"
        },
    )
    extra_worker_types: tuple[WorkerTypeSpec, ...] = ()
    failures: FailureConfig = FailureConfig()
    queues: QueueConfig | None = field(
        default=None,
        metadata={
            "help": "Teams' queues and GPU quotas with Kueue's rules (engine.quota); None: one "
            "global queue"
        },
    )
    power: PowerSpec | None = field(
        default=None,
        metadata={
            "help": "Power figures, PUE and grid intensity (engine.power): the run's energy, "
            "peak and mean facility power and CO2e; None: no power KPIs"
        },
    )

    sharing: SharingConfig | None = field(
        default=None,
        metadata={
            "help": "Jobs that share GPUs (engine.sharing): up to k jobs on the same GPUs under "
            "a sharing policy, and the model of a group's speed; None: exclusive GPUs"
        },
    )

    @property
    def effective_trace_seed(self) -> int:
        """The seed of the trace rng: ``trace_seed``, or ``seed`` when it is None."""
        return self.seed if self.trace_seed is None else self.trace_seed

    def to_dict(self) -> dict[str, Any]:
        """The scenario as plain data; ``queues``, ``power`` and ``sharing`` only when set (a
        scenario without them reads and hashes as before they existed)."""
        data = dataclasses.asdict(self)
        for layer in ("queues", "power", "sharing"):
            if data[layer] is None:
                del data[layer]
        if not self.failures.type_spares:  # likewise spares per type
            del data["failures"]["type_spares"]
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any], origin: Origin = Origin.SHARED) -> ScenarioConfig:
        """Builds a config from a dict, rejecting unknown keys, and file names ``origin`` may
        not use (:mod:`engine.sources`: a shared scenario, the default, never names a server
        path or URL; the command line passes ``Origin.LOCAL`` for the user's own files).

        Raises:
            ConfigError: naming the offending key path.
        """
        config: ScenarioConfig = _build(cls, data, "scenario")
        check_sources(config.trace.source, config.throughputs, origin)
        return config

    @classmethod
    def from_json(cls, text: str, origin: Origin = Origin.SHARED) -> ScenarioConfig:
        """:meth:`from_dict` of a JSON text. Raises ConfigError."""
        return cls.from_dict(json_object(text, "scenario"), origin)


def _build(cls: Any, data: Any, path: str) -> Any:
    """Recursively turns plain JSON data into the dataclass ``cls``."""
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected an object, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {_short(unknown)}; allowed: {sorted(names)}")
    kwargs = {key: _coerce(hints[key], value, f"{path}.{key}") for key, value in data.items()}
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ConfigError(f"{path}: {exc}") from exc


def _coerce(hint: Any, value: Any, path: str) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if dataclasses.is_dataclass(hint):
        return _build(hint, value, path)
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise ConfigError(f"{path}: expected a list")
        return tuple(_coerce(args[0], v, f"{path}[{i}]") for i, v in enumerate(value))
    if origin in (typing.Union, types.UnionType):
        if value is None:
            return None
        return _coerce(next(a for a in args if a is not type(None)), value, path)
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{path}: expected a number, got {_short(value)}")
        if not math.isfinite(value):
            raise ConfigError(f"{path}: expected a finite number, got {value!r}")
        return float(value)
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{path}: expected an integer, got {_short(value)}")
        return value
    if hint is bool and not isinstance(value, bool):
        raise ConfigError(f"{path}: expected true/false, got {_short(value)}")
    if hint is str and not isinstance(value, str):
        raise ConfigError(f"{path}: expected a string, got {_short(value)}")
    if typing.get_origin(hint) is dict and not isinstance(value, dict):
        raise ConfigError(f"{path}: expected an object, got {_short(value)}")
    return value


def _short(value: Any) -> str:
    """``repr(value)`` cut to 60 characters (a crafted link may send a long one)."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."

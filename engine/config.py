"""Scenario configuration: frozen dataclasses that fully describe one what-if.

A :class:`ScenarioConfig` is the unit of reproducibility. The dashboard downloads and uploads
it as JSON, the command line (`python -m engine run scenario.json`) reads the same JSON, and the
same config (seed included) always produces identical result tables.
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from dataclasses import dataclass, field
from typing import Any

from engine.errors import ConfigError
from engine.sources import Origin, check_sources


@dataclass(frozen=True)
class NodeGroup:
    """One row of the GPU mix: ``nodes`` identical nodes of one worker type in one rack.

    Attributes:
        worker_type: GPU type name, a column of the throughput matrix (e.g. ``"v100"``).
        nodes: number of nodes in this group (>= 1).
        gpus_per_node: GPUs per node (>= 1).
        rack: rack name; groups sharing a rack name share its top-of-rack switch.
    """

    worker_type: str = field(metadata={"help": "GPU type, a column of the throughput matrix"})
    nodes: int = field(metadata={"help": "Number of nodes in this group"})
    gpus_per_node: int = field(metadata={"help": "GPUs on each node"})
    rack: str = field(default="rack0", metadata={"help": "Rack the nodes sit in"})


@dataclass(frozen=True)
class WorkerTypeSpec:
    """A worker type missing from the throughput matrix, defined by a speed ratio to one in it.

    Example: ``WorkerTypeSpec("a100", "v100", 2.0)`` runs every job type twice as fast as a V100
    (shared/docs/schedulers.md: "add worker types by a speed ratio to an existing one").
    """

    name: str = field(metadata={"help": "New GPU type name, e.g. a100"})
    base: str = field(metadata={"help": "Existing GPU type it is compared with"})
    speed_ratio: float = field(metadata={"help": "Throughput relative to the base type"})


@dataclass(frozen=True)
class ClusterSpec:
    """The GPU mix: racks -> nodes -> GPUs, each GPU of one worker type."""

    node_groups: tuple[NodeGroup, ...]

    def capacity(self) -> dict[str, int]:
        """GPUs per worker type, e.g. ``{"v100": 192, "k80": 128}``."""
        totals: dict[str, int] = {}
        for group in self.node_groups:
            totals[group.worker_type] = (
                totals.get(group.worker_type, 0) + group.nodes * group.gpus_per_node
            )
        return totals

    @property
    def total_gpus(self) -> int:
        return sum(self.capacity().values())

    def max_gpus_per_node(self) -> dict[str, int]:
        """Largest node size per worker type (bounds a node-local placement)."""
        sizes: dict[str, int] = {}
        for g in self.node_groups:
            sizes[g.worker_type] = max(sizes.get(g.worker_type, 0), g.gpus_per_node)
        return sizes


@dataclass(frozen=True)
class CongestionEpisode:
    """A period during which some inter-node links lose bandwidth.

    Attributes:
        start_s, end_s: the episode's time window in simulated seconds (start < end).
        factor: bandwidth divisor (>= 1); 4 means the links run at a quarter of their bandwidth.
        links: which links: ``"inter_node"`` (every link between nodes), ``"cross_rack"``
            (every rack uplink), ``"rack:<name>"`` (the node links and the uplink of one rack),
            ``"uplink:<rack>"`` (one rack's uplink) or ``"node:<node>"`` (one node's link to
            its rack switch, e.g. ``"node:n3"``). See :mod:`engine.step_time.topology`.
    """

    start_s: float = field(metadata={"help": "Episode start (s)"})
    end_s: float = field(metadata={"help": "Episode end (s)"})
    factor: float = field(metadata={"help": "Bandwidth divisor, >= 1"})
    links: str = field(
        default="inter_node",
        metadata={"help": "inter_node, cross_rack, rack:<name>, uplink:<rack> or node:<node>"},
    )


@dataclass(frozen=True)
class NetworkConfig:
    """Bandwidths of the ring all-reduce model and the congestion schedule.

    Defaults are typical of the V100-era clusters in the seed papers: PCIe-class intra-node links,
    25 GbE NICs within a rack, and 10 Gb/s effective per-flow bandwidth across oversubscribed
    rack uplinks. Latency 5 us per ring hop.
    """

    intra_node_gbps: float = field(default=100.0, metadata={"help": "Intra-node link bandwidth"})
    intra_rack_gbps: float = field(default=25.0, metadata={"help": "Node-to-node, same rack"})
    cross_rack_gbps: float = field(default=10.0, metadata={"help": "Across rack uplinks"})
    latency_s: float = field(default=5e-6, metadata={"help": "Per-hop latency (s)"})
    enabled: bool = field(
        default=True, metadata={"help": "Charge communication beyond the measured baseline"}
    )
    uplink_oversubscription: float = field(
        default=1.0,
        metadata={
            "help": "A rack's node bandwidth over its uplink's (>= 1); uplink capacity = "
            "nodes x intra-rack bandwidth / oversubscription"
        },
    )
    background_load: float = field(
        default=0.0,
        metadata={
            "help": "Share of every inter-node link used by traffic outside the trace, 0-0.9"
        },
    )
    share_links: bool = field(
        default=False,
        metadata={
            "help": "Jobs crossing the same link split its bandwidth (off: each job sees the "
            "link's whole bandwidth, as in Gavel's and Tiresias's simulators)"
        },
    )
    congestion: tuple[CongestionEpisode, ...] = ()


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
class JobClass:
    """One class of the LLM-era synthetic mix (:mod:`engine.traces.llm_mix`).

    Sizes are powers of two in ``[min_gpus, max_gpus]``, each equally likely; the duration on
    the mix's reference GPU type at that size is log-uniform in ``[min_hours, max_hours]``.
    """

    name: str = field(metadata={"help": "Class name, e.g. fine-tune"})
    share: float = field(metadata={"help": "Share of the jobs (shares are normalised)"})
    min_gpus: int = field(metadata={"help": "Smallest job (GPUs)"})
    max_gpus: int = field(metadata={"help": "Largest job (GPUs)"})
    job_types: str = field(metadata={"help": "Comma-separated job types, drawn uniformly"})
    min_hours: float = field(metadata={"help": "Shortest run on the reference GPU type (h)"})
    max_hours: float = field(metadata={"help": "Longest run on the reference GPU type (h)"})


DEFAULT_LLM_CLASSES = (
    JobClass("small", 0.60, 1, 8, "bert,dlrm_dcnv2,retinanet,rgat", 0.25, 4.0),
    JobClass("fine-tune", 0.37, 8, 64, "llama2_70b_lora,stable_diffusion,llama31_8b", 1.0, 12.0),
    JobClass("pre-training", 0.03, 256, 512, "llama31_405b", 6.0, 48.0),
)
"""[R] The LLM-era mix: mostly small jobs, fine-tunes on 8-64 GPUs, a few pre-training runs
on 256-512 GPUs (raise ``max_gpus`` to 2,048 for a cluster that holds them)."""


@dataclass(frozen=True)
class LLMMixSpec:
    """The LLM-era synthetic workload: job classes, a daily arrival cycle, a reference GPU."""

    classes: tuple[JobClass, ...] = DEFAULT_LLM_CLASSES
    daily_amplitude: float = field(
        default=0.5,
        metadata={"help": "Arrival rate swing over a day, 0-1 (0: constant; 0.5: peak 3x trough)"},
    )
    peak_hour: float = field(default=14.0, metadata={"help": "Hour of the day arrivals peak"})
    reference_worker_type: str = field(
        default="H100-SXM", metadata={"help": "GPU type the durations are stated on"}
    )


@dataclass(frozen=True)
class SyntheticSpec:
    """Poisson-arrival synthetic workload: Gavel's Philly-derived duration and size mix
    (``workload="gavel"``) or the LLM-era mix (``workload="llm"``, :class:`LLMMixSpec`)."""

    num_jobs: int = field(default=200, metadata={"help": "Number of jobs"})
    jobs_per_hour: float = field(default=10.0, metadata={"help": "Poisson arrival rate"})
    workload: str = field(default="gavel", metadata={"help": "gavel or llm"})
    llm: LLMMixSpec = LLMMixSpec()


@dataclass(frozen=True)
class TraceSpec:
    """Where the jobs come from.

    Attributes:
        source: ``"sample:<file name>"`` (a file in ``sample_traces/``), ``"synthetic"``,
            ``"upload:<file name>"`` (an uploaded file), or, in a local scenario only, a path
            to a trace file (:mod:`engine.sources`).
        format: importer name or ``"auto"`` to detect it from the file.
        assumed_worker_type: GPU type the trace's durations were observed on, for traces
            that lack step counts (Philly, ITP); for a trace with its own measured iteration
            times (Muri's), the GPU type they were measured on.
        max_jobs: keep only the first N jobs by arrival (None keeps all).
        drop_oversized: drop jobs larger than the cluster (they are counted and reported);
            False rejects such a trace with an error.
    """

    source: str = "sample:philly_2000.csv"
    format: str = "auto"
    assumed_worker_type: str = "p100"
    max_jobs: int | None = None
    drop_oversized: bool = False
    synthetic: SyntheticSpec = SyntheticSpec()


@dataclass(frozen=True)
class LoadConfig:
    """Load as a what-if: the trace's jobs at a higher or lower rate, or more or fewer of them.

    Applied after ``TraceSpec.max_jobs`` and before the cluster-fit check, in this order
    (:func:`engine.traces.load.apply_load`) [R: our rule, no paper defines it]:

    1. ``num_jobs``: keep the first N jobs by arrival, or, when N exceeds the trace, repeat the
       trace back to back (copy k arrives ``k x (span + mean inter-arrival gap)`` later, job ids
       suffixed ``~k``, job types and step counts copied) until N jobs, then cut at N.
    2. ``arrival_scale``: divide every arrival time by the factor, so inter-arrival times are
       compressed by it and the arrival rate is multiplied by it (1.5 = 1.5x the load).

    For a synthetic trace, ``trace.synthetic.jobs_per_hour`` sets the rate directly; these
    apply on top. The defaults change nothing.
    """

    arrival_scale: float = field(
        default=1.0, metadata={"help": "Arrival-rate multiplier (inter-arrival times / factor)"}
    )
    num_jobs: int | None = field(
        default=None, metadata={"help": "Trim or repeat the trace to this many jobs"}
    )


@dataclass(frozen=True)
class PolicySpec:
    """A policy by registry name, with parameter overrides (field name -> value) and an
    optional label; what it is called everywhere is resolved where the policies are
    registered (:func:`engine.policies.base.display_name`)."""

    name: str
    params: dict[str, Any] = field(default_factory=dict, hash=False, compare=True)
    label: str = ""


LLAMA3_NODE_MTBF_H = 54 * 24 * (16_384 / 8) / 419
"""Mean time between failures of one 8-GPU node, hours: 419 unexpected interruptions (of 466;
47 were planned) in a 54-day snapshot of Llama 3 405B pre-training on 16,384 H100 GPUs in 8-GPU
servers (2,048 nodes), about 78% of the unexpected ones attributed to confirmed or suspected
hardware issues (Dubey et al., "The Llama 3 Herd of Models", arXiv 2407.21783, 2024, sec.
3.3.4): 54 x 24 x 2,048 / 419 = 6,335 node-hours. [R] every interruption counted as a failure
of one node (the paper gives no split by node); its hardware share alone would give 8,120 h.

Cited for context, no number here comes from them: Kokolis et al. ("Revisiting Reliability in
Large-Scale Machine Learning Research Clusters", arXiv 2410.21680, 2024; HPCA 2025) analyse 11
months of two A100 research clusters at Meta (about 16K and 8K GPUs; 4 million jobs, over 150
million GPU-hours) and fit a failure model that projects a job's mean time to failure from its
GPU count [R: that their node failure rates are of the same order as the figure above is our
reading, not verified against the paper's numbers]. Hu et al. ("Characterization of Large
Language Model Development in the Datacenter", NSDI '24) study job failures over six months of
LLM development on Acme. Jeon et al. ("Analysis of Large-Scale Multi-Tenant GPU Clusters for
DNN Training Workloads", ATC '19) study failures during training on two months of Philly [R:
that most of its failed jobs fail for user errors, which this node model leaves out, is our
reading, not verified against the paper]."""


@dataclass(frozen=True)
class TypeMtbf:
    """A worker type whose nodes fail at another rate than :attr:`FailureConfig.node_mtbf_h`."""

    worker_type: str = field(metadata={"help": "GPU type, e.g. k80"})
    node_mtbf_h: float = field(metadata={"help": "Mean time between failures of one node (h)"})


@dataclass(frozen=True)
class FailureConfig:
    """Node failures, checkpoints and spare nodes (:mod:`engine.faults`); off by default.

    When ``enabled`` is False nothing here is read and every result is that of a cluster whose
    GPUs never fail. When on, each node of the schedulable cluster fails as a renewal process
    drawn from its own seeded generator (``seed`` and a stream of its own, so the policies'
    random draws are the same with failures on or off); a failed node evicts the jobs holding
    GPUs on it, which lose the work since their last checkpoint and wait again under their
    policy (for FIFO at the back of the queue, as a preempted job would) [R]. The node returns
    after ``repair_h``, or after ``spare_swap_s`` when a spare node of its type is in reserve
    (the broken one joins the reserve once repaired).

    Attributes (defaults and sources):
        node_mtbf_h: :data:`LLAMA3_NODE_MTBF_H` (Dubey et al. 2024, sec. 3.3.4) [R].
        distribution: ``"exponential"`` (memoryless; Daly 2006's model) or ``"weibull"``.
        weibull_shape: shape k of the Weibull time between failures; 0.7 [R] from Schroeder &
            Gibson (DSN 2006), who fit shapes of 0.7-0.8 to LANL's node failures (k < 1: a
            repaired node is likelier to fail again soon).
        repair_h: hours before a failed node is back in service (no spare); 24 h [R], our
            reading of a next-business-day hardware swap, no source gives one figure.
        rack_mtbf_h: mean time between failures of a whole rack (switch or power), every node
            of it at once; 0 turns correlated failures off (the default) [R].
        checkpoint_interval_s: work between checkpoints (s); None uses Young's optimum
            ``sqrt(2 x checkpoint_cost_s x the job's MTBF)`` (Young, CACM 1974; Daly, FGCS
            2006), the job's MTBF being its nodes' (and racks') failure rates summed; with a
            checkpoint cost of 0 that is 0: the job loses no work to a failure.
        checkpoint_cost_s: time a checkpoint takes, without progress; 60 s [R] (an
            asynchronous save of a large model's state to shared storage).
        spares_per_type: nodes of each worker type held in reserve (taken from the GPU mix:
            the last nodes of that type); they replace failed nodes.
        spare_swap_s: time to swap a spare in for a failed node; 600 s [R].
        seed: seed of the failure generator; None uses the scenario's seed.
    """

    enabled: bool = field(default=False, metadata={"help": "Simulate node failures"})
    node_mtbf_h: float = field(
        default=LLAMA3_NODE_MTBF_H,
        metadata={"help": "Mean time between failures of one node (h); Llama 3: 6,335 h"},
    )
    distribution: str = field(
        default="exponential", metadata={"help": "Time between failures: exponential or weibull"}
    )
    weibull_shape: float = field(default=0.7, metadata={"help": "Weibull shape k (> 0)"})
    repair_h: float = field(default=24.0, metadata={"help": "Repair time of a failed node (h)"})
    rack_mtbf_h: float = field(
        default=0.0, metadata={"help": "Mean time between whole-rack failures (h); 0 = none"}
    )
    checkpoint_interval_s: float | None = field(
        default=None,
        metadata={"help": "Work between checkpoints (s); empty = Young/Daly optimum"},
    )
    checkpoint_cost_s: float = field(
        default=60.0, metadata={"help": "Time one checkpoint takes (s)"}
    )
    spares_per_type: int = field(
        default=0, metadata={"help": "Nodes of each GPU type held in reserve as spares"}
    )
    spare_swap_s: float = field(
        default=600.0, metadata={"help": "Time to swap a spare in for a failed node (s)"}
    )
    type_mtbf: tuple[TypeMtbf, ...] = ()
    seed: int | None = field(
        default=None, metadata={"help": "Seed of the failure draws; empty = scenario seed"}
    )


FAILURE_DISTRIBUTIONS = ("exponential", "weibull")


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


def default_cluster() -> ClusterSpec:
    """512 GPUs of three types in 4 racks of 8-GPU nodes: 192 V100, 192 P100, 128 K80.

    Sized for the Philly traces, whose mean demand is about 374-445 busy GPUs (SOURCES.md).
    """
    return ClusterSpec(
        node_groups=(
            NodeGroup("v100", 12, 8, "rack0"),
            NodeGroup("v100", 12, 8, "rack1"),
            NodeGroup("p100", 24, 8, "rack2"),
            NodeGroup("k80", 16, 8, "rack3"),
        )
    )


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

    @property
    def effective_trace_seed(self) -> int:
        """The seed of the trace rng: ``trace_seed``, or ``seed`` when it is None."""
        return self.seed if self.trace_seed is None else self.trace_seed

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

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

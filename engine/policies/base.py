"""The policy contract and registry.

A policy maps a read-only :class:`SchedulerState` to an :data:`Allocation`: which jobs should hold
GPUs, of which worker type and how many. It never picks GPUs: a placement strategy does that, and
the engine validates capacity at that boundary on every decision (blox's split of scheduling
and placement).

- A *non-preemptive* policy (``preemptive = False``) returns grants for waiting jobs only; running
  jobs keep their GPUs until they finish.
- A *preemptive* policy returns the whole desired allocation; a running job missing from it (or
  granted another worker type) is preempted or migrated and pays the checkpoint-restore cost.
  Mid-round the engine only admits new jobs onto free GPUs (running jobs keep theirs whatever
  the allocation says, so a policy may return only the new starts); it applies preemptions at
  round boundaries, where leases end.

A grant is usually ``Grant(worker_type, num_gpus)``: a gang of one type that the placement
strategy puts on nodes. ``Grant.of_parts`` expresses what heterogeneity-aware policies need: parts
of several worker types, parts pinned to a node (``Part.node``), and how the parts make progress
together (``combine``: lockstep gang, proportional batch shares, Hare's relaxed tasks, or
HadarE's copies with a shared step counter; see :mod:`engine.step_time.progress`). A running job
keeps its
GPUs only when the new grant equals the one it runs under.

A policy that needs more than an allocation returns a :class:`Decision`: the allocation, a
``wake_at_s`` at which the engine asks it again though nothing arrives or completes (a delay
timer), and the jobs it holds back for a better consolidated placement (``consolidation_wait_s``
counts their wait). The engine reads the returned value and never pokes the policy's attributes.
It reads an allocation before it asks the policy again, so a policy may return a dict it keeps
and edits at its next decision (Tiresias LAS returns its held grants so, see
:mod:`engine.policies.las.fill`): a caller that keeps an allocation across decisions copies it.
Part, Grant, Allocation, Decision and the node layout live in :mod:`engine.allocation`; they are
re-exported here so a policy imports its whole contract from one module.

What the engine needs to know of a policy besides its answers, the policy declares as class
attributes of :class:`Policy` (each with a default; the engine reads them directly, never with
``getattr``): whether it is preemptive, re-decides at round boundaries or on events, needs
synced progress counters, models failures, honours the placement strategy, runs in Gavel's round
loop of leases under Gavel's rules (``lease_rounds``, :mod:`engine.lease_rounds`) and lets that
loop force a reallocation (``forces_reallocation``, then :meth:`Policy.force_reallocation`).

Register a policy by a call after its class body, ``POLICIES.register("fifo", Fifo)``
(:class:`engine.registry.Registry`, the same call in a module compiled with mypyc and in a plain
one), on a subclass with a frozen ``Params`` dataclass (nested, or module-level and assigned to
``Params``) whose fields carry ``metadata={"help": ...}``; the dashboard builds its forms from
them. A policy compiled with mypyc (:mod:`engine.native`; see :mod:`engine.policies.las`) passes
its docstring (``POLICIES.register("las", TiresiasLas, doc=...)``), since mypyc keeps no class
docstring, and declares its class attributes ``ClassVar``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import numpy as np

from engine.allocation.grants import COMBINE_MODES, Allocation, Decision, Grant, Part
from engine.allocation.layout import NodeInfo, NodeLayout
from engine.config import NetworkConfig
from engine.errors import ConfigError
from engine.policies.explain import Explanation
from engine.registry import Registry
from engine.sharing import SharingConfig
from engine.step_time.progress import NOISE_SCALE_RATIO
from engine.step_time.throughput import ThroughputMatrix, load_matrix

if TYPE_CHECKING:
    import pandas as pd

    from engine.config import ClusterSpec, PolicySpec, RoundConfig
    from engine.state import JobState
    from engine.step_time.estimator import StepTimeModel

__all__ = [  # the allocation types are re-exported: policies import them from here
    "COMBINE_MODES",
    "POLICY_GROUPS",
    "Allocation",
    "Decision",
    "Grant",
    "POLICIES",
    "NoParams",
    "NodeInfo",
    "Part",
    "Policy",
    "PolicyContext",
    "SchedulerState",
    "build_params",
    "describe",
    "display_name",
    "get_policy",
    "list_policies",
    "policy_display_name",
    "policy_group",
]


@dataclass(frozen=True)
class PolicyContext:
    """What a policy may know about the scenario when it is built.

    Attributes:
        cluster: the GPU mix.
        rounds: round, lease and reallocation settings.
        rng: the run's only random generator (seeded from the scenario's seed).
        network: bandwidths and congestion (default: :class:`engine.config.NetworkConfig`'s).
        matrix: the scenario's throughput matrix, extra worker types and uploaded tables
            included (default: Gavel's, :func:`engine.step_time.throughput.load_matrix`).
        layout: the cluster's nodes, built once from ``cluster``; the engine's cluster state
            and topology use this same layout.
        placement: the scenario's placement strategy (:mod:`engine.placement`), for policies
            that choose nodes through the placement layer.
        sharing: the scenario's sharing layer (:mod:`engine.sharing`; ``k`` = 1: exclusive GPUs).
        stage_rows: the trace's per-stage iteration times as in its file
            (:attr:`engine.traces.registry.Loaded.stage_rows`; None: the trace has none), read
            by a sharing policy with :func:`engine.sharing.stages.trace_stage_times`.
        trace_file: the trace's file name, for messages.
    """

    cluster: ClusterSpec
    rounds: RoundConfig
    rng: np.random.Generator
    network: NetworkConfig = field(default_factory=NetworkConfig)
    matrix: ThroughputMatrix = field(default_factory=load_matrix)
    placement: str = "consolidated"
    sharing: SharingConfig = field(default_factory=SharingConfig)
    stage_rows: pd.DataFrame | None = field(default=None, compare=False)
    trace_file: str = ""
    layout: NodeLayout = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "layout", NodeLayout.of(self.cluster))

    @property
    def nodes(self) -> tuple[NodeInfo, ...]:
        """The cluster's nodes in GPU-mix order (``layout.nodes``)."""
        return self.layout.nodes

    @functools.cached_property
    def step_time(self) -> StepTimeModel:
        """The engine's step-time model for "how fast would this job run here" (built once)."""
        from engine.step_time.estimator import StepTimeModel

        return StepTimeModel(self.nodes, self.network, self.matrix, self.rounds.round_duration_s)


class SchedulerState(NamedTuple):
    """Read-only view of the simulation at a decision point (a NamedTuple: the engine builds
    one per decision, and a tuple is built several times faster than a frozen dataclass).

    Attributes:
        now_s: simulated time (s).
        waiting: jobs that arrived and hold no GPUs, in the order they (re)entered the queue
            (a sized collection: the engine passes a dict's values).
        running: jobs holding GPUs (likewise).
        capacity: GPUs per worker type.
        free_gpus: unallocated GPUs per worker type.
        round_index: index of the current round (``now_s // round_duration_s``).
        arrived: jobs that arrived since the policy's previous call (all are in ``waiting``),
            for policies that keep their own queues incrementally.
        node_free_gpus: free GPUs per node, indexed like :attr:`PolicyContext.nodes`.
        stopped: jobs a failed node stopped since the policy's previous call (all are in
            ``waiting``; :mod:`engine.faults`), for policies that keep their own books of
            running jobs; empty when the scenario has no failures.
        completed: jobs that completed since the policy's previous call, for policies that
            keep their own books of running jobs (the quota layer's usage, :mod:`engine.quota`).
    """

    now_s: float
    waiting: Collection[JobState]
    running: Collection[JobState]
    capacity: Mapping[str, int]
    free_gpus: Mapping[str, int]
    round_index: int
    arrived: Sequence[JobState] = ()
    node_free_gpus: Sequence[int] = ()
    stopped: Sequence[JobState] = ()
    completed: Sequence[JobState] = ()

    def active(self) -> list[JobState]:
        """Waiting and running jobs, sorted by arrival then job index."""
        jobs = [*self.waiting, *self.running]
        jobs.sort(key=lambda j: (j.arrival_s, j.index))
        return jobs


@dataclass(frozen=True)
class NoParams:
    """The knobs of a policy that has none (:attr:`Policy.Params`' default)."""


class Policy(ABC):
    """Base class of every scheduling policy.

    Attributes:
        name: registry name.
        display_name: the readable name shown everywhere (e.g. "Tiresias LAS" for ``las``).
        group: one of :data:`POLICY_GROUPS`, for the dashboard's grouped picker.
        preemptive: whether allocate() returns the whole allocation (see module docstring).
        uses_rounds: whether the policy re-decides at every round boundary.
        replans_on_events: whether a round-based policy also re-decides in full (preemptions
            included) at every arrival and completion, not only at round boundaries (a
            policy that dispatches whenever a GPU falls idle, like Hare's HLAS).
        needs_sync: whether running jobs' progress counters must be current before a full
            decision (True unless the policy reads them itself from ``last_update_s``).
        Params: frozen dataclass of the policy's knobs: a class nested in the policy's body,
            or a module-level one assigned to it (``Params: ClassVar[type[LasParams]] =
            LasParams`` in a module compiled with mypyc, which compiles no nested class).
        switch_cost_s: seconds of lost progress when a job starts again or its GPUs change;
            None means the scenario's checkpoint-restore cost. A policy whose paper models a
            cheaper switch (e.g. Hare's task switch) sets it in ``__init__``.
        consolidation_fixed_s: fixed part of the model consolidation that ``copies`` grants
            pay at every round end and when the job's last step is done (the rest is gradient
            transfer; see :mod:`engine.step_time.progress`).
        noise_scale_ratio: gradient noise scale over a job's requested global batch, which sets
            the statistical efficiency of a job granted more GPUs than its scale factor
            (:func:`engine.step_time.progress.statistical_efficiency`); an elastic policy exposes
            it as a
            knob.
        models_failures: whether the policy runs with node failures on
            (:class:`engine.config.FailureConfig`): its decisions read the live capacity
            (``SchedulerState.capacity`` less the failed nodes' GPUs) and it takes the jobs
            in ``SchedulerState.stopped`` back into its queues.
        honours_placement: whether the scenario's placement strategy decides the nodes; False
            for a method that pins nodes itself, with ``placement_note`` saying why (the
            dashboard shows it).
        lease_rounds: whether the policy runs in Gavel's round loop of leases (micro-tasks,
            :mod:`engine.lease_rounds`) when the scenario asks for Gavel's simulator rules
            (:attr:`engine.config.RoundConfig.gavel_rules`); every other run, and every policy
            without it, runs in the engine's event loop (:mod:`engine.event_loop`).
        forces_reallocation: whether Gavel's round loop, finding nothing running, nothing
            left to arrive and jobs waiting, may make the policy re-solve once
            (:meth:`force_reallocation`) before it stops the run with an error (Gavel's
            simulator does so).
        honours_quotas: whether the policy runs under teams' quotas (:mod:`engine.quota`):
            the quota layer then admits each ClusterQueue's jobs in the order of
            :meth:`quota_order_key` (after Kueue's priority), and decides worker types and
            preemptions itself.
        cost_s_per_job: seconds of one core per job on the 2,000-job Philly sample under the
            default scenario (``benchmarks/bench_select_all.py``, the project's 2-core machine,
            November 2026); the dashboard starts the costliest runs first
            (:mod:`dashboard.run_order`). 0: not measured (taken as the median).
        shares_gpus: whether the policy may put several jobs on the same GPUs when the
            scenario's sharing layer allows it (``ScenarioConfig.sharing``, :mod:`engine.sharing`:
            grants with a ``host``); a scenario with ``sharing.k`` > 1 refuses every other policy.
        explanation: how the policy explains its decisions after a run: its rule in a sentence
            and each job's ranking key at a moment, read from the run's records
            (:class:`engine.policies.explain.Explanation`; the default says neither). The
            dashboard's words are made from it, so a new policy needs no dashboard edit.
    """

    name: ClassVar[str] = ""
    display_name: ClassVar[str] = ""
    group: ClassVar[str] = ""
    preemptive: ClassVar[bool] = False
    uses_rounds: ClassVar[bool] = False
    replans_on_events: ClassVar[bool] = False
    needs_sync: ClassVar[bool] = True
    honours_placement: ClassVar[bool] = True
    models_failures: ClassVar[bool] = False
    placement_note: ClassVar[str] = ""
    lease_rounds: ClassVar[bool] = False
    forces_reallocation: ClassVar[bool] = False
    honours_quotas: ClassVar[bool] = False
    shares_gpus: ClassVar[bool] = False
    cost_s_per_job: ClassVar[float] = 0.0

    Params: ClassVar[type[Any]] = NoParams
    explanation: ClassVar[type[Explanation]] = Explanation

    def __init__(self, params: Any, context: PolicyContext) -> None:
        self.params = params
        self.context = context
        self.switch_cost_s: float | None = None
        self.consolidation_fixed_s = 0.0
        self.noise_scale_ratio = NOISE_SCALE_RATIO

    @abstractmethod
    def allocate(self, state: SchedulerState) -> Allocation | Decision:
        """Returns the allocation for the coming lease (see module docstring), or a
        :class:`Decision` carrying it with a wake-up time and the jobs held back."""

    def quota_order_key(self, job: JobState) -> float:
        """A waiting job's place in its ClusterQueue under quotas, smaller first (ties: arrival,
        then index); read when the job (re)enters the queue. FIFO's is 0 (arrival decides)."""
        return 0.0

    def force_reallocation(self) -> None:  # noqa: B027  (a hook with nothing to do by default)
        """Makes the next :meth:`allocate` re-solve (Gavel's forced reallocation); called by
        Gavel's round loop only on a policy that declares ``forces_reallocation``."""


class PolicyRegistry(Registry[type[Policy]]):
    """The policy registry: :meth:`register` also names the class (``Policy.name``)."""

    def register(self, name: str, entry: type[Policy], doc: str = "") -> type[Policy]:
        """Adds policy class ``entry`` under ``name``; ``doc``, when given, becomes its
        docstring (a class compiled with mypyc keeps none of its own).

        Raises:
            ValueError: ``name`` is taken.
        """
        super().register(name, entry)
        entry.name = name
        if doc:
            entry.__doc__ = doc
        return entry


POLICIES = PolicyRegistry("policy")
"""Every policy class by registry name (filled by importing :mod:`engine.policies`)."""

POLICY_GROUPS = ("Baselines", "Gavel", "Seed papers", "Network-aware", "Shared GPUs", "Other")
"""Picker groups, in display order; a policy that names no group is under "Other"."""


def display_name(spec: PolicySpec) -> str:
    """What a policy of a scenario is called everywhere (results, tables, charts): the spec's
    label, else the readable name its class declares (e.g. "Tiresias LAS"), else its registry
    name (an unknown name is reported where the scenario is checked)."""
    if spec.label:
        return spec.label
    return policy_display_name(spec.name) if spec.name in POLICIES else spec.name


def policy_display_name(name: str) -> str:
    """The readable name a policy class declares (its registry name if none).

    Raises:
        ConfigError: if no policy has that name (lists the known ones).
    """
    return POLICIES.get(name).display_name or name


def policy_group(name: str) -> str:
    """The picker group a policy class declares (one of :data:`POLICY_GROUPS`)."""
    group = POLICIES.get(name).group
    return group if group in POLICY_GROUPS else "Other"


def list_policies() -> list[str]:
    """Registered policy names, sorted."""
    return sorted(POLICIES.names())


def get_policy(name: str) -> type[Policy]:
    """The policy class registered as ``name``.

    Raises:
        ConfigError: if no policy has that name (lists the known ones).
    """
    return POLICIES.get(name)


def describe(cls: type[Policy]) -> str:
    """First paragraph of the policy's docstring, for pickers and help text."""
    doc = (cls.__doc__ or cls.name).strip()
    return " ".join(doc.split("\n\n")[0].split())


def build_params(cls: type[Policy], overrides: Mapping[str, Any]) -> Any:
    """The policy's Params with ``overrides`` applied.

    Raises:
        ConfigError: for an unknown parameter name or a value of the wrong type.
    """
    fields = {f.name: f for f in dataclasses.fields(cls.Params)}
    unknown = sorted(set(overrides) - set(fields))
    if unknown:
        raise ConfigError(
            f"policy {cls.name!r}: unknown parameter(s) {_short(unknown)}; known: {sorted(fields)}"
        )
    defaults = cls.Params()
    values = {}
    for key, value in overrides.items():
        expected = type(getattr(defaults, key))
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"policy {cls.name!r}: parameter {key!r} must be a finite number")
        if not isinstance(value, expected) or (expected is not bool and isinstance(value, bool)):
            raise ConfigError(
                f"policy {cls.name!r}: parameter {key!r} expects {expected.__name__}, "
                f"got {_short(value)}"
            )
        choices = fields[key].metadata.get("choices")
        if choices and value not in choices:
            raise ConfigError(
                f"policy {cls.name!r}: parameter {key!r} is one of {list(choices)}, "
                f"got {_short(value)}"
            )
        values[key] = value
    return dataclasses.replace(defaults, **values)


def _short(value: Any) -> str:
    """``repr(value)`` cut to 60 characters (a crafted link may send a long one)."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."

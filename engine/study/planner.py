"""The capacity planner: the cheapest GPU mix whose metric meets a target at a stated
confidence, today's cluster as the reference, and the cost/metric Pareto front of every mix
evaluated.

A *mix* is a node count per candidate worker type. Its cost is
``sum(nodes x gpus_per_node x price)`` USD per hour. Today's cluster (the base scenario's
cluster spec) is simulated as it stands; any other mix puts each type's nodes in racks of the
size today's cluster gives that type (its largest node group; one rack for a type today's
cluster lacks) [R: our layout rule; the planner does not place racks]. A mix *meets* the target
when the one-sided bound of the metric's mean over seeds at ``confidence`` is on the right side
of the target (`engine.study.planner_target`). The search is
:func:`engine.study.planner_search.search`; every mix runs on the same seeds first, with the same
trace draws, so mixes are compared on the same jobs.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from engine.config import ClusterSpec, NodeGroup, ScenarioConfig
from engine.errors import ConfigError
from engine.sources import Origin
from engine.study.executors import WorkerLimits
from engine.study.planner_target import TARGET_METRICS, Target, gpu_name
from engine.study.traces import TraceStore

__all__ = [
    "TARGET_METRICS", "Candidate", "Mix", "PlanResult", "PlanSpec", "pareto_front", "plan",
]  # fmt: skip

Mix = tuple[int, ...]  # nodes per candidate, in PlanSpec.candidates order
PLAN_KEYS = ("base", "candidates", "target_metric", "target_value", "seeds", "max_simulations",
             "confidence", "max_seeds", "start_within_s", "search_trials")  # fmt: skip


@dataclass(frozen=True)
class Candidate:
    """A worker type the planner may buy: price, node-count bounds and node size."""

    worker_type: str
    price_usd_per_gpu_h: float
    max_nodes: int
    gpus_per_node: int = 8
    min_nodes: int = 0


@dataclass(frozen=True)
class PlanSpec:
    """What to plan.

    Attributes:
        base: the scenario (trace, network, rounds, exactly one policy); its cluster is today's
            cluster, the reference; the planner's mixes replace it.
        candidates: the worker types to choose from, each between its min and max node count.
        target_metric: one of :data:`TARGET_METRICS`.
        target_value: seconds for a duration target; a fraction (0.95) for
            ``start_within_share``, the share of jobs that must start within ``start_within_s``.
        seeds: every mix runs on these seeds first (trace seed = simulation seed = s).
        max_simulations: the search stops before a batch that would run more (default 600).
        confidence: the one-sided confidence of "meets" (0.95; 0.5 decides on the mean).
        max_seeds: a mix whose interval straddles the target gets more seeds, up to this many.
        start_within_s: T of the ``start_within_share`` target (default one hour).
        search_trials: mixes proposed by the sampler (default 48), besides the starts and the
            neighbourhood check.
    """

    base: ScenarioConfig
    candidates: tuple[Candidate, ...]
    target_metric: str
    target_value: float
    seeds: tuple[int, ...] = (0, 1, 2)
    max_simulations: int = 600
    confidence: float = 0.95
    max_seeds: int = 10
    start_within_s: float = 3600.0
    search_trials: int = 48

    def __post_init__(self) -> None:
        if self.target_metric not in TARGET_METRICS:
            raise ConfigError(f"target_metric must be one of {TARGET_METRICS}")
        if len(self.base.policies) != 1:
            raise ConfigError("the planner runs exactly one policy; pick one")
        if not self.candidates or not self.seeds:
            raise ConfigError("the planner needs at least one candidate type and one seed")
        if len(set(self.seeds)) != len(self.seeds):
            raise ConfigError(f"seeds repeat: {list(self.seeds)}")
        types = [c.worker_type for c in self.candidates]
        if len(set(types)) != len(types):
            raise ConfigError(f"candidate worker types repeat: {types}")
        for i, c in enumerate(self.candidates, start=1):
            if not (0 <= c.min_nodes <= c.max_nodes and c.max_nodes >= 1 and c.gpus_per_node >= 1
                    and c.price_usd_per_gpu_h >= 0):  # fmt: skip
                raise ConfigError(
                    f"candidate {i} ({c.worker_type}): need 0 <= min_nodes <= max_nodes, "
                    "max_nodes >= 1, gpus_per_node >= 1 and a price >= 0"
                )
        if not 0.5 <= self.confidence < 1:
            raise ConfigError(f"confidence must be in [0.5, 1), got {self.confidence}")
        if self.confidence > 0.5 and self.max_seeds < 2:
            raise ConfigError("a confidence above 50% needs max_seeds >= 2 (a bound needs 2 seeds)")
        if self.max_seeds < len(self.seeds) or self.search_trials < 0:
            raise ConfigError("max_seeds must be >= the number of seeds; search_trials >= 0")
        self.target  # validates the value  # noqa: B018

    @property
    def target(self) -> Target:
        return Target(self.target_metric, self.target_value, self.start_within_s)

    def today_mix(self) -> Mix | None:
        """Today's cluster as a mix, or None when it holds a type that is not a candidate or
        nodes of another size than the candidate's."""
        counts = {c.worker_type: 0 for c in self.candidates}
        size = {c.worker_type: c.gpus_per_node for c in self.candidates}
        for g in self.base.cluster.node_groups:
            if size.get(g.worker_type) != g.gpus_per_node:
                return None
            counts[g.worker_type] += g.nodes
        return tuple(counts.values())

    def in_bounds(self, mix: Mix) -> bool:
        return any(mix) and all(
            c.min_nodes <= n <= c.max_nodes for c, n in zip(self.candidates, mix, strict=True)
        )

    def cluster(self, mix: Mix) -> ClusterSpec:
        """The mix as a cluster spec: today's cluster for today's mix, else each type in racks
        of today's size for that type (types with zero nodes left out)."""
        if mix == self.today_mix():
            return self.base.cluster
        groups = []
        for c, n in zip(self.candidates, mix, strict=True):
            rack = max((g.nodes for g in self.base.cluster.node_groups
                        if g.worker_type == c.worker_type), default=n)  # fmt: skip
            for k, start in enumerate(range(0, n, max(rack, 1)), start=1):
                nodes = min(rack, n - start)
                groups.append(NodeGroup(c.worker_type, nodes, c.gpus_per_node,
                                        f"rack-{c.worker_type}-{k}"))  # fmt: skip
        return ClusterSpec(tuple(groups))

    def cost_usd_per_h(self, mix: Mix) -> float:
        return sum(
            n * c.gpus_per_node * c.price_usd_per_gpu_h
            for c, n in zip(self.candidates, mix, strict=True)
        )

    def label(self, mix: Mix) -> str:
        """E.g. ``"24 V100 + 24 P100 + 16 K80 nodes"`` (types with no node left out)."""
        parts = [f"{n} {gpu_name(c.worker_type)}"
                 for c, n in zip(self.candidates, mix, strict=True) if n]  # fmt: skip
        return " + ".join(parts) + " nodes" if parts else "no nodes"

    def key(self, trace_hash: str = "") -> str:
        """SHA-256 of what decides the search's answers (not the budget), naming the stored
        Optuna study, so a re-plan of the same question resumes it."""
        from engine.study.spec import engine_digest

        data = self.to_dict()
        data.pop("max_simulations")
        data.update(trace_hash=trace_hash, engine=engine_digest())
        text = json.dumps(data, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in PLAN_KEYS}
        data["base"] = self.base.to_dict()
        data["candidates"] = [dataclasses.asdict(c) for c in self.candidates]
        data["seeds"] = list(self.seeds)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], origin: Origin = Origin.SHARED) -> PlanSpec:
        """From plan.json: base, candidates, target_metric, target_value and the optional
        fields of the class (seeds, max_simulations, confidence, ...). ``origin``: whether the
        base may name local files (:mod:`engine.sources`).

        Raises:
            ConfigError: naming the bad key.
        """
        unknown = sorted(set(data) - set(PLAN_KEYS))
        if unknown:
            raise ConfigError(f"plan: unknown key(s) {unknown}; allowed: {sorted(PLAN_KEYS)}")
        try:
            candidates = tuple(Candidate(**c) for c in data["candidates"])
            optional = {k: data[k] for k in PLAN_KEYS[5:] if k in data}
            return cls(
                ScenarioConfig.from_dict(dict(data.get("base", {})), origin), candidates,
                str(data["target_metric"]), float(data["target_value"]),
                tuple(int(s) for s in data.get("seeds", [0, 1, 2])), **optional,
            )  # fmt: skip
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"plan: {exc!r}") from exc

    @classmethod
    def from_json(cls, text: str, origin: Origin = Origin.SHARED) -> PlanSpec:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"plan JSON is not valid JSON: {exc}") from exc
        except RecursionError as exc:
            raise ConfigError("plan JSON is nested too deeply") from exc
        if not isinstance(data, dict):
            raise ConfigError("plan JSON must be an object")
        return cls.from_dict(data, origin)


@dataclass(frozen=True)
class PlanResult:
    """The planner's answer.

    Attributes:
        tried: one row per cluster evaluated: mix (in words), ``nodes:<type>`` per candidate,
            cost_usd_per_h, seeds (how many), mean, ci_low, ci_high (the target metric's mean
            and 95% interval over seeds, `engine.study.stats.mean_ci`; seconds, or a fraction
            for the share target), bound (the one-sided bound at the spec's confidence), meets,
            today (True for today's cluster), phase ("today" | "start" | "search" | "refine"),
            error (why the policy could not run the mix, else "").
        pareto: the rows no other row beats or equals on both cost and mean (cost ascending).
        today: today's cluster's row (always evaluated, the reference; empty only if the
            budget stopped the plan before it).
        chosen: the cheapest cluster evaluated that meets the target (None if none did).
        chosen_row: its row of ``tried`` (None if none).
        explanation: the search in plain words (hours, USD/h, GPU names).
        num_simulations: simulations run (stored runs reused are not counted).
    """

    spec: PlanSpec
    tried: pd.DataFrame
    pareto: pd.DataFrame
    today: Mapping[str, Any]
    chosen: ClusterSpec | None
    chosen_row: Mapping[str, Any] | None
    explanation: list[str] = field(default_factory=list)
    num_simulations: int = 0

    @property
    def chosen_scenario(self) -> ScenarioConfig | None:
        """The base scenario with the chosen mix as its cluster (to load in the dashboard)."""
        if self.chosen is None:
            return None
        return dataclasses.replace(self.spec.base, cluster=self.chosen)


def pareto_front(tried: pd.DataFrame, lower_is_better: bool = True) -> pd.DataFrame:
    """Rows of ``tried`` with a finite mean that no cheaper-or-equal row beats or equals on
    the mean, sorted by cost."""
    sign = 1.0 if lower_is_better else -1.0
    rows = tried[tried["mean"].notna()].assign(_m=lambda t: sign * t["mean"])
    rows = rows.sort_values(["cost_usd_per_h", "_m"], kind="mergesort")
    best = math.inf
    keep = []
    for index, value in rows["_m"].items():
        if value < best:
            keep.append(index)
            best = value
    return rows.loc[keep].drop(columns="_m").reset_index(drop=True)


PlanProgressFn = Callable[[int, str], None]  # (simulations so far, what the search is doing)


def plan(
    spec: PlanSpec,
    *,
    executor: str = "pool",
    workers: int | None = None,
    ray_address: str | None = None,
    results_dir: Path | str | None = None,
    on_progress: PlanProgressFn | None = None,
    should_cancel: Callable[[], bool] | None = None,
    traces: TraceStore | None = None,
    trace_hash: str = "",
    limits: WorkerLimits | None = None,
) -> PlanResult:
    """Finds the cheapest mix meeting the target (see :mod:`engine.study.planner_search`).

    Args:
        spec: the question.
        executor, workers, ray_address, should_cancel, limits: as for
            :func:`engine.study.run.run_study`; the answer does not depend on them.
        results_dir: the run store: finished runs are kept there, and the search (an Optuna
            study, ``<results_dir>/planner/<spec key>.journal``), so a re-plan resumes; None
            keeps nothing.
        on_progress: called with (simulations so far, a line of the explanation).
        traces, trace_hash: the trace store and hash of an ``"upload:"`` trace source.

    Raises:
        ConfigError, TraceError: for a bad spec or trace.
        SimulationCancelled: on cancel (finished runs and trials stay stored).
    """
    from engine.study.executors import open_pool
    from engine.study.planner_eval import Evaluator
    from engine.study.planner_search import search

    evaluator = Evaluator(spec, executor, workers, ray_address, results_dir, should_cancel, limits)
    evaluator.use_trace(traces, trace_hash)
    journal = None
    if results_dir is not None:
        journal = Path(results_dir) / "planner" / f"{spec.key(evaluator.digest)}.journal"
    with open_pool(executor, workers, limits) as pool:  # one pool for all search batches
        evaluator.pool = pool
        return search(spec, evaluator, journal, on_progress)

"""The capacity planner: the cheapest GPU mix whose metric meets a target, and the cost/metric
Pareto front of the mixes it tried.

A *mix* is a node count per candidate worker type; each type's nodes sit in their own rack
(``rack-<type>``) [R: our layout; the planner does not place racks]. Its cost is
``sum(nodes x gpus_per_node x price)`` USD per hour. A mix *meets* the target when the mean of
the metric over the seeds is at most the target value (the interval is reported beside it).
The search is :func:`engine.study.planner_search.search`; every mix is simulated on the same
seeds, with the same trace draws, so mixes are compared on the same jobs.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from engine.config import ClusterSpec, NodeGroup, ScenarioConfig
from engine.errors import ConfigError
from engine.sources import Origin
from engine.study.executors import WorkerLimits
from engine.study.traces import TraceStore

TARGET_METRICS = ("jct_mean_s", "jct_p95_s", "queueing_delay_mean_s")
Mix = tuple[int, ...]  # nodes per candidate, in PlanSpec.candidates order


@dataclass(frozen=True)
class Candidate:
    """A worker type the planner may buy: price, upper bound and node size."""

    worker_type: str
    price_usd_per_gpu_h: float
    max_nodes: int
    gpus_per_node: int = 8


@dataclass(frozen=True)
class PlanSpec:
    """What to plan.

    Attributes:
        base: the scenario (trace, network, rounds, exactly one policy); its cluster is replaced.
        candidates: the worker types to choose from.
        target_metric: one of :data:`TARGET_METRICS`.
        target_value: the metric must be at most this (seconds).
        seeds: each mix runs once per seed (trace seed = simulation seed = s).
        max_simulations: the search stops when it would run more (default 600).
    """

    base: ScenarioConfig
    candidates: tuple[Candidate, ...]
    target_metric: str
    target_value: float
    seeds: tuple[int, ...] = (0, 1, 2)
    max_simulations: int = 600

    def __post_init__(self) -> None:
        if self.target_metric not in TARGET_METRICS:
            raise ConfigError(f"target_metric must be one of {TARGET_METRICS}")
        if len(self.base.policies) != 1:
            raise ConfigError("the planner runs exactly one policy; pick one")
        if not self.candidates or not self.seeds:
            raise ConfigError("the planner needs at least one candidate type and one seed")
        types = [c.worker_type for c in self.candidates]
        if len(set(types)) != len(types):
            raise ConfigError(f"candidate worker types repeat: {types}")
        for i, c in enumerate(self.candidates, start=1):
            if c.max_nodes < 1 or c.gpus_per_node < 1 or not c.price_usd_per_gpu_h >= 0:
                raise ConfigError(
                    f"candidate {i} ({c.worker_type}): max_nodes and gpus_per_node must be "
                    ">= 1 and the price >= 0"
                )

    def cluster(self, mix: Mix) -> ClusterSpec:
        """The GPU mix as a cluster spec (types with zero nodes left out)."""
        groups = tuple(
            NodeGroup(c.worker_type, n, c.gpus_per_node, f"rack-{c.worker_type}")
            for c, n in zip(self.candidates, mix, strict=True)
            if n > 0
        )
        return ClusterSpec(groups)

    def cost_usd_per_h(self, mix: Mix) -> float:
        return sum(
            n * c.gpus_per_node * c.price_usd_per_gpu_h
            for c, n in zip(self.candidates, mix, strict=True)
        )

    def label(self, mix: Mix) -> str:
        """E.g. ``"3 v100 + 0 k80 nodes"``."""
        parts = [f"{n} {c.worker_type}" for c, n in zip(self.candidates, mix, strict=True)]
        return " + ".join(parts) + " nodes"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], origin: Origin = Origin.SHARED) -> PlanSpec:
        """From plan.json: base, candidates, target_metric, target_value, seeds[,
        max_simulations]. ``origin``: whether the base may name local files
        (:mod:`engine.sources`).

        Raises:
            ConfigError: naming the bad key.
        """
        allowed = {"base", "candidates", "target_metric", "target_value", "seeds",
                   "max_simulations"}  # fmt: skip
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise ConfigError(f"plan: unknown key(s) {unknown}; allowed: {sorted(allowed)}")
        try:
            candidates = tuple(Candidate(**c) for c in data["candidates"])
            return cls(
                ScenarioConfig.from_dict(dict(data.get("base", {})), origin), candidates,
                str(data["target_metric"]), float(data["target_value"]),
                tuple(int(s) for s in data.get("seeds", [0, 1, 2])),
                int(data.get("max_simulations", 600)),
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
        tried: one row per mix evaluated: mix (label), ``nodes:<type>`` per candidate,
            cost_usd_per_h, n, mean, ci_low, ci_high (the target metric over seeds), feasible
            (meets the target), phase ("start" | "grow" | "refine"), step (search step),
            error (why the policy could not run the mix, else "").
        pareto: the tried mixes no other tried mix beats on both cost and mean (cost ascending).
        chosen: the cheapest feasible mix found, as a cluster; None if none met the target.
        explanation: the search, step by step, in words.
        num_simulations: simulations run (stored runs reused are not counted).
    """

    spec: PlanSpec
    tried: pd.DataFrame
    pareto: pd.DataFrame
    chosen: ClusterSpec | None
    explanation: list[str] = field(default_factory=list)
    num_simulations: int = 0

    @property
    def chosen_scenario(self) -> ScenarioConfig | None:
        """The base scenario with the chosen mix as its cluster (to load in the dashboard)."""
        if self.chosen is None:
            return None
        return dataclasses.replace(self.spec.base, cluster=self.chosen)


def pareto_front(tried: pd.DataFrame) -> pd.DataFrame:
    """Rows of ``tried`` with a finite mean that no cheaper-or-equal row beats or equals on
    the mean, sorted by cost."""
    rows = tried[tried["mean"].notna()].sort_values(["cost_usd_per_h", "mean"], kind="mergesort")
    best = float("inf")
    keep = []
    for index, row in rows.iterrows():
        if row["mean"] < best:
            keep.append(index)
            best = row["mean"]
    return rows.loc[keep].reset_index(drop=True)


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
        executor, workers, ray_address, results_dir, should_cancel, limits: as
            for :func:`engine.study.run.run_study`.
        on_progress: called with (simulations so far, a line of the explanation).
        traces, trace_hash: the trace store and hash of an ``"upload:"`` trace source.

    Raises:
        ConfigError, TraceError: for a bad spec or trace.
        SimulationCancelled: on cancel.
    """
    from engine.study.planner_eval import Evaluator
    from engine.study.planner_search import search

    evaluator = Evaluator(spec, executor, workers, ray_address, results_dir, should_cancel, limits)
    evaluator.use_trace(traces, trace_hash)
    return search(spec, evaluator, on_progress)

"""The planner's question: a candidate GPU type, a mix and :class:`PlanSpec` (its checks, the
mix's cluster, cost and words, its JSON), shared by the entry point (`engine.study.planner`), the
evaluator (`engine.study.planner_eval`), the search (`engine.study.planner_search`) and the
answer (`engine.study.planner_result`), which import it from here.

A *mix* is a node count per candidate worker type, followed, when the plan searches spare nodes
(``PlanSpec.max_spares > 0``, failures on), by the spare nodes held per GPU type
(`engine.config.FailureConfig.spares_per_type`). Its cost is
``sum((nodes + spares) x gpus_per_node x price)`` USD per hour over the types the mix holds
(spares are bought like the nodes they replace). Today's cluster (the base scenario's cluster
spec) is simulated as it stands; any other mix puts each type's nodes (and its spares) in racks
of the size today's cluster gives that type (its largest node group; one rack for a type
today's cluster lacks) [R: our layout rule; the planner does not place racks].
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.config import ClusterSpec, NodeGroup, ScenarioConfig, json_object
from engine.errors import ConfigError
from engine.quota.defaults import scaled_queues
from engine.sources import Origin
from engine.study.planner_target import TARGET_METRICS, Target, gpu_name
from engine.study.spec import engine_digest
from engine.validate import validate_failures

Mix = tuple[int, ...]  # nodes per candidate (PlanSpec.candidates order), then spares if searched
PLAN_KEYS = ("base", "candidates", "target_metric", "target_value", "seeds", "max_simulations",
             "confidence", "max_seeds", "start_within_s", "search_trials",
             "max_spares")  # fmt: skip


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
        max_spares: the most spare nodes per GPU type the search may hold (0, the default: no
            spares dimension, the base scenario's ``failures.spares_per_type`` is taken from
            each mix as before). Above 0 it needs failures on; the mix then ends with a spare
            count held for every GPU type it holds, bought on top of its nodes.
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
    max_spares: int = 0

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
        self._check_failures()

    def _check_failures(self) -> None:
        """The spares bound, and the base scenario's failure settings when failures are on
        (`engine.validate.validate_failures`: times, spares, a policy that models failures).

        Raises:
            ConfigError: naming the field (``max_spares``, ``failures.<name>``) or the policy.
        """
        if self.max_spares < 0:
            raise ConfigError(f"max_spares must be >= 0 spare nodes per GPU type, got "
                              f"{self.max_spares}")  # fmt: skip
        if self.max_spares and not self.base.failures.enabled:
            raise ConfigError(
                f"max_spares: {self.max_spares} spare node(s) per GPU type only matter with "
                "failures on (base.failures.enabled); turn failures on or set max_spares to 0"
            )
        largest = max(c.max_nodes for c in self.candidates)
        if self.max_spares > largest:
            raise ConfigError(
                f"max_spares: {self.max_spares} spare nodes per GPU type is more than any "
                f"candidate's max_nodes ({largest})"
            )
        if self.base.failures.enabled:
            validate_failures(self.base)

    @property
    def searches_spares(self) -> bool:
        """True when the mix has a spares dimension (``max_spares > 0``)."""
        return self.max_spares > 0

    def nodes(self, mix: Mix) -> Mix:
        """The node counts of a mix, one per candidate (without its spares)."""
        return mix[: len(self.candidates)]

    def spares(self, mix: Mix) -> int:
        """Spare nodes per GPU type of a mix: its own with a spares dimension, else the base
        scenario's (taken from the mix's nodes)."""
        if self.searches_spares:
            return mix[len(self.candidates)]
        return self.base.failures.spares_per_type if self.base.failures.enabled else 0

    def scenario(self, mix: Mix | None) -> ScenarioConfig:
        """The base scenario with the mix as its cluster (and its spares); today's for None."""
        if mix is None:
            return self.base
        return self.with_cluster(self.cluster(mix), self.spares(mix))

    def with_cluster(self, cluster: ClusterSpec, spares: int) -> ScenarioConfig:
        """The base scenario with ``cluster``, holding ``spares`` spare nodes per GPU type when
        the plan searches spares (else the base scenario's failure settings); with teams, their
        quotas rescaled to the mix (:func:`engine.quota.defaults.scaled_queues`)."""
        scenario = dataclasses.replace(self.base, cluster=cluster)
        if self.base.queues is not None:  # the teams keep their shares of the new mix
            queues = scaled_queues(self.base.queues, cluster.capacity())
            scenario = dataclasses.replace(scenario, queues=queues)
        if not self.searches_spares:
            return scenario
        failures = dataclasses.replace(self.base.failures, spares_per_type=spares)
        return dataclasses.replace(scenario, failures=failures)

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
        if not self.searches_spares:
            return tuple(counts.values())
        spares = self.base.failures.spares_per_type
        return (*(n - spares if n else 0 for n in counts.values()), spares)

    def in_bounds(self, mix: Mix) -> bool:
        nodes = self.nodes(mix)
        spares_ok = not self.searches_spares or 0 <= self.spares(mix) <= self.max_spares
        return (
            spares_ok
            and any(nodes)
            and all(
                c.min_nodes <= n <= c.max_nodes for c, n in zip(self.candidates, nodes, strict=True)
            )
        )

    def bought(self, mix: Mix) -> list[tuple[Candidate, int]]:
        """Nodes bought per candidate: the mix's nodes and, when the plan searches spares, its
        spares on top for every type the mix holds."""
        extra = self.spares(mix) if self.searches_spares else 0
        return [(c, n + extra if n else 0) for c, n in zip(self.candidates, self.nodes(mix),
                                                             strict=True)]  # fmt: skip

    def cluster(self, mix: Mix) -> ClusterSpec:
        """The mix as a cluster spec: today's cluster for today's mix, else each type's bought
        nodes in racks of today's size for that type (types with zero nodes left out)."""
        if mix == self.today_mix():
            return self.base.cluster
        groups = []
        for c, n in self.bought(mix):
            rack = max((g.nodes for g in self.base.cluster.node_groups
                        if g.worker_type == c.worker_type), default=n)  # fmt: skip
            for k, start in enumerate(range(0, n, max(rack, 1)), start=1):
                nodes = min(rack, n - start)
                groups.append(NodeGroup(c.worker_type, nodes, c.gpus_per_node,
                                        f"rack-{c.worker_type}-{k}"))  # fmt: skip
        return ClusterSpec(tuple(groups))

    def cost_usd_per_h(self, mix: Mix) -> float:
        """USD/h of the mix's bought nodes (:meth:`bought`: spares are bought too)."""
        return sum(n * c.gpus_per_node * c.price_usd_per_gpu_h for c, n in self.bought(mix))

    def label(self, mix: Mix) -> str:
        """E.g. ``"24 V100 + 24 P100 + 16 K80 nodes"`` (types with no node left out), with
        ``" + 2 spares per type"`` when the plan searches spares."""
        parts = [f"{n} {gpu_name(c.worker_type)}"
                 for c, n in zip(self.candidates, self.nodes(mix), strict=True) if n]  # fmt: skip
        words = " + ".join(parts) + " nodes" if parts else "no nodes"
        return words + spares_words(self.spares(mix)) if self.searches_spares else words

    def key(self, trace_hash: str = "") -> str:
        """SHA-256 of what decides the search's answers (not the budget), naming the stored
        Optuna study, so a re-plan of the same question resumes it."""
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
        if not self.max_spares:
            del data["max_spares"]  # a plan without spares keeps its key (and its answers)
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
        return cls.from_dict(json_object(text, "plan"), origin)


def spares_words(spares: int) -> str:
    """``" + 2 spares per type"``, ``" + 1 spare per type"``, ``", no spares"``."""
    if not spares:
        return ", no spares"
    return f" + {spares} spare{'s' if spares != 1 else ''} per type"

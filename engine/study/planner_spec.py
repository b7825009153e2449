"""The planner's question: a candidate GPU type, a mix and :class:`PlanSpec` (its checks, the
mix's cluster, cost and words, its JSON), shared by the entry point (`engine.study.planner`), the
evaluator (`engine.study.planner_eval`), the search (`engine.study.planner_search`) and the
answer (`engine.study.planner_result`), which import it from here.

A *mix* is a node count per candidate worker type, followed, when the plan searches spare nodes
(failures on), by the spare nodes held of each candidate type whose spares bound
(:meth:`PlanSpec.spare_bounds`: ``Candidate.max_spares``, else the plan's single
``max_spares``) is above 0 (`engine.config.FailureConfig.type_spares`); a type the mix holds no
node of holds no spare. Its cost is ``sum((nodes + spares) x gpus_per_node x price)`` USD per
hour over the types the mix holds (spares are bought like the nodes they replace). Today's
cluster (the base scenario's cluster spec) is simulated as it stands; any other mix puts each
type's nodes (and its spares) in racks of the size today's cluster gives that type (its largest
node group; one rack for a type today's cluster lacks) [R: our layout rule; the planner does
not place racks].
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.config import ClusterSpec, NodeGroup, ScenarioConfig, TypeSpares, json_object, spares_of
from engine.errors import ConfigError
from engine.power.model import PowerSpec, type_figures
from engine.quota.defaults import scaled_queues
from engine.sources import Origin
from engine.study.cost import cluster_cost_usd_per_h, prices_with_defaults
from engine.study.planner_power import Ownership
from engine.study.planner_target import TARGET_METRICS, Target, gpu_name
from engine.study.spec import engine_digest
from engine.validate import validate_failures

CONFIRM_MIXES = 10  # the most mixes confirmed on fresh seeds (`engine.study.planner_confirm`)
Mix = tuple[int, ...]  # nodes per candidate (PlanSpec.candidates order), then spares per spared
PLAN_KEYS = ("base", "candidates", "target_metric", "target_value", "seeds", "max_simulations",
             "confidence", "max_seeds", "start_within_s", "search_trials",
             "max_spares", "power_cap_kw", "ownership", "versus_today")  # fmt: skip


@dataclass(frozen=True)
class Candidate:
    """A worker type the planner may buy: price, node-count bounds, node size and the most
    spare nodes of it (None: the plan's ``max_spares``)."""

    worker_type: str
    price_usd_per_gpu_h: float
    max_nodes: int
    gpus_per_node: int = 8
    min_nodes: int = 0
    max_spares: int | None = None


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
        max_spares: the most spare nodes of each GPU type the search may hold, for every
            candidate that does not set its own ``Candidate.max_spares`` (0, the default: no
            spares dimension, the base scenario's spares are taken from each mix as before).
            A bound above 0 needs failures on; the mix then ends with a spare count per
            GPU type with a bound above 0, bought on top of its nodes.
        power_cap_kw: the facility power (kW) a mix must fit at full load (None: no cap;
            :mod:`engine.study.planner_power`).
        ownership: price mixes by total cost of ownership per hour instead of rental (None:
            rental, the candidates' USD per GPU-hour).
        versus_today: judge each mix against today's cluster on the same seeds (its metric
            minus today's per seed; ``target_value`` is then the margin, 0 for "not worse than
            today's"; `engine.study.planner_target`). False (the default): an absolute target.
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
    power_cap_kw: float | None = None
    ownership: Ownership | None = None
    versus_today: bool = False

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
        self._check_power()

    def _check_power(self) -> None:
        """The power cap (> 0 kW), the ownership prices of every candidate, and the power
        figures of every candidate type when either is set.

        Raises:
            ConfigError: naming the field.
        """
        if self.power_cap_kw is not None and not self.power_cap_kw > 0:
            raise ConfigError(f"power_cap_kw must be > 0 kW, got {self.power_cap_kw}")
        if self.ownership is not None:
            self.ownership.check([c.worker_type for c in self.candidates])
        if self.power_cap_kw is not None or self.ownership is not None:
            type_figures(self.power, [c.worker_type for c in self.candidates])

    @property
    def power(self) -> PowerSpec:
        """The scenario's power spec, else the defaults (for the cap and the energy cost)."""
        return self.base.power or PowerSpec()

    def objective_usd_per_h(self, cluster: ClusterSpec) -> float:
        """What the plan minimises for ``cluster``: total cost of ownership per hour with
        ``ownership``, else rental at the candidates' prices over the defaults
        (:mod:`engine.study.cost`); NaN for a type with neither."""
        if self.ownership is not None:
            return self.ownership.usd_per_h(cluster, self.power)
        prices = {c.worker_type: c.price_usd_per_gpu_h for c in self.candidates}
        return cluster_cost_usd_per_h(cluster, prices_with_defaults(prices))

    def _check_failures(self) -> None:
        """The spares bound, and the base scenario's failure settings when failures are on
        (`engine.validate.validate_failures`: times, spares, a policy that models failures).

        Raises:
            ConfigError: naming the field (``max_spares``, ``failures.<name>``) or the policy.
        """
        for c, bound in zip(self.candidates, self.spare_bounds(), strict=True):
            where = f"{c.worker_type}: max_spares" if c.max_spares is not None else "max_spares"
            if bound < 0:
                raise ConfigError(f"{where} must be >= 0 spare nodes, got {bound}")
            if bound > c.max_nodes:
                raise ConfigError(f"{where}: {bound} spare nodes of {c.worker_type} is more "
                                  f"than its max_nodes ({c.max_nodes})")  # fmt: skip
        if self.searches_spares and not self.base.failures.enabled:
            raise ConfigError(
                f"max_spares: spare nodes ({dict(self.spared())}) only matter with failures on "
                "(base.failures.enabled); turn failures on or set max_spares to 0"
            )
        if self.base.failures.enabled:
            validate_failures(self.base)

    def spare_bounds(self) -> tuple[int, ...]:
        """The most spare nodes of each candidate: its own ``max_spares``, else the plan's."""
        return tuple(self.max_spares if c.max_spares is None else c.max_spares
                     for c in self.candidates)  # fmt: skip

    def spared(self) -> list[tuple[str, int]]:
        """(worker type, spares bound) of the candidates with a spares dimension, in order."""
        return [(c.worker_type, bound) for c, bound in zip(self.candidates, self.spare_bounds(),
                                                           strict=True) if bound > 0]  # fmt: skip

    @property
    def searches_spares(self) -> bool:
        """True when the mix has a spares dimension (a spares bound above 0)."""
        return any(bound > 0 for bound in self.spare_bounds())

    def nodes(self, mix: Mix) -> Mix:
        """The node counts of a mix, one per candidate (without its spares)."""
        return mix[: len(self.candidates)]

    def spares(self, mix: Mix) -> dict[str, int]:
        """Spare nodes per GPU type of a mix: its own for the spared types it holds (0 for the
        others) when the plan searches spares, else the base scenario's."""
        held = {c.worker_type: n for c, n in zip(self.candidates, self.nodes(mix), strict=True)}
        if not self.searches_spares:
            failures = self.base.failures
            return {t: spares_of(failures, t) if failures.enabled else 0 for t in held}
        own = dict(zip((t for t, _ in self.spared()), mix[len(self.candidates) :], strict=True))
        return {t: own.get(t, 0) if n else 0 for t, n in held.items()}

    def scenario(self, mix: Mix | None) -> ScenarioConfig:
        """The base scenario with the mix as its cluster (and its spares); today's for None."""
        if mix is None:
            return self.base
        return self.with_cluster(self.cluster(mix), self.spares(mix))

    def with_cluster(self, cluster: ClusterSpec, spares: Mapping[str, int]) -> ScenarioConfig:
        """The base scenario with ``cluster``, holding ``spares`` spare nodes of each GPU type
        (``failures.type_spares``) when the plan searches spares (else the base scenario's
        failure settings); with teams, their quotas rescaled to the mix
        (:func:`engine.quota.defaults.scaled_queues`)."""
        scenario = dataclasses.replace(self.base, cluster=cluster)
        if self.base.queues is not None:  # the teams keep their shares of the new mix
            queues = scaled_queues(self.base.queues, cluster.capacity())
            scenario = dataclasses.replace(scenario, queues=queues)
        if not self.searches_spares:
            return scenario
        held = cluster.capacity()
        entries = tuple(TypeSpares(t, n) for t, n in spares.items() if n and t in held)
        failures = dataclasses.replace(self.base.failures, spares_per_type=0, type_spares=entries)
        return dataclasses.replace(scenario, failures=failures)

    @property
    def target(self) -> Target:
        return Target(self.target_metric, self.target_value, self.start_within_s, self.versus_today)

    def search_seeds(self) -> tuple[int, ...]:
        """Every seed the search may run a mix on: the plan's seeds, then (for mixes near the
        target, `engine.study.planner_eval`) the next integers after the largest of them that
        are not among them, up to ``max_seeds`` in all."""
        extra = (s for s in range(max(self.seeds) + 1, 2**31) if s not in self.seeds)
        return (*self.seeds, *(next(extra) for _ in range(self.max_seeds - len(self.seeds))))

    def fresh_seeds(self) -> tuple[int, ...]:
        """The ``max_seeds`` seeds the answer is confirmed on (`engine.study.planner_confirm`):
        the integers right after the largest seed the search may use, so none of them is one
        of :meth:`search_seeds` (seeds 0, 1, 2 with ``max_seeds`` 10: the search may use 0-9,
        the confirmation uses 10-19) [R]."""
        start = max(self.search_seeds()) + 1
        return tuple(range(start, start + self.max_seeds))

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
        spares = {t: spares_of(self.base.failures, t) if counts[t] else 0 for t in counts}
        return (*(n - spares[t] for t, n in counts.items()), *(spares[t] for t, _ in self.spared()))

    def in_bounds(self, mix: Mix) -> bool:
        nodes, held = self.nodes(mix), self.spares(mix)
        spares = zip(self.spared(), mix[len(self.candidates) :], strict=True)
        spares_ok = all(0 <= n <= bound and n == held[t] for (t, bound), n in spares)
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
        extra = self.spares(mix) if self.searches_spares else {}
        return [(c, n + extra.get(c.worker_type, 0) if n else 0)
                for c, n in zip(self.candidates, self.nodes(mix), strict=True)]  # fmt: skip

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
        """USD/h of the mix's cluster (:meth:`cluster`: its bought nodes, spares included), by
        the plan's objective (:meth:`objective_usd_per_h`, the one rule for a mix and for
        today's cluster)."""
        return self.objective_usd_per_h(self.cluster(mix))

    def label(self, mix: Mix) -> str:
        """E.g. ``"24 V100 + 24 P100 + 16 K80 nodes"`` (types with no node left out), with
        ``" + spares 2 V100, 1 K80"`` when the plan searches spares (:func:`spares_words`)."""
        parts = [f"{n} {gpu_name(c.worker_type)}"
                 for c, n in zip(self.candidates, self.nodes(mix), strict=True) if n]  # fmt: skip
        words = " + ".join(parts) + " nodes" if parts else "no nodes"
        return words + spares_words(self.spares(mix)) if self.searches_spares else words

    def key(self, trace_hash: str = "", engine: bool = True) -> str:
        """SHA-256 of what decides the search's answers (not the budget), naming the stored
        Optuna study, so a re-plan of the same question resumes it. ``engine=False`` leaves out
        the engine's source digest: the key of the question alone, which seeds the search's
        sampler, so an edit of the engine's code alone does not reshuffle the search [R]."""
        data = self.to_dict()
        data.pop("max_simulations")
        data.update(trace_hash=trace_hash, engine=engine_digest() if engine else "")
        text = json.dumps(data, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in PLAN_KEYS}
        data["base"] = self.base.to_dict()
        data["candidates"] = [
            {k: v for k, v in dataclasses.asdict(c).items() if k != "max_spares" or v is not None}
            for c in self.candidates
        ]  # a candidate without its own spares bound keeps its key
        data["seeds"] = list(self.seeds)
        if not self.max_spares:
            del data["max_spares"]  # a plan without spares keeps its key (and its answers)
        for name in ("power_cap_kw", "ownership", "versus_today"):  # likewise without them
            if data[name] in (None, False):
                del data[name]
        if self.ownership is not None:
            data["ownership"] = self.ownership.to_dict()
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
            if optional.get("ownership") is not None:
                optional["ownership"] = Ownership.from_dict(optional["ownership"])
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


def spares_words(spares: Mapping[str, int]) -> str:
    """``" + spares 2 V100, 1 K80"`` (types with no spare left out), ``", no spares"``."""
    held = [f"{n} {gpu_name(t)}" for t, n in spares.items() if n]
    return f" + spares {', '.join(held)}" if held else ", no spares"

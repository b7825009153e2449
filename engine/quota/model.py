"""The quota model: teams' queues, cohorts and GPU quotas, with Kueue's semantics.

The objects mirror Kueue's API (kubernetes-sigs/kueue, ``apis/kueue/v1beta2``; concept pages
ClusterQueue, Cohort, LocalQueue, WorkloadPriorityClass, Preemption, Fair Sharing), reduced to the
one resource this engine schedules, GPUs:

- a :class:`FlavorQuota` is one ResourceFlavor's quota of ``nvidia.com/gpu`` in a ClusterQueue or
  a Cohort: ``nominal_gpus``, ``borrowing_limit_gpus`` and ``lending_limit_gpus`` (None =
  unlimited, Kueue's absent field). A flavor is a worker type of the cluster (its ``worker_type``).
- a :class:`ClusterQueue` lists its flavors in order (Kueue's resource group), belongs to at most
  one cohort, and carries its queueing strategy, preemption policy, flavor fungibility and fair
  sharing weight.
- a :class:`Cohort` may have a parent (hierarchical cohorts) and quotas of its own.
- a :class:`LocalQueue` points a job's queue name at its ClusterQueue; a job names a LocalQueue.
- a :class:`PriorityClass` names an integer priority (WorkloadPriorityClass).

Every object is a frozen dataclass readable by :func:`engine.config._build` (a scenario JSON's
``"queues"``), and :meth:`QueueConfig.check` rejects what Kueue's webhooks and cache reject,
naming the object and the field.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import ConfigError

QUEUEING_STRATEGIES = ("BestEffortFIFO", "StrictFIFO")
WITHIN_CLUSTER_QUEUE = ("Never", "LowerPriority", "LowerOrNewerEqualPriority")
RECLAIM_WITHIN_COHORT = ("Never", "LowerPriority", "Any")
BORROW_WITHIN_COHORT = ("Never", "LowerPriority")
WHEN_CAN_BORROW = ("MayStopSearch", "TryNextFlavor")  # v1beta1's "Borrow" reads as MayStopSearch
WHEN_CAN_PREEMPT = ("MayStopSearch", "TryNextFlavor")  # v1beta1's "Preempt" likewise
FAIR_SHARING_STRATEGIES = ("LessThanOrEqualToFinalShare", "LessThanInitialShare")


@dataclass(frozen=True)
class FlavorQuota:
    """One flavor's GPU quota in a ClusterQueue or Cohort (Kueue ``resourceGroups[].flavors[]``).

    Attributes:
        flavor: the ResourceFlavor's name.
        nominal_gpus: GPUs guaranteed (``nominalQuota``), >= 0.
        borrowing_limit_gpus: most GPUs borrowed above nominal from the cohort; None: no limit.
        lending_limit_gpus: most of the nominal GPUs lent to the cohort; None: all of them.
    """

    flavor: str
    nominal_gpus: int = 0
    borrowing_limit_gpus: int | None = None
    lending_limit_gpus: int | None = None


@dataclass(frozen=True)
class ResourceFlavor:
    """A Kueue ResourceFlavor: the worker type of the cluster whose GPUs it stands for.

    Attributes:
        name: the flavor's name.
        worker_type: the cluster's worker type; "" means the flavor's own name.
    """

    name: str
    worker_type: str = ""

    @property
    def gpu_type(self) -> str:
        """The worker type this flavor stands for."""
        return self.worker_type or self.name


@dataclass(frozen=True)
class Preemption:
    """A ClusterQueue's ``preemption`` (Kueue's defaults: never preempt).

    Attributes:
        within_cluster_queue: Never, LowerPriority or LowerOrNewerEqualPriority.
        reclaim_within_cohort: Never, LowerPriority or Any.
        borrow_within_cohort: Never or LowerPriority (``borrowWithinCohort.policy``).
        max_priority_threshold: ``borrowWithinCohort.maxPriorityThreshold``; None: no threshold.
    """

    within_cluster_queue: str = "Never"
    reclaim_within_cohort: str = "Never"
    borrow_within_cohort: str = "Never"
    max_priority_threshold: int | None = None


@dataclass(frozen=True)
class ClusterQueue:
    """A Kueue ClusterQueue reduced to GPUs.

    Attributes:
        name: the queue's name.
        flavors: its GPU flavors in the order Kueue tries them.
        cohort: the cohort it belongs to ("" for none).
        queueing_strategy: BestEffortFIFO (Kueue's default) or StrictFIFO.
        preemption: its preemption policy.
        when_can_borrow: flavor fungibility: MayStopSearch (take the first flavor that fits,
            borrowing if it must; Kueue's default) or TryNextFlavor (try later flavors for one
            that fits without borrowing first).
        when_can_preempt: MayStopSearch (preempt in the first flavor where preemption helps) or
            TryNextFlavor (Kueue's default: try later flavors for one that fits first).
        fair_weight: ``fairSharing.weight`` (default 1).
        admission_fair_sharing: ``admissionScope.admissionMode:
            UsageBasedAdmissionFairSharing``: its pending jobs are ordered by their
            LocalQueue's decayed usage first (when the Configuration sets a half-life).
    """

    name: str
    flavors: tuple[FlavorQuota, ...] = ()
    cohort: str = ""
    queueing_strategy: str = "BestEffortFIFO"
    preemption: Preemption = Preemption()
    when_can_borrow: str = "MayStopSearch"
    when_can_preempt: str = "TryNextFlavor"
    fair_weight: float = 1.0
    admission_fair_sharing: bool = False


@dataclass(frozen=True)
class Cohort:
    """A Kueue Cohort object: a node of the cohort tree, with quotas of its own.

    Attributes:
        name: the cohort's name.
        parent: its parent cohort ("" for a root; Kueue's ``parentName``).
        flavors: GPU quotas the cohort itself holds (lent to its members).
        fair_weight: ``fairSharing.weight`` (default 1).
    """

    name: str
    parent: str = ""
    flavors: tuple[FlavorQuota, ...] = ()
    fair_weight: float = 1.0


@dataclass(frozen=True)
class LocalQueue:
    """A Kueue LocalQueue: a team's queue name pointing at a ClusterQueue.

    Attributes:
        name: the name jobs use (the trace's ``queue``).
        cluster_queue: the ClusterQueue it feeds.
        namespace: its namespace (kept for the YAML round trip; jobs name ``name``).
        fair_weight: ``fairSharing.weight`` (default 1): under admission fair sharing its
            usage counts divided by this weight.
    """

    name: str
    cluster_queue: str
    namespace: str = "default"
    fair_weight: float = 1.0


@dataclass(frozen=True)
class PriorityClass:
    """A Kueue WorkloadPriorityClass: a name for an integer priority."""

    name: str
    value: int = 0


@dataclass(frozen=True)
class FairSharing:
    """The ``fairSharing`` section of Kueue's manager Configuration, and admission fair sharing.

    Attributes:
        enabled: fair sharing on (heads ordered by dominant resource share; fair-sharing
            preemption in the cohort).
        preemption_strategies: applied in order (Kueue's default: both, in this order).
        admission_half_life_s: admission fair sharing's ``usageHalfLifeTime`` in seconds; 0 off.
        admission_sampling_s: its ``usageSamplingInterval`` in seconds (Kueue's default 5 min,
            ``apis/config/v1beta2/defaults.go``).
    """

    enabled: bool = False
    preemption_strategies: tuple[str, ...] = FAIR_SHARING_STRATEGIES
    admission_half_life_s: float = 0.0
    admission_sampling_s: float = 300.0


@dataclass(frozen=True)
class QueueConfig:
    """Everything the quota layer needs: the scenario's ``"queues"`` (off when absent).

    Attributes:
        cluster_queues, cohorts, local_queues, flavors, priority_classes: the Kueue objects.
        fair_sharing: the manager Configuration's fair sharing.
        default_local_queue: the LocalQueue of a job whose trace row names none ("" refuses
            such a job).
    """

    cluster_queues: tuple[ClusterQueue, ...] = ()
    cohorts: tuple[Cohort, ...] = ()
    local_queues: tuple[LocalQueue, ...] = ()
    flavors: tuple[ResourceFlavor, ...] = ()
    priority_classes: tuple[PriorityClass, ...] = ()
    fair_sharing: FairSharing = FairSharing()
    default_local_queue: str = ""

    def flavor_types(self) -> dict[str, str]:
        """Flavor name -> worker type (a flavor not declared stands for its own name)."""
        return {f.name: f.gpu_type for f in self.flavors}

    def worker_type_of(self, flavor: str) -> str:
        """The worker type a flavor name stands for."""
        return self.flavor_types().get(flavor, flavor)

    def cluster_queue_of(self, local_queue: str) -> str | None:
        """The ClusterQueue a LocalQueue feeds; a name that is a ClusterQueue's stands for it
        (a trace may name teams by ClusterQueue); None when neither exists."""
        for queue in self.local_queues:
            if queue.name == local_queue:
                return queue.cluster_queue
        if any(cq.name == local_queue for cq in self.cluster_queues):
            return local_queue
        return None

    def check(self, capacity: dict[str, int] | None = None) -> None:
        """Rejects what Kueue rejects, and quotas over the cluster (``capacity``: GPUs per
        worker type), naming the object and field.

        Raises:
            ConfigError: a duplicate name, an unknown value of an enum field, a negative quota,
                a lending limit above the nominal quota, a cohort cycle or an unknown parent,
                a LocalQueue of an unknown ClusterQueue, a flavor of no worker type of the
                cluster, a root cohort's nominal GPUs of a type above the cluster's.
        """
        _unique("ClusterQueue", [cq.name for cq in self.cluster_queues])
        _unique("Cohort", [c.name for c in self.cohorts])
        _unique("LocalQueue", [q.name for q in self.local_queues])
        _unique("ResourceFlavor", [f.name for f in self.flavors])
        _unique("WorkloadPriorityClass", [p.name for p in self.priority_classes])
        for cq in self.cluster_queues:
            where = f"ClusterQueue {cq.name!r}"
            _enum(where, "queueingStrategy", cq.queueing_strategy, QUEUEING_STRATEGIES)
            p = cq.preemption
            _enum(where, "preemption.withinClusterQueue", p.within_cluster_queue,
                  WITHIN_CLUSTER_QUEUE)  # fmt: skip
            _enum(where, "preemption.reclaimWithinCohort", p.reclaim_within_cohort,
                  RECLAIM_WITHIN_COHORT)  # fmt: skip
            _enum(where, "preemption.borrowWithinCohort.policy", p.borrow_within_cohort,
                  BORROW_WITHIN_COHORT)  # fmt: skip
            _enum(where, "flavorFungibility.whenCanBorrow", cq.when_can_borrow, WHEN_CAN_BORROW)
            _enum(where, "flavorFungibility.whenCanPreempt", cq.when_can_preempt,
                  WHEN_CAN_PREEMPT)  # fmt: skip
            _weight(where, cq.fair_weight)
            _quotas(where, cq.flavors, has_parent=bool(cq.cohort))
        for cohort in self.cohorts:
            _weight(f"Cohort {cohort.name!r}", cohort.fair_weight)
            _quotas(f"Cohort {cohort.name!r}", cohort.flavors, has_parent=bool(cohort.parent))
        for strategy in self.fair_sharing.preemption_strategies:
            _enum("Configuration", "fairSharing.preemptionStrategies", strategy,
                  FAIR_SHARING_STRATEGIES)  # fmt: skip
        if self.fair_sharing.admission_half_life_s < 0:
            raise ConfigError("Configuration: admissionFairSharing.usageHalfLifeTime must be >= 0")
        if not self.fair_sharing.admission_sampling_s > 0:
            raise ConfigError(
                "Configuration: admissionFairSharing.usageSamplingInterval must be > 0"
            )
        self._check_tree()
        names = {cq.name for cq in self.cluster_queues}
        for queue in self.local_queues:
            _weight(f"LocalQueue {queue.name!r}", queue.fair_weight)
            if queue.cluster_queue not in names:
                raise ConfigError(
                    f"LocalQueue {queue.name!r}: spec.clusterQueue {queue.cluster_queue!r} is "
                    f"not a ClusterQueue (known: {sorted(names)})"
                )
        if self.default_local_queue and self.cluster_queue_of(self.default_local_queue) is None:
            raise ConfigError(
                f"queues.default_local_queue {self.default_local_queue!r} is not a LocalQueue"
            )
        if capacity is not None:
            self._check_capacity(capacity)

    def _check_tree(self) -> None:
        cohorts = {c.name: c for c in self.cohorts}
        for cohort in self.cohorts:
            seen = [cohort.name]
            node = cohort
            while node.parent:
                if node.parent not in cohorts:  # an implicit cohort: a root with no quota
                    break
                if node.parent in seen:
                    cycle = " -> ".join([*seen, node.parent])
                    raise ConfigError(f"Cohort {cohort.name!r}: spec.parentName makes a cycle "
                                      f"({cycle})")  # fmt: skip
                seen.append(node.parent)
                node = cohorts[node.parent]

    def _check_capacity(self, capacity: dict[str, int]) -> None:
        types = self.flavor_types()
        for owner, quotas in self._quota_owners():
            for quota in quotas:
                worker_type = types.get(quota.flavor, quota.flavor)
                if worker_type not in capacity:
                    raise ConfigError(
                        f"{owner}: flavor {quota.flavor!r} is worker type {worker_type!r}, which "
                        f"the cluster does not have (it has {sorted(capacity)})"
                    )
        for root, nominal in self.root_nominal_gpus().items():
            for worker_type, gpus in nominal.items():
                if gpus > capacity.get(worker_type, 0):
                    raise ConfigError(
                        f"{root}: nominal quotas of {worker_type} add up to {gpus} GPUs, more "
                        f"than the cluster's {capacity.get(worker_type, 0)}"
                    )

    def _quota_owners(self) -> list[tuple[str, tuple[FlavorQuota, ...]]]:
        return [(f"ClusterQueue {cq.name!r}", cq.flavors) for cq in self.cluster_queues] + [
            (f"Cohort {c.name!r}", c.flavors) for c in self.cohorts
        ]

    def root_nominal_gpus(self) -> dict[str, dict[str, int]]:
        """Per root of the cohort forest (a cohort tree, or a ClusterQueue with no cohort):
        nominal GPUs per worker type, summed over every member's quotas."""
        types = self.flavor_types()
        parent = {c.name: c.parent for c in self.cohorts}

        def root_of(cohort: str) -> str:
            seen = set()
            while parent.get(cohort) and cohort not in seen:
                seen.add(cohort)
                cohort = parent[cohort]
            return cohort

        totals: dict[str, dict[str, int]] = {}
        owners: list[tuple[str, tuple[FlavorQuota, ...]]] = []
        for cq in self.cluster_queues:
            key = f"Cohort {root_of(cq.cohort)!r}" if cq.cohort else f"ClusterQueue {cq.name!r}"
            owners.append((key, cq.flavors))
        owners += [(f"Cohort {root_of(c.name)!r}", c.flavors) for c in self.cohorts]
        for key, quotas in owners:
            per_type = totals.setdefault(key, {})
            for quota in quotas:
                worker_type = types.get(quota.flavor, quota.flavor)
                per_type[worker_type] = per_type.get(worker_type, 0) + quota.nominal_gpus
        return totals


def _unique(kind: str, names: list[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if not name:
            raise ConfigError(f"{kind}: metadata.name is empty")
        if name in seen:
            raise ConfigError(f"{kind} {name!r}: the name is used twice")
        seen.add(name)


def _enum(where: str, path: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(f"{where}: {path} is one of {list(allowed)}, got {value!r}")


def _weight(where: str, weight: float) -> None:
    if not weight >= 0:
        raise ConfigError(f"{where}: fairSharing.weight must be >= 0, got {weight!r}")


def _quotas(where: str, quotas: tuple[FlavorQuota, ...], has_parent: bool) -> None:
    _unique(f"{where} flavor", [q.flavor for q in quotas])
    for q in quotas:
        at = f"{where}, flavor {q.flavor!r}"
        for name, value in (
            ("nominalQuota", q.nominal_gpus),
            ("borrowingLimit", q.borrowing_limit_gpus),
            ("lendingLimit", q.lending_limit_gpus),
        ):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise ConfigError(f"{at}: {name} must be a whole number of GPUs, got {value!r}")
            if value is not None and value < 0:
                raise ConfigError(f"{at}: {name} must be >= 0, got {value}")
        if q.lending_limit_gpus is not None and q.lending_limit_gpus > q.nominal_gpus:
            raise ConfigError(
                f"{at}: lendingLimit ({q.lending_limit_gpus}) is above nominalQuota "
                f"({q.nominal_gpus})"
            )
        if not has_parent and q.borrowing_limit_gpus is not None:
            raise ConfigError(f"{at}: borrowingLimit needs a cohort to borrow from")


__all__ = [
    "ClusterQueue",
    "Cohort",
    "FairSharing",
    "FlavorQuota",
    "LocalQueue",
    "Preemption",
    "PriorityClass",
    "QueueConfig",
    "ResourceFlavor",
]

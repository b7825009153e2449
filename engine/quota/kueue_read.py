"""Kueue objects (already loaded by :mod:`engine.quota.yaml_docs`) into the quota model.

One reader per kind; the API files they follow are cited in :mod:`engine.quota.kueue_yaml`
(Kueue's ``apis/kueue/v1beta1|v1beta2`` and ``apis/config/v1beta1|v1beta2``). A modelled spec is
read strictly: a field Kueue does not have is refused, listing the allowed ones; a field Kueue
has but the model does not (``stopPolicy``, ``admissionChecks``, taints ...) is skipped with a note.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from engine.quota.model import (
    FAIR_SHARING_STRATEGIES,
    ClusterQueue,
    Cohort,
    FairSharing,
    FlavorQuota,
    LocalQueue,
    Preemption,
    PriorityClass,
    QueueConfig,
    ResourceFlavor,
)
from engine.quota.yaml_docs import Fail, Fields, KubeObject, parse_duration

GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu")
ADMISSION_FAIR_SHARING_MODE = "UsageBasedAdmissionFairSharing"
"""``ClusterQueue.spec.admissionScope.admissionMode`` that turns admission fair sharing on."""
WORKER_TYPE_LABEL = "gpusched/worker-type"
"""The ResourceFlavor node label :func:`engine.quota.kueue_yaml.write_kueue_yaml` names a
worker type with, when it is not the flavor's name."""

OBJECT_FIELDS = ("apiVersion", "kind", "metadata", "spec", "status")
_FLAVOR_SPEC = ("nodeLabels", "nodeTaints", "tolerations", "topologyName")
_COHORT_SPEC = ("parentName", "resourceGroups", "fairSharing")
_CQ_SPEC = (
    "resourceGroups", "queueingStrategy", "namespaceSelector", "flavorFungibility", "preemption",
    "admissionChecksStrategy", "stopPolicy", "fairSharing", "admissionScope",
)  # fmt: skip
_CQ_SPEC_BY_VERSION = {
    "v1beta1": (*_CQ_SPEC, "cohort", "admissionChecks"),
    "v1beta2": (*_CQ_SPEC, "cohortName", "concurrentAdmissionPolicy"),
}
_LQ_SPEC = ("clusterQueue", "stopPolicy", "fairSharing")
_KINDS = ("ResourceFlavor", "Cohort", "ClusterQueue", "LocalQueue", "WorkloadPriorityClass")
_MAY_STOP = {"v1beta1": {"Borrow": "MayStopSearch", "Preempt": "MayStopSearch"}, "v1beta2": {}}


@dataclass
class Reading:
    """The objects read so far, and notes; :meth:`add` one object, then :meth:`result`."""

    worker_types: tuple[str, ...]
    fail: Fail
    notes: list[str] = field(default_factory=list)
    flavors: list[ResourceFlavor] = field(default_factory=list)
    cohorts: list[Cohort] = field(default_factory=list)
    cluster_queues: list[ClusterQueue] = field(default_factory=list)
    local_queues: list[LocalQueue] = field(default_factory=list)
    priority_classes: list[PriorityClass] = field(default_factory=list)
    fair_sharing: FairSharing | None = None

    def add(self, obj: KubeObject) -> None:
        """Reads one object into the lists.

        Raises:
            EngineError: (``fail``) naming the object and field of the first problem.
        """
        fields = Fields(obj.body, obj.where, "", self.fail)
        if obj.kind == "Configuration":
            self._configuration(obj, fields, _version(obj, "config.kueue.x-k8s.io", fields))
            return
        readers: dict[str, Callable[[KubeObject, Fields, str], None]] = {
            "ResourceFlavor": self._flavor,
            "Cohort": self._cohort,
            "ClusterQueue": self._cluster_queue,
            "LocalQueue": self._local_queue,
            "WorkloadPriorityClass": self._priority_class,
        }
        reader = readers.get(obj.kind)
        if reader is None:
            hint = (
                " (the manager's Configuration goes in on its own, not inside its ConfigMap)"
                if obj.kind == "ConfigMap"
                else ""
            )
            raise fields.error(
                "kind",
                f"{obj.kind!r} is not a Kueue object read here; known "
                f"kinds: {', '.join((*_KINDS, 'Configuration'))}{hint}",
            )
        version = _version(obj, "kueue.x-k8s.io", fields)
        fields.mapping("metadata").text("name")
        reader(obj, fields, version)

    def result(self) -> tuple[QueueConfig, tuple[str, ...]]:
        """The model (not yet checked) and the notes."""
        config = QueueConfig(
            cluster_queues=tuple(self.cluster_queues),
            cohorts=tuple(self.cohorts),
            local_queues=tuple(self.local_queues),
            flavors=tuple(self.flavors),
            priority_classes=tuple(self.priority_classes),
            fair_sharing=self.fair_sharing or FairSharing(),
        )
        return config, (*self.notes, *self._undeclared_flavor_notes())

    def _flavor(self, obj: KubeObject, fields: Fields, version: str) -> None:
        fields.only(OBJECT_FIELDS)
        spec = fields.mapping("spec")
        spec.only(_FLAVOR_SPEC)
        labels = spec.mapping("nodeLabels")
        values = {str(k): _label(labels, str(k)) for k in labels.data}
        self._skipped(obj, spec, ("nodeTaints", "tolerations", "topologyName"))
        worker_type, note = flavor_worker_type(obj.name, values, self.worker_types)
        if note:
            self.notes.append(note)
        self.flavors.append(ResourceFlavor(obj.name, worker_type))

    def _cohort(self, obj: KubeObject, fields: Fields, version: str) -> None:
        fields.only(OBJECT_FIELDS)
        spec = fields.mapping("spec")
        spec.only(_COHORT_SPEC)
        quotas = self._gpu_quotas(obj, spec)
        self.cohorts.append(Cohort(obj.name, spec.text("parentName", ""), quotas, _weight(spec)))

    def _cluster_queue(self, obj: KubeObject, fields: Fields, version: str) -> None:
        fields.only(OBJECT_FIELDS)
        spec = fields.mapping("spec")
        spec.only(_CQ_SPEC_BY_VERSION[version])
        fungibility = spec.mapping("flavorFungibility")
        fungibility.only(("whenCanBorrow", "whenCanPreempt", "preference"))
        renames = _MAY_STOP[version]
        borrow = fungibility.text("whenCanBorrow", "MayStopSearch")
        preempt = fungibility.text("whenCanPreempt", "TryNextFlavor")
        self._skipped(obj, fungibility, ("preference",))
        self._skipped(
            obj,
            spec,
            (
                "admissionChecks",
                "admissionChecksStrategy",
                "stopPolicy",
                "concurrentAdmissionPolicy",
                "namespaceSelector",
            ),
        )
        self.cluster_queues.append(
            ClusterQueue(
                name=obj.name,
                flavors=self._gpu_quotas(obj, spec),
                cohort=spec.text("cohort" if version == "v1beta1" else "cohortName", ""),
                queueing_strategy=spec.text("queueingStrategy", "BestEffortFIFO"),
                preemption=_preemption(spec.mapping("preemption")),
                when_can_borrow=renames.get(borrow, borrow),
                when_can_preempt=renames.get(preempt, preempt),
                fair_weight=_weight(spec),
                admission_fair_sharing=_admission_scope(spec),
            )
        )

    def _local_queue(self, obj: KubeObject, fields: Fields, version: str) -> None:
        fields.only(OBJECT_FIELDS)
        spec = fields.mapping("spec")
        spec.only(_LQ_SPEC)
        self._skipped(obj, spec, ("stopPolicy",))
        cluster_queue = spec.text("clusterQueue")
        self.local_queues.append(
            LocalQueue(obj.name, cluster_queue, obj.namespace or "default", _weight(spec))
        )

    def _priority_class(self, obj: KubeObject, fields: Fields, version: str) -> None:
        fields.only(("apiVersion", "kind", "metadata", "value", "description"))
        self.priority_classes.append(PriorityClass(obj.name, fields.integer("value")))

    def _configuration(self, obj: KubeObject, fields: Fields, version: str) -> None:
        if fields.raw("fairSharing") is None and fields.raw("admissionFairSharing") is None:
            self.notes.append(
                f"skipped {obj.where}: a Configuration without fairSharing or admissionFairSharing"
            )
            return
        if self.fair_sharing is not None:
            raise fields.error("kind", "a second Configuration with fair sharing; give one")
        fair = fields.mapping("fairSharing")
        fair.only(
            ("enable", "preemptionStrategies")
            if version == "v1beta1"
            else ("preemptionStrategies",)
        )
        if version == "v1beta1" and fair.raw("enable") not in (None, True, False):
            raise fair.error("enable", f"must be true or false, got {fair.raw('enable')!r}")
        # v1beta1 says enable; in v1beta2 the section's presence turns fair sharing on
        enabled = (
            fair.raw("enable") is True
            if version == "v1beta1"
            else fields.raw("fairSharing") is not None
        )
        strategies = tuple(fair.strings("preemptionStrategies")) or FAIR_SHARING_STRATEGIES
        admission = fields.mapping("admissionFairSharing")
        admission.only(("usageHalfLifeTime", "usageSamplingInterval", "resourceWeights"))
        durations = []
        for name, default in (("usageHalfLifeTime", "0"), ("usageSamplingInterval", "5m")):
            try:
                durations.append(parse_duration(admission.text(name, default)))
            except ValueError as error:
                raise admission.error(name, str(error)) from None
        if admission.raw("resourceWeights") not in (None, {}):
            self.notes.append(
                f"{obj.where}: skipped admissionFairSharing.resourceWeights (only GPUs are "
                "modelled: one weight scales every LocalQueue's usage alike)"
            )
        self.fair_sharing = FairSharing(enabled, strategies, durations[0], durations[1])

    def _gpu_quotas(self, obj: KubeObject, spec: Fields) -> tuple[FlavorQuota, ...]:
        gpu_group: tuple[Fields, str] | None = None
        other: set[str] = set()
        for group in spec.mappings("resourceGroups"):
            group.only(("coveredResources", "flavors"))
            covered = group.strings("coveredResources")
            gpus = [name for name in covered if name in GPU_RESOURCES]
            other |= set(covered) - set(gpus)
            if len(gpus) > 1 or (gpus and gpu_group is not None):
                message = f"GPUs ({' or '.join(GPU_RESOURCES)}) are covered twice; cover one"
                raise group.error("coveredResources", f"{message} GPU resource in one group")
            for flavor in group.mappings("flavors"):
                flavor.only(("name", "resources"))
                flavor.text("name")
                for resource in flavor.mappings("resources"):
                    resource.only(("name", "nominalQuota", "borrowingLimit", "lendingLimit"))
                    resource.text("name")
            if gpus:
                gpu_group = (group, gpus[0])
        if other:
            self.notes.append(
                f"{obj.where}: skipped the resources {sorted(other)} (only GPUs, "
                f"{' or '.join(GPU_RESOURCES)}, are modelled)"
            )
        return () if gpu_group is None else _group_quotas(*gpu_group)

    def _skipped(self, obj: KubeObject, fields: Fields, names: tuple[str, ...]) -> None:
        present = [fields.at(name) for name in names if fields.raw(name) not in (None, {}, [])]
        if present:
            self.notes.append(f"{obj.where}: skipped {', '.join(present)} (not modelled)")

    def _undeclared_flavor_notes(self) -> list[str]:
        declared = {flavor.name for flavor in self.flavors}
        owners = [(f"ClusterQueue {cq.name!r}", cq.flavors) for cq in self.cluster_queues]
        owners += [(f"Cohort {cohort.name!r}", cohort.flavors) for cohort in self.cohorts]
        notes: dict[str, str] = {}
        for owner, quotas in owners:
            for quota in quotas:
                if quota.flavor not in declared and quota.flavor not in notes:
                    notes[quota.flavor] = (
                        f"flavor {quota.flavor!r} of {owner} has no "
                        "ResourceFlavor; it stands for the worker type of "
                        "its own name"
                    )
        return list(notes.values())


def flavor_worker_type(
    name: str, labels: dict[str, str], worker_types: tuple[str, ...]
) -> tuple[str, str]:
    """The worker type a flavor stands for ("" for its own name) and a note ("" for none).

    In order: the label :data:`WORKER_TYPE_LABEL`; a worker type of the same name (exactly,
    then any case); a label value equal to or containing a worker type's name (any case, the
    longest name winning, e.g. ``nvidia-tesla-v100 -> v100``); else its own name.
    """
    if WORKER_TYPE_LABEL in labels:
        chosen = _same_name(labels[WORKER_TYPE_LABEL], worker_types) or labels[WORKER_TYPE_LABEL]
        return ("" if chosen == name else chosen), ""
    same = _same_name(name, worker_types)
    if same:
        note = "" if same == name else f"flavor {name!r} maps to worker type {same!r} (by name)"
        return ("" if same == name else same), note
    matches = [
        (len(wt), -i, wt, key)
        for key, value in labels.items()
        for i, wt in enumerate(worker_types)
        if wt and wt.lower() in value.lower()
    ]
    if matches:
        _, _, chosen, key = max(matches)
        return chosen, (
            f"flavor {name!r} maps to worker type {chosen!r} through nodeLabels "
            f"{key}: {labels[key]!r}"
        )
    return "", (
        f"flavor {name!r} matches no worker type of the cluster ({list(worker_types)}) "
        "by name or nodeLabels; it stands for a worker type of its own name"
    )


def _same_name(name: str, worker_types: tuple[str, ...]) -> str:
    if name in worker_types:
        return name
    return next((wt for wt in worker_types if wt.lower() == name.lower()), "")


def _version(obj: KubeObject, group: str, fields: Fields) -> str:
    prefix, _, version = obj.api_version.partition("/")
    if prefix != group or version not in _CQ_SPEC_BY_VERSION:
        raise fields.error(
            "apiVersion",
            f"{obj.kind} must be {group}/v1beta1 or {group}/v1beta2, got {obj.api_version!r}",
        )
    return version


def _label(labels: Fields, key: str) -> str:
    value = labels.raw(key)
    if isinstance(value, bool | int | float | str):
        return str(value).lower() if isinstance(value, bool) else str(value)
    raise labels.error(key, f"a label value must be text, got {value!r}")


def _group_quotas(group: Fields, gpu: str) -> tuple[FlavorQuota, ...]:
    quotas = []
    for flavor in group.mappings("flavors"):
        found = [r for r in flavor.mappings("resources") if r.raw("name") == gpu]
        if not found:
            raise flavor.error("resources", f"lists no {gpu}, which its resource group covers")
        resource = found[0]
        quotas.append(
            FlavorQuota(
                flavor.text("name"),
                _gpus(resource, "nominalQuota") or 0,
                _gpus(resource, "borrowingLimit"),
                _gpus(resource, "lendingLimit"),
            )
        )
    return tuple(quotas)


def _gpus(resource: Fields, key: str) -> int | None:
    quantity = resource.quantity(key)
    if quantity is None:
        return None
    if quantity < 0 or quantity.denominator != 1:
        raise resource.error(key, f"must be a whole number of GPUs >= 0, got {resource.raw(key)!r}")
    return int(quantity)


def _admission_scope(spec: Fields) -> bool:
    """Whether ``spec.admissionScope`` turns admission fair sharing on."""
    scope = spec.mapping("admissionScope")
    scope.only(("admissionMode",))
    mode = scope.text("admissionMode", "NoAdmissionFairSharing")
    if mode not in (ADMISSION_FAIR_SHARING_MODE, "NoAdmissionFairSharing"):
        raise scope.error(
            "admissionMode",
            f"{mode!r} is not one of {ADMISSION_FAIR_SHARING_MODE}, NoAdmissionFairSharing",
        )
    return mode == ADMISSION_FAIR_SHARING_MODE


def _weight(spec: Fields) -> float:
    fair = spec.mapping("fairSharing")
    fair.only(("weight",))
    weight = fair.quantity("weight")
    return 1.0 if weight is None else float(weight)


def _preemption(preemption: Fields) -> Preemption:
    preemption.only(("withinClusterQueue", "reclaimWithinCohort", "borrowWithinCohort"))
    borrow = preemption.mapping("borrowWithinCohort")
    borrow.only(("policy", "maxPriorityThreshold"))
    key = "maxPriorityThreshold"
    threshold = None if borrow.raw(key) is None else borrow.integer(key)
    return Preemption(
        within_cluster_queue=preemption.text("withinClusterQueue", "Never"),
        reclaim_within_cohort=preemption.text("reclaimWithinCohort", "Never"),
        borrow_within_cohort=borrow.text("policy", "Never"),
        max_priority_threshold=threshold,
    )

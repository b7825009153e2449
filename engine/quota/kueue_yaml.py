"""Kueue's objects in and out as YAML: :func:`read_kueue_yaml` and :func:`write_kueue_yaml`.

The shapes follow Kueue's API (kubernetes-sigs/kueue, Apache-2.0), read at commit ff69552e:
``apis/kueue/v1beta1`` and ``apis/kueue/v1beta2`` ``clusterqueue_types.go``,
``cohort_types.go``, ``localqueue_types.go``, ``resourceflavor_types.go``,
``workloadpriorityclass_types.go`` and ``fairsharing_types.go``; ``apis/config/v1beta1`` and
``apis/config/v1beta2`` ``configuration_types.go`` (``FairSharing``, ``AdmissionFairSharing``)
and ``configuration_conversion.go`` (v1beta2 drops ``fairSharing.enable``: the section's
presence enables it); the concept pages ``site/content/en/docs/concepts`` (cohort, cluster_queue,
fair_sharing, admission_fair_sharing) and the samples in ``site/static/examples``.

Between the versions: a v1beta1 ClusterQueue names its cohort ``spec.cohort``, a v1beta2 one
``spec.cohortName``; v1beta1's flavor fungibility values ``Borrow`` and ``Preempt`` are v1beta2's
``MayStopSearch``. Only GPUs are modelled: the resource ``nvidia.com/gpu`` (or ``amd.com/gpu``)
of a resource group; other covered resources (cpu, memory) are skipped with a note. The reading
of objects and fields is in :mod:`engine.quota.kueue_read`; the safe YAML loading (size, depth
and anchor limits) in :mod:`engine.quota.yaml_docs`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import yaml

from engine.errors import ConfigError
from engine.quota.kueue_read import (
    ADMISSION_FAIR_SHARING_MODE,
    GPU_RESOURCES,
    WORKER_TYPE_LABEL,
    Reading,
)
from engine.quota.model import (
    FAIR_SHARING_STRATEGIES,
    ClusterQueue,
    Cohort,
    FlavorQuota,
    QueueConfig,
)
from engine.quota.yaml_docs import format_duration, load_objects

API_VERSIONS = ("v1beta1", "v1beta2")


def read_kueue_yaml(
    text: str, worker_types: Sequence[str], file: str = "kueue.yaml"
) -> tuple[QueueConfig, tuple[str, ...]]:
    """Reads Kueue objects into the quota model.

    Accepts multi-document YAML and ``kind: List`` (as ``kubectl get clusterqueues,cohorts,
    localqueues,resourceflavors,workloadpriorityclasses -o yaml`` writes it; ``metadata``
    beyond name and namespace, and ``status``, are ignored) of the kinds ResourceFlavor,
    Cohort, ClusterQueue, LocalQueue and WorkloadPriorityClass (``kueue.x-k8s.io/v1beta1`` or
    ``v1beta2``) and Kueue's manager ``Configuration`` (``config.kueue.x-k8s.io``; its
    ``fairSharing`` and ``admissionFairSharing.usageHalfLifeTime``). Quotas are whole numbers
    of GPUs of the resource ``nvidia.com/gpu`` or ``amd.com/gpu``.

    A ResourceFlavor stands for the worker type of ``worker_types`` of the same name (any
    case), else the one its ``spec.nodeLabels`` name (label ``gpusched/worker-type`` exactly, or
    a label value equal to or containing the worker type's name, any case, the longest name
    winning: ``nvidia-tesla-v100 -> v100``), else its own name (which
    ``QueueConfig.check(capacity)`` then refuses unless the cluster has it).

    Args:
        text: the YAML text.
        worker_types: the cluster's worker types, e.g. ``("k80", "p100", "v100")``.
        file: the file's name, for messages.

    Returns:
        The model (checked with :meth:`QueueConfig.check`, without capacity; no default
        LocalQueue) and notes for the user on what was skipped or assumed.

    Raises:
        ConfigError: naming the file, document and field: text over 1,000,000 characters or
            2,000 objects, nesting over 32 levels, anchors/aliases, YAML that does not parse,
            a document that is no mapping, an unknown kind or apiVersion, an unknown field in a
            modelled spec, a wrong type, a quota that is no whole number >= 0, two resource
            groups covering GPUs, and whatever :meth:`QueueConfig.check` refuses.
    """

    def fail(message: str) -> ConfigError:
        return ConfigError(f"{file}: {message}")

    reading = Reading(tuple(worker_types), fail)
    for obj in load_objects(text, fail):
        reading.add(obj)
    config, notes = reading.result()
    try:
        config.check()
    except ConfigError as error:
        raise fail(str(error)) from None
    fair = config.fair_sharing
    if fair.admission_half_life_s > 0 and not any(
        cq.admission_fair_sharing for cq in config.cluster_queues
    ):
        notes = (
            *notes,
            "admissionFairSharing is set but no ClusterQueue has spec.admissionScope."
            f"admissionMode: {ADMISSION_FAIR_SHARING_MODE}, so it orders no queue",
        )
    return config, notes


def write_kueue_yaml(config: QueueConfig, api_version: str = "v1beta2") -> str:
    """Writes the model as multi-document Kueue YAML that :func:`read_kueue_yaml` reads back.

    Documents: every ResourceFlavor (``spec.nodeLabels`` ``{gpusched/worker-type: <type>}``
    when its worker type is not its name), Cohort, ClusterQueue (one resource group covering
    ``nvidia.com/gpu``), LocalQueue and WorkloadPriorityClass, then a manager Configuration
    when fair sharing is on or admission fair sharing's half-life is > 0.

    ``read_kueue_yaml(write_kueue_yaml(c), worker_types) == c`` for a checked config whose
    flavors' ``worker_type`` is "" or not their name, with no ``default_local_queue`` (not a
    Kueue object) and, when fair sharing is off, Kueue's default preemption strategies (a
    disabled section is not written).

    Args:
        api_version: ``"v1beta2"`` (default) or ``"v1beta1"`` (``spec.cohort``, and fungibility
            written ``Borrow`` / ``Preempt`` for MayStopSearch).

    Raises:
        ConfigError: for another ``api_version``.
    """
    if api_version not in API_VERSIONS:
        raise ConfigError(f"api_version must be one of {list(API_VERSIONS)}, got {api_version!r}")
    group = f"kueue.x-k8s.io/{api_version}"
    docs: list[dict[str, Any]] = []
    for flavor in config.flavors:
        spec: dict[str, Any] = {}
        if flavor.worker_type and flavor.worker_type != flavor.name:
            spec["nodeLabels"] = {WORKER_TYPE_LABEL: flavor.worker_type}
        docs.append(_object(group, "ResourceFlavor", {"name": flavor.name}, spec=spec))
    docs += [_cohort(group, cohort) for cohort in config.cohorts]
    docs += [_cluster_queue(group, cq, api_version) for cq in config.cluster_queues]
    for queue in config.local_queues:
        meta = {"name": queue.name, "namespace": queue.namespace}
        lq_spec: dict[str, Any] = {"clusterQueue": queue.cluster_queue}
        if queue.fair_weight != 1.0:
            lq_spec["fairSharing"] = {"weight": _weight_text(queue.fair_weight)}
        docs.append(_object(group, "LocalQueue", meta, spec=lq_spec))
    for priority in config.priority_classes:
        docs.append(_object(group, "WorkloadPriorityClass", {"name": priority.name}))
        docs[-1]["value"] = priority.value
    configuration = _configuration(config, api_version)
    if configuration:
        docs.append(configuration)
    return yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False)


def _object(
    group: str, kind: str, metadata: dict[str, str], spec: dict[str, Any] | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"apiVersion": group, "kind": kind, "metadata": metadata}
    if spec is not None:
        out["spec"] = spec
    return out


def _cohort(group: str, cohort: Cohort) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if cohort.parent:
        spec["parentName"] = cohort.parent
    if cohort.flavors:
        spec["resourceGroups"] = _resource_groups(cohort.flavors)
    if cohort.fair_weight != 1.0:
        spec["fairSharing"] = {"weight": _weight_text(cohort.fair_weight)}
    return _object(group, "Cohort", {"name": cohort.name}, spec=spec)


def _cluster_queue(group: str, cq: ClusterQueue, api_version: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"namespaceSelector": {}}
    if cq.cohort:
        spec["cohort" if api_version == "v1beta1" else "cohortName"] = cq.cohort
    spec["queueingStrategy"] = cq.queueing_strategy
    if cq.flavors:
        spec["resourceGroups"] = _resource_groups(cq.flavors)
    old = api_version == "v1beta1"
    spec["flavorFungibility"] = {
        "whenCanBorrow": "Borrow"
        if old and cq.when_can_borrow == "MayStopSearch"
        else cq.when_can_borrow,
        "whenCanPreempt": "Preempt"
        if old and cq.when_can_preempt == "MayStopSearch"
        else cq.when_can_preempt,
    }
    p = cq.preemption
    borrow: dict[str, Any] = {"policy": p.borrow_within_cohort}
    if p.max_priority_threshold is not None:
        borrow["maxPriorityThreshold"] = p.max_priority_threshold
    spec["preemption"] = {
        "withinClusterQueue": p.within_cluster_queue,
        "reclaimWithinCohort": p.reclaim_within_cohort,
        "borrowWithinCohort": borrow,
    }
    if cq.fair_weight != 1.0:
        spec["fairSharing"] = {"weight": _weight_text(cq.fair_weight)}
    if cq.admission_fair_sharing:
        spec["admissionScope"] = {"admissionMode": ADMISSION_FAIR_SHARING_MODE}
    return _object(group, "ClusterQueue", {"name": cq.name}, spec=spec)


def _resource_groups(quotas: tuple[FlavorQuota, ...]) -> list[dict[str, Any]]:
    flavors = []
    for quota in quotas:
        resource: dict[str, Any] = {"name": GPU_RESOURCES[0], "nominalQuota": quota.nominal_gpus}
        if quota.borrowing_limit_gpus is not None:
            resource["borrowingLimit"] = quota.borrowing_limit_gpus
        if quota.lending_limit_gpus is not None:
            resource["lendingLimit"] = quota.lending_limit_gpus
        flavors.append({"name": quota.flavor, "resources": [resource]})
    return [{"coveredResources": [GPU_RESOURCES[0]], "flavors": flavors}]


def _weight_text(weight: float) -> str:
    """A quantity string that reads back as ``weight`` exactly ("0.75", "2", "1e-05")."""
    text = repr(float(weight))
    return text[:-2] if text.endswith(".0") else text


def _configuration(config: QueueConfig, api_version: str) -> dict[str, Any]:
    fair = config.fair_sharing
    if not fair.enabled and fair.admission_half_life_s <= 0:
        return {}
    out: dict[str, Any] = {
        "apiVersion": f"config.kueue.x-k8s.io/{api_version}",
        "kind": "Configuration",
    }
    if fair.enabled:
        strategies = list(fair.preemption_strategies or FAIR_SHARING_STRATEGIES)
        section: dict[str, Any] = {"enable": True} if api_version == "v1beta1" else {}
        out["fairSharing"] = {**section, "preemptionStrategies": strategies}
    if fair.admission_half_life_s > 0:
        out["admissionFairSharing"] = {
            "usageHalfLifeTime": format_duration(fair.admission_half_life_s),
            "usageSamplingInterval": format_duration(fair.admission_sampling_s),
        }
    return out


__all__ = ["read_kueue_yaml", "write_kueue_yaml"]

"""Kueue Workloads as a trace: the YAML ``kubectl get workloads -A -o yaml`` writes.

Source: Kueue's Workload API (kubernetes-sigs/kueue, Apache-2.0, read at commit ff69552e):
``apis/kueue/v1beta1/workload_types.go`` and ``apis/kueue/v1beta2/workload_types.go``
(``WorkloadSpec.podSets``, ``queueName``, ``priority``, ``priorityClassName`` (v1beta1) /
``priorityClassRef`` (v1beta2); ``WorkloadStatus.conditions`` of types ``Admitted``,
``QuotaReserved`` and ``Finished``; ``accumulatedPastExecutionTimeSeconds``, spelt
``accumulatedPastExexcutionTimeSeconds`` in v1beta1), ``pkg/workload/finish/finish.go`` (the
Finished condition's time is when the job ended), and ``site/content/en/docs/concepts/workload.md``.

Per Workload (one job, ``<namespace>/<name>``): the arrival is ``metadata.creationTimestamp``
(RFC 3339) in seconds from the file's earliest; the queue ``spec.queueName``; the priority
``spec.priority`` (default 0; a priority class's name is only noted); the GPUs the sum over
``spec.podSets`` of ``count`` x the pod template's GPUs (per container ``resources.requests``,
else ``limits``, of ``nvidia.com/gpu`` or ``amd.com/gpu``; init containers are not counted).
The observed run time is the Finished condition's ``lastTransitionTime`` minus the Admitted (else
QuotaReserved) condition's, plus the time of earlier admissions when the status records it.

Workloads record neither the model nor the GPU type, so job types and step counts follow rules 1
and 3 of `engine.traces.rules`, exactly as for Philly. The file is read with the limits of
:mod:`engine.quota.yaml_docs` (size, count, depth, no anchors).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from engine.errors import EngineError, TraceError
from engine.quota.yaml_docs import Fail, Fields, KubeObject, load_objects
from engine.traces import rules
from engine.traces.registry import FORMATS, LoadContext, Loaded, TraceFormat
from engine.traces.validate import build_jobs

GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu")
API_VERSIONS = ("kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2")
_YAML_STARTS = ("apiVersion:", "kind:", "items:", "---")


@dataclass(frozen=True)
class Workload:
    """One Workload as the trace needs it (times in seconds since the Unix epoch)."""

    job_id: str
    created_s: float
    queue: str
    priority: int
    gpus: int
    duration_s: float
    priority_class: str


def _detect(line: str) -> bool:
    return line.lstrip().startswith(_YAML_STARTS)


def load_kueue_workloads(text: str, ctx: LoadContext) -> Loaded:
    """Imports Kueue Workloads; see the module docstring for the fields and rules.

    Returns:
        The canonical jobs table with ``queue`` and ``priority`` (one row per Workload, in file
        order as ``source_row``) and notes on the assumptions.

    Raises:
        TraceError: naming the file and the Workload and field of the first problem: an object
            that is no Workload, a missing or bad creationTimestamp, no GPUs, a workload that
            has not finished or was never admitted, and the YAML limits.
    """

    def fail(message: str) -> EngineError:
        return TraceError(message, file=ctx.file)

    rules.check_worker_type(ctx.matrix, ctx.assumed_worker_type, ctx.file)
    workloads = [read_workload(obj, fail) for obj in load_objects(text, fail)]
    if not workloads:
        raise TraceError("the file holds no Workloads", file=ctx.file)
    created = np.array([w.created_s for w in workloads])
    scale_factor = np.array([w.gpus for w in workloads], dtype=np.int64)
    duration_s = np.array([w.duration_s for w in workloads])
    job_type = rules.draw_job_types(
        scale_factor, ctx.matrix, ctx.assumed_worker_type, ctx.rng, ctx.file
    )
    jobs = build_jobs(
        ctx.file,
        ctx.matrix,
        job_id=[w.job_id for w in workloads],
        arrival_s=created - created.min(),
        job_type=job_type,
        scale_factor=scale_factor,
        total_steps=ctx.steps_from_duration(job_type, scale_factor, duration_s),
        duration_s=duration_s,
        queue=[w.queue for w in workloads],
        priority=np.array([w.priority for w in workloads], dtype=np.int64),
        columns={
            "job_id": "metadata.name",
            "arrival_s": "metadata.creationTimestamp",
            "scale_factor": "spec.podSets",
            "duration_s": "status.conditions",
        },
    )
    notes = [
        rules.assumed_type_note("Kueue Workloads", ctx.assumed_worker_type),
        rules.drawn_types_note("Kueue Workloads", ctx.matrix, ctx.assumed_worker_type),
    ]
    classes = Counter(w.priority_class for w in workloads if w.priority_class)
    if classes:
        named = ", ".join(f"{name}: {count}" for name, count in sorted(classes.items()))
        notes.append(
            f"{sum(classes.values())} Workload(s) name a priority class ({named}); "
            "their spec.priority is the priority used"
        )
    return Loaded(jobs, tuple(notes))


def read_workload(obj: KubeObject, fail: Fail) -> Workload:
    """One Workload object read into a :class:`Workload`.

    Raises:
        EngineError: (``fail``) naming the Workload (``namespace/name``) and the field.
    """
    job_id = f"{obj.namespace or 'default'}/{obj.name}"
    fields = Fields(obj.body, f"Workload {job_id!r} ({obj.label})", "", fail)
    if obj.kind != "Workload":
        raise fail(
            f"{obj.where} is a {obj.kind or 'object without kind'}, not a Workload; "
            "this format reads `kubectl get workloads -A -o yaml`"
        )
    if obj.api_version not in API_VERSIONS:
        raise fields.error(
            "apiVersion", f"must be kueue.x-k8s.io/v1beta1 or v1beta2, got {obj.api_version!r}"
        )
    metadata = fields.mapping("metadata")
    metadata.text("name")
    spec = fields.mapping("spec")
    status = fields.mapping("status")
    return Workload(
        job_id=job_id,
        created_s=_time(metadata, "creationTimestamp"),
        queue=spec.text("queueName", ""),
        priority=spec.integer("priority", 0),
        gpus=_gpus(spec),
        duration_s=_duration(status),
        priority_class=spec.text("priorityClassName", "")
        or spec.mapping("priorityClassRef").text("name", ""),
    )


def _time(fields: Fields, key: str) -> float:
    """An RFC 3339 time (text, or a timestamp YAML already read) in seconds since the epoch."""
    value = fields.raw(key)
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            raise fields.error(
                key, f"{value!r} is not an RFC 3339 time such as 2025-01-31T09:30:00Z"
            ) from None
    if not isinstance(value, datetime):
        raise fields.error(key, f"must be an RFC 3339 time, got {value!r}")
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()


def _gpus(spec: Fields) -> int:
    total = 0
    pod_sets = spec.mappings("podSets")
    for pod_set in pod_sets:
        count = pod_set.integer("count")
        if count < 0:
            raise pod_set.error("count", f"must be >= 0, got {count}")
        pod = pod_set.mapping("template").mapping("spec")
        total += count * sum(_container_gpus(c) for c in pod.mappings("containers"))
    if total <= 0:
        gpu_names = " or ".join(GPU_RESOURCES)
        message = f"requests no GPUs ({gpu_names} in the containers' resources.requests or "
        raise spec.error("podSets", message + "limits); a job of the trace needs at least one")
    return total


def _container_gpus(container: Fields) -> int:
    resources = container.mapping("resources")
    for section in ("requests", "limits"):
        amounts = resources.mapping(section)
        for name in GPU_RESOURCES:
            quantity = amounts.quantity(name)
            if quantity is None:
                continue
            if quantity < 0 or quantity.denominator != 1:
                raise amounts.error(
                    name, f"must be a whole number of GPUs >= 0, got {amounts.raw(name)!r}"
                )
            return int(quantity)
    return 0


def _duration(status: Fields) -> float:
    """Finished minus Admitted (else QuotaReserved), plus earlier admissions' time."""
    times: dict[str, float] = {}
    for condition in status.mappings("conditions"):
        kind = condition.text("type", "")
        if kind in ("Admitted", "QuotaReserved", "Finished") and condition.raw("status") == "True":
            times[kind] = _time(condition, "lastTransitionTime")
    if "Finished" not in times:
        raise status.error(
            "conditions",
            "the Workload has not finished (no Finished condition "
            "with status True), so its run time is unknown; export finished "
            "Workloads only",
        )
    start = times.get("Admitted", times.get("QuotaReserved"))
    if start is None:
        raise status.error(
            "conditions",
            "the Workload finished without an Admitted or "
            "QuotaReserved condition with status True, so its run time is "
            "unknown",
        )
    earlier = 0
    for key in ("accumulatedPastExecutionTimeSeconds", "accumulatedPastExexcutionTimeSeconds"):
        earlier += status.integer(key, 0)
    duration_s = times["Finished"] - start + earlier
    if duration_s <= 0:
        raise status.error(
            "conditions",
            f"the Finished condition is not after the admission "
            f"(run time {duration_s:g} s); a job of the trace must run",
        )
    return duration_s


FORMATS.register(
    "kueue-workloads",
    TraceFormat(
        description="Kueue Workloads (kubectl get workloads -A -o yaml)",
        detect=_detect,
        load=load_kueue_workloads,
        has_header=False,
        detect_order=40,  # a YAML document's start: no CSV header looks like it
        draws_job_types=True,
        suffixes=("yaml", "yml"),
    ),
)

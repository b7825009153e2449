"""Tiresias LAS's queue keys (:mod:`engine.policies.las`): a job's queue by its attained
service since its last promotion, in GPU-seconds (two-dimensional: GPUs x time, Gu et al.,
NSDI 2019), and its place in the queue (its index, or a requeue stamp), in one int that orders
the jobs as LAS serves them.

Compiled with mypyc with :mod:`engine.policies.las` (:mod:`engine.native`).
"""

from __future__ import annotations

import math
from typing import Final

from engine.errors import ConfigError
from engine.state import JobState

THRESHOLDS_GPU_S: Final = "3600"
"""The default ``queue_thresholds_gpu_s`` of LAS and of every policy that queues as LAS does
(packing LAS, Dally): one threshold, so two queues [R] (Tiresias reports that two queues
capture most of the benefit; :mod:`engine.policies.las.policy`)."""
THRESHOLDS_HELP: Final = "Comma-separated queue thresholds in GPU-seconds, increasing"
"""The help text of ``queue_thresholds_gpu_s`` (:func:`parse_thresholds` reads it)."""

KEY_BITS: Final = 40
"""A key is ``queue << KEY_BITS | order``: the job's index (indices follow arrival order), or
its requeue stamp under ``requeue`` (:class:`engine.policies.las.policy.LasParams`)."""


def service_gpu_s(job: JobState, offset_gpu_s: float, now_s: float) -> float:
    """Attained service since the job's last promotion (``offset_gpu_s``), at ``now_s``."""
    service = job.attained_service_gpu_s - offset_gpu_s
    placement = job.placement
    if placement is not None:
        service += (now_s - job.last_update_s) * placement.num_gpus
    return service


def queue_key(
    thresholds: tuple[float, ...], job: JobState, offset_gpu_s: float, now_s: float, order: int
) -> int:
    """The job's key at ``now_s``: its queue (thresholds its service since its last promotion,
    ``attained - offset_gpu_s``, has passed) << :data:`KEY_BITS` | ``order`` (its place in
    the queue)."""
    service = service_gpu_s(job, offset_gpu_s, now_s)
    return (queue_of(thresholds, service) << KEY_BITS) | order


def queue_of(thresholds: tuple[float, ...], service: float) -> int:
    """The number of thresholds at or below ``service`` (GPU-s): ``bisect.bisect_right``'s
    answer on the increasing thresholds (a loop over a few native floats, no call out)."""
    queue = 0
    for threshold in thresholds:
        if service < threshold:
            break
        queue += 1
    return queue


def running_key(
    thresholds: tuple[float, ...],
    job: JobState,
    offset_gpu_s: float,
    now_s: float,
    margin_gpu_s: float,
    order: int,
) -> tuple[int, float]:
    """A running job's key (:func:`queue_key`) and a time before which it cannot change: its
    service grows at ``num_gpus`` GPU-s per second, and the time is ``margin_gpu_s`` of service
    short of the next threshold (``engine.policies.las.policy._KEY_MARGIN_GPU_S``, far beyond
    rounding)."""
    placement = job.placement
    service = service_gpu_s(job, offset_gpu_s, now_s)
    queue = queue_of(thresholds, service)
    until_s = -math.inf  # not placed: look again next time
    if queue == len(thresholds):
        until_s = math.inf
    elif placement is not None:
        until_s = now_s + (thresholds[queue] - service - margin_gpu_s) / placement.num_gpus
    return (queue << KEY_BITS) | order, until_s


def parse_thresholds(text: str) -> tuple[float, ...]:
    """``"3600, 36000"`` -> ``(3600.0, 36000.0)``; empty text means a single queue.

    Raises:
        ConfigError: if a value is not a positive number or the values do not increase.
    """
    try:
        values = tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError as exc:
        raise ConfigError(f"las: queue_thresholds_gpu_s {text!r} is not a list of numbers") from exc
    if any(v <= 0 for v in values) or list(values) != sorted(set(values)):
        raise ConfigError(f"las: queue_thresholds_gpu_s {text!r} must be positive and increasing")
    return values

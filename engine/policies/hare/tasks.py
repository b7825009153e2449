"""Task-level pieces shared by Hare's two policies: task times, GPU picks and relaxed grants.

Hare (Chen, Li, Wu, Guo, "Hare: Exploiting Inter-job and Intra-job Parallelism of Distributed
Machine Learning on Heterogeneous GPUs", IEEE TCC 12(4), 2024, doi 10.1109/TCC.2024.3414440;
HPDC 2022) runs a job as training rounds of ``scale_factor`` independent tasks (one worker-batch
each) that may sit on GPUs of any types; the round ends when all are done. Here a job holds a
``relaxed`` grant of up to ``scale_factor`` GPUs and the engine turns it into progress with
:func:`engine.step_time.progress.relaxed_round`.

Reconstructions [R]:

- A task is one worker-batch: ``1 / steps_per_s(job_type, k, 1)`` seconds on worker type ``k``
  (the scenario's throughput matrix, as :mod:`engine.step_time.progress` uses); sync is left out of
  the
  policies' estimates.
- A pick takes up to ``scale_factor`` free GPUs, fastest type first (ties: type name), and keeps
  only those that get a task in the round's earliest-finish-time schedule: a GPU too slow to
  take a task would idle (its held time still counts as attained service).

A round's schedule depends only on the task times and the GPU counts, and the policies ask for
the same few rounds at every decision, so :func:`round_s` and :func:`used_gpus` memoize them
(:func:`_round_plan`); the values are those of :func:`engine.step_time.progress.relaxed_round`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from engine.policies.base import Grant, Part
from engine.state import JobState
from engine.step_time.progress import relaxed_round
from engine.step_time.throughput import ThroughputMatrix

TaskTimes = dict[str, float]
"""Worker type -> seconds of one task of a job, fastest type first; only types it fits."""


def task_times(job: JobState, matrix: ThroughputMatrix) -> TaskTimes:
    """Seconds per task on each worker type of the cluster that the job fits, fastest first
    (ties: type name)."""
    speeds = {wt: matrix.steps_per_s(job.job_type, wt, 1) for wt in job.ref_speed}
    order = sorted((wt for wt in speeds if speeds[wt] > 0), key=lambda wt: (-speeds[wt], wt))
    return {wt: 1.0 / speeds[wt] for wt in order}


def expand(counts: Mapping[str, int], times: TaskTimes) -> list[float]:
    """Task time per GPU, fastest type first: ``{"v100": 2}`` -> ``[t_v100, t_v100]``."""
    return [times[wt] for wt in times for _ in range(counts.get(wt, 0))]


def round_s(counts: Mapping[str, int], times: TaskTimes, num_tasks: int) -> float:
    """Seconds of compute of one round of ``num_tasks`` tasks on ``counts`` (inf if no GPU)."""
    key = _key(counts, times)
    return _round_plan(*key, num_tasks)[0] if any(key[1]) else float("inf")


def _key(counts: Mapping[str, int], times: TaskTimes) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """(task seconds per type, GPUs per type), fastest type first: the round's whole input."""
    return tuple(times.values()), tuple(counts.get(wt, 0) for wt in times)


@lru_cache(maxsize=1 << 16)
def _round_plan(
    seconds: tuple[float, ...], counts: tuple[int, ...], num_tasks: int
) -> tuple[float, frozenset[int]]:
    """(compute seconds, GPUs that get a task) of :func:`engine.step_time.progress.relaxed_round` on
    ``counts[k]`` GPUs of ``seconds[k]`` per task, GPUs numbered fastest type first."""
    task_s = [t for t, n in zip(seconds, counts, strict=True) for _ in range(n)]
    plan = relaxed_round(task_s, num_tasks)
    return plan.compute_s, frozenset(task.gpu for task in plan.tasks)


def pick_gpus(times: TaskTimes, free: Mapping[str, int], num_tasks: int) -> dict[str, int]:
    """Up to ``num_tasks`` free GPUs, fastest first, minus those that would get no task.

    Returns:
        GPUs per worker type, fastest type first; empty if no fitting type has a free GPU.
    """
    counts: dict[str, int] = {}
    wanted = num_tasks
    for worker_type in times:
        take = min(wanted, free.get(worker_type, 0))
        if take > 0:
            counts[worker_type] = take
            wanted -= take
            if wanted == 0:
                break
    if len(counts) <= 1:  # one type: every GPU gets a task (at most num_tasks of them)
        return counts
    return used_gpus(counts, times, num_tasks)


def choose(job: JobState, times: TaskTimes, free: Mapping[str, int]) -> tuple[dict[str, int], bool]:
    """GPUs for ``job`` out of ``free``.

    Returns:
        (GPUs per worker type, True) for the job's current grant when those GPUs are still free
        and its round would be no slower on a fresh pick (no needless switch); else
        (a fresh :func:`pick_gpus`, False), empty when no fitting type has a free GPU.
    """
    fresh = pick_gpus(times, free, job.scale_factor)
    if job.grant is not None:
        held = grant_counts(job.grant)
        if held == fresh:
            return held, True
        if fits_in(held, free) and round_s(held, times, job.scale_factor) <= round_s(
            fresh, times, job.scale_factor
        ):
            return held, True
    return fresh, False


def used_gpus(counts: Mapping[str, int], times: TaskTimes, num_tasks: int) -> dict[str, int]:
    """The GPUs of ``counts`` that get a task in the earliest-finish-time round schedule."""
    used = _round_plan(*_key(counts, times), num_tasks)[1]
    out: dict[str, int] = {}
    gpu = 0
    for worker_type in times:
        for _ in range(counts.get(worker_type, 0)):
            if gpu in used:
                out[worker_type] = out.get(worker_type, 0) + 1
            gpu += 1
    return out


def eft_task_counts(ready_s: Sequence[float], task_s: Sequence[float], num_tasks: int) -> list[int]:
    """Tasks each GPU runs when ``num_tasks`` identical tasks go, one by one, to the GPU where
    they finish earliest; GPU ``g`` is free from ``ready_s[g]`` and takes ``task_s[g]`` s a task
    (ties: lower index): :func:`engine.step_time.progress.relaxed_round` with ready times.

    Raises:
        ValueError: if the sequences differ in length or a task time is not positive.
    """
    if len(ready_s) != len(task_s) or any(t <= 0 for t in task_s):
        raise ValueError("eft_task_counts needs one ready time and a positive task time per GPU")
    counts = [0] * len(task_s)
    if task_s:
        for task in relaxed_round(task_s, num_tasks, ready_s).tasks:
            counts[task.gpu] += 1
    return counts


def relaxed_grant(counts: Mapping[str, int], times: TaskTimes) -> Grant:
    """A ``relaxed`` grant of ``counts`` (parts fastest type first, so equal picks compare
    equal and a running job keeps its GPUs)."""
    return Grant.of_parts(
        (Part(wt, counts[wt]) for wt in times if counts.get(wt, 0) > 0), combine="relaxed"
    )


def grant_counts(grant: Grant) -> dict[str, int]:
    """GPUs per worker type of a grant."""
    if not grant.parts:
        return {grant.worker_type: grant.num_gpus}
    counts: dict[str, int] = {}
    for worker_type, num_gpus, _ in grant.parts:
        counts[worker_type] = counts.get(worker_type, 0) + num_gpus
    return counts


def fits_in(counts: Mapping[str, int], free: Mapping[str, int]) -> bool:
    """Whether ``free`` still holds ``counts``."""
    return all(free.get(wt, 0) >= n for wt, n in counts.items())

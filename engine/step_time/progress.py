"""How the GPUs a job holds turn into progress: the step-time model of every combine mode.

A job's progress is counted in the throughput matrix's steps, summed over workers (Gavel's
convention: an ``n``-GPU iteration advances ``n`` steps and takes ``n / throughput`` seconds).
Write ``r_k`` for the job's one-GPU throughput on worker type ``k`` (one worker-batch takes
``1 / r_k`` s) and ``sf`` for its scale factor (its global batch is ``sf`` worker-batches).

- ``gang``, one worker type: the measured throughput at that size, plus what the placement and
  congestion add to the all-reduce (:func:`engine.step_time.network.step_model_at`).
- ``gang``, mixed types [R, shared/docs/schedulers.md "Mixed worker types"]: every worker
  computes one worker-batch in lockstep, so an iteration takes ``max_k 1/r_k`` plus the sync.
- ``proportional`` [R, Liu et al. TPDS 2024, "proportional workload assignment"]: the global
  batch is split in proportion to throughput, so compute takes ``sf / sum_w r_w`` plus the sync.
- ``relaxed`` [R, Hare, Chen et al. TCC 2024]: the ``sf`` tasks of a training round run on the
  held GPUs in earliest-finish-time order (:func:`relaxed_round`); the round ends at the sync
  after its last task, among the GPUs that ran a task (a held GPU too slow to help idles).
- ``copies`` [R, HadarE, Sultana et al. 2025]: each node entry is a copy training alone at the
  measured node-local throughput; all copies advance one shared step counter, and every round
  ends with a model consolidation costing ``gradient_bytes / bandwidth + fixed`` seconds, during
  which no copy trains (spread evenly over the round; the engine adds one more consolidation
  when the job's last step is done, see :attr:`engine.state.JobState.final_s`).

Statistical efficiency [R, Pollux: Qiao et al., OSDI 2021, eq. 2, after McCandlish et al., "An
Empirical Model of Large-Batch Training", arXiv:1812.06162, 2018]. Steps are samples, so a job
whose GPUs process a global batch ``b`` times the one it asked for (``b = GPUs / scale_factor``
for a gang or for copies, whose consolidated update averages every copy's batch; 1 for the
``proportional`` and ``relaxed`` modes, which split the requested batch) needs more samples for
the same training progress. Progress per sample relative to the requested batch ``M0`` is
``E(b) = (phi + M0) / (phi + b M0) = (r + 1) / (r + b)`` with ``r = phi / M0`` the gradient noise
scale over the requested batch (:func:`statistical_efficiency`); so ``n`` GPUs never progress more
than ``(1 + r) sf`` GPUs' worth however many are added. ``b <= 1`` counts 1 (Pollux never shrinks
a batch below ``M0``). Averaging copies' models once a round (local SGD) is taken to be as good as
one synchronous ``b``-fold batch, an upper bound. Default ``r = 1`` (:data:`NOISE_SCALE_RATIO`):
the requested batch sits at the job's critical batch size, where McCandlish et al. place a
well-tuned batch (the knee between sample- and step-efficient training).

The sync of a multi-GPU iteration is the measured overhead of a consolidated ring on the slowest
type present (``m / r_k(m) - 1 / r_k``, from Gavel's table), plus what the placement's bottleneck
link adds over a node-local ring (the ring model, when the network is enabled). For a one-type
gang of ``sf`` GPUs every mode gives the measured throughput.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import NamedTuple

from engine.cluster import Placement
from engine.config import NetworkConfig
from engine.step_time.network import StepModel, bottleneck_gbps, ring_comm_s, step_model_at
from engine.step_time.throughput import ThroughputMatrix

NOISE_SCALE_RATIO = 1.0
"""Default gradient noise scale over a job's requested global batch (``r``, module docstring)."""


class JobModel(NamedTuple):
    """What the step-time model needs to know about a job."""

    job_type: str
    scale_factor: int
    gradient_bytes: float


class TaskRun(NamedTuple):
    """One task of a relaxed training round: which GPU ran it, from when to when (s)."""

    gpu: int
    start_s: float
    end_s: float


class RoundPlan(NamedTuple):
    """A relaxed training round: its tasks and when the last one finishes (s, from 0)."""

    tasks: tuple[TaskRun, ...]
    compute_s: float


def relaxed_round(
    task_s: Sequence[float], num_tasks: int, ready_s: Sequence[float] | None = None
) -> RoundPlan:
    """Schedules ``num_tasks`` identical tasks on GPUs taking ``task_s[g]`` seconds each.

    Each task goes to the GPU where it would finish earliest (ties: lower GPU index), which is
    optimal for identical tasks on uniformly related machines. Hare's relaxed fixed-scale
    synchronization (Chen et al., IEEE TCC 2024, doi 10.1109/TCC.2024.3414440).

    Args:
        task_s: seconds per task on each GPU (> 0), one entry per GPU held.
        num_tasks: tasks in the round (the job's scale factor).
        ready_s: when each GPU is free to start (default: all at 0), e.g. a busy GPU that
            another job still holds.

    Raises:
        ValueError: no GPUs, a non-positive task time, or ``ready_s`` of another length.
    """
    if not task_s or min(task_s) <= 0:
        raise ValueError(f"relaxed_round needs GPUs with positive task times, got {task_s}")
    ready = ready_s if ready_s is not None else [0.0] * len(task_s)
    if len(ready) != len(task_s):
        raise ValueError("relaxed_round needs one ready time per GPU")
    # (finish time of its next task, gpu)
    heap = [(start + t, gpu) for gpu, (start, t) in enumerate(zip(ready, task_s, strict=True))]
    heapq.heapify(heap)
    tasks = []
    for _ in range(num_tasks):
        end, gpu = heapq.heappop(heap)
        tasks.append(TaskRun(gpu, end - task_s[gpu], end))
        heapq.heappush(heap, (end + task_s[gpu], gpu))
    return RoundPlan(tuple(tasks), max(t.end_s for t in tasks) if tasks else 0.0)


def statistical_efficiency(batch_ratio: float, noise_scale_ratio: float) -> float:
    """Training progress per sample at ``batch_ratio`` times the requested global batch,
    relative to the requested batch: ``(r + 1) / (r + b)`` for ``b > 1``, else 1 (Pollux,
    Qiao et al., OSDI 2021; see the module docstring). In (0, 1].

    Raises:
        ValueError: a negative ``noise_scale_ratio``.
    """
    if noise_scale_ratio < 0:
        raise ValueError(f"noise_scale_ratio must be >= 0, got {noise_scale_ratio}")
    if batch_ratio <= 1:
        return 1.0
    return (noise_scale_ratio + 1) / (noise_scale_ratio + batch_ratio)


def batch_ratio(job: JobModel, placement: Placement) -> float:
    """Global batch of ``placement`` over the job's requested one (module docstring)."""
    if placement.combine in ("proportional", "relaxed"):
        return 1.0
    return placement.num_gpus / job.scale_factor


def progress_rate(
    job: JobModel,
    placement: Placement,
    matrix: ThroughputMatrix,
    net: NetworkConfig,
    now_s: float,
    round_s: float,
    consolidation_fixed_s: float = 0.0,
    bandwidth_gbps: float | None = None,
    noise_scale_ratio: float = NOISE_SCALE_RATIO,
) -> StepModel:
    """Training progress (steps/s at the requested batch's efficiency, summed over workers) and
    communication share of ``job`` on ``placement``.

    Args:
        round_s: round length; ``copies`` placements consolidate once per round.
        consolidation_fixed_s: fixed part of a consolidation (s), on top of the transfer.
        bandwidth_gbps: the placement's bottleneck bandwidth, as the engine's link model gives
            it; None uses the nominal bandwidth of the placement's level (an estimate).
        noise_scale_ratio: ``r`` of :func:`statistical_efficiency`.
    """
    rate, share = _throughput(
        job, placement, matrix, net, now_s, round_s, consolidation_fixed_s, bandwidth_gbps
    )
    efficiency = statistical_efficiency(batch_ratio(job, placement), noise_scale_ratio)
    return StepModel(rate * efficiency, share)


def _throughput(
    job: JobModel,
    placement: Placement,
    matrix: ThroughputMatrix,
    net: NetworkConfig,
    now_s: float,
    round_s: float,
    consolidation_fixed_s: float,
    bandwidth_gbps: float | None,
) -> StepModel:
    """Samples/s (worker-batches/s) and communication share, before statistical efficiency."""
    if bandwidth_gbps is None:
        bandwidth_gbps = bottleneck_gbps(net, placement.level, placement.racks, now_s)
    if placement.combine == "copies":
        return _copies_rate(job, placement, matrix, net, round_s, consolidation_fixed_s,
                            bandwidth_gbps)  # fmt: skip
    if placement.combine == "gang" and not placement.node_types:
        measured = matrix.steps_per_s(job.job_type, placement.worker_type, placement.num_gpus)
        return step_model_at(measured, placement.num_gpus, job.gradient_bytes, bandwidth_gbps, net)
    by_type = placement.gpus_by_type()
    one_gpu = {wt: matrix.steps_per_s(job.job_type, wt, 1) for wt in by_type}
    n = placement.num_gpus
    if placement.combine == "relaxed":
        task_s = [1 / one_gpu[wt] for wt, count in by_type.items() for _ in range(count)]
        plan = relaxed_round(task_s, job.scale_factor)
        compute_s = plan.compute_s
        workers, batch = len({task.gpu for task in plan.tasks}), job.scale_factor
    elif placement.combine == "proportional":
        compute_s = job.scale_factor / sum(one_gpu[wt] * c for wt, c in by_type.items())
        workers, batch = n, job.scale_factor
    else:  # gang of mixed types: lockstep at the slowest worker
        compute_s = max(1 / one_gpu[wt] for wt in by_type)
        workers, batch = n, n
    sync_s = _sync_s(job, matrix, by_type, workers, bandwidth_gbps, net)
    iteration_s = compute_s + sync_s
    return StepModel(batch / iteration_s, min(1.0, sync_s / iteration_s))


def _sync_s(
    job: JobModel,
    matrix: ThroughputMatrix,
    types: dict[str, int],
    workers: int,
    bandwidth_gbps: float,
    net: NetworkConfig,
) -> float:
    """Measured consolidated sync of the slowest type, plus the placement's network extra."""
    if workers <= 1:
        return 0.0
    measured = 0.0
    for worker_type in types:
        at_n = matrix.steps_per_s(job.job_type, worker_type, workers)
        one = matrix.steps_per_s(job.job_type, worker_type, 1)
        if at_n > 0:
            measured = max(measured, workers / at_n - 1 / one)
        else:  # no measurement at this size: the ring model supplies the whole sync
            measured = max(
                measured,
                ring_comm_s(workers, job.gradient_bytes, net.intra_node_gbps, net.latency_s),
            )
    if not net.enabled:
        return measured
    actual = ring_comm_s(workers, job.gradient_bytes, bandwidth_gbps, net.latency_s)
    baseline = ring_comm_s(workers, job.gradient_bytes, net.intra_node_gbps, net.latency_s)
    return measured + max(0.0, actual - baseline)


def consolidation_s(
    job: JobModel, placement: Placement, bandwidth_gbps: float, fixed_s: float
) -> float:
    """Seconds of one model consolidation of a ``copies`` placement (0 with a single copy):
    ``gradient_bytes / bandwidth`` over the copies' bottleneck link, plus ``fixed_s``."""
    if len(placement.nodes) <= 1:
        return 0.0
    return job.gradient_bytes * 8 / (bandwidth_gbps * 1e9) + fixed_s


def _copies_rate(
    job: JobModel,
    placement: Placement,
    matrix: ThroughputMatrix,
    net: NetworkConfig,
    round_s: float,
    fixed_s: float,
    bandwidth_gbps: float,
) -> StepModel:
    total = sum(
        matrix.steps_per_s(job.job_type, worker_type, count)
        for worker_type, count in zip(placement.types_of_nodes(), placement.counts, strict=True)
    )
    share = min(1.0, consolidation_s(job, placement, bandwidth_gbps, fixed_s) / round_s)
    return StepModel(total * (1 - share), share)

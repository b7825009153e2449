"""Step-time model of the sampling-based placement policy, vectorized over categories.

:func:`model_arrays` gives the compiled kernels (:mod:`engine.policies.sampling.kernels_rates`)
what they need to compute, for every category and job at once, the steps/s the engine will give
a job holding a given number of GPUs of each worker type (:mod:`engine.step_time.progress`):

- one type, the job's full scale factor, measured there: a plain gang, the measured throughput
  (a proportional split of one type can only be slower, see
  :func:`engine.step_time.progress._sync_s`);
- otherwise ``proportional`` (Liu et al., TPDS 2024): compute ``scale_factor / sum_w r_w`` plus
  the measured consolidated sync of the slowest type present at that size;
- either way, plus what the slowest link adds to the ring all-reduce over a node-local ring.

The link is an estimate [R]: the policy picks types and counts, and the scenario's placement
strategy picks nodes. A one-type job is assumed node-local if a node of that type is big enough,
else rack-local if a rack is, else cross-rack; a mixed-type job rack-local if one rack holds all
its types, else cross-rack; congestion counts on every rack holding the job's types.

:func:`job_row` reads the one-GPU rates and the measured sync overheads from the scenario's
throughput matrix (:attr:`engine.policies.base.PolicyContext.matrix`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from engine.config import ClusterSpec, NetworkConfig
from engine.state import JobState
from engine.step_time.network import LEVELS, bottleneck_gbps, ring_comm_s
from engine.step_time.throughput import ThroughputMatrix


class JobRow(NamedTuple):
    """What the step-time model needs about one job, per worker type (policy's type order).

    Attributes:
        one_gpu: (T,) steps/s on one GPU (0: does not fit).
        full: (T,) measured steps/s of a gang of ``scale_factor`` GPUs (0: does not fit).
        sync: (T, scale_factor + 1) measured sync seconds per iteration at m workers.
    """

    one_gpu: np.ndarray
    full: np.ndarray
    sync: np.ndarray


class JobInputs(NamedTuple):
    """:class:`JobRow` fields stacked over J jobs, plus per-job scalars.

    Attributes:
        one_gpu, full: (J, T). sync: (J, T, M + 1), M the largest scale factor.
        scale_factor: (J,). gradient_bytes: (J,).
    """

    one_gpu: np.ndarray
    full: np.ndarray
    sync: np.ndarray
    scale_factor: np.ndarray
    gradient_bytes: np.ndarray


class LinkModel(NamedTuple):
    """Estimated consolidation per set of worker types (bit mask over the policy's types).

    Attributes:
        node_max: (2^T,) most GPUs a node-local placement can have (0: mixed types).
        rack_max: (2^T,) most GPUs a rack-local placement can have (0: no rack holds them all).
        racks: per mask, the racks whose congestion the estimate counts, per level.
    """

    node_max: np.ndarray
    rack_max: np.ndarray
    racks: tuple[tuple[tuple[str, ...], ...], ...]


def job_row(
    job: JobState, types: list[str], net: NetworkConfig, matrix: ThroughputMatrix
) -> JobRow:
    """The step-time inputs of ``job`` on each of ``types``, from ``matrix``.

    The sync at ``m`` workers is the measured consolidated overhead ``m / r(m) - 1 / r(1)``, or the
    node-local ring model where the matrix has no measurement at ``m`` (as in the engine).
    """
    one_gpu = np.array([matrix.steps_per_s(job.job_type, wt, 1) for wt in types])
    full = np.array([job.steps_per_s.get(wt, 0.0) for wt in types])
    sync = np.zeros((len(types), job.scale_factor + 1))
    for t, wt in enumerate(types):
        if one_gpu[t] <= 0:
            continue
        for m in range(2, job.scale_factor + 1):
            at_m = matrix.steps_per_s(job.job_type, wt, m)
            sync[t, m] = (
                m / at_m - 1 / one_gpu[t]
                if at_m > 0
                else ring_comm_s(m, job.gradient_bytes, net.intra_node_gbps, net.latency_s)
            )
    return JobRow(one_gpu, full, sync)


def link_model(cluster: ClusterSpec, types: list[str]) -> LinkModel:
    """Consolidation estimates for every set of the cluster's worker types."""
    racks = sorted({g.rack for g in cluster.node_groups})
    in_rack = np.zeros((len(racks), len(types)), dtype=np.int64)
    node_size = np.zeros(len(types), dtype=np.int64)
    for g in cluster.node_groups:
        t = types.index(g.worker_type)
        in_rack[racks.index(g.rack), t] += g.nodes * g.gpus_per_node
        node_size[t] = max(node_size[t], g.gpus_per_node)
    masks = 1 << len(types)
    node_max = np.zeros(masks, dtype=np.int64)
    rack_max = np.zeros(masks, dtype=np.int64)
    rack_sets: list[tuple[tuple[str, ...], ...]] = [((), (), ())]
    for mask in range(1, masks):
        chosen = [t for t in range(len(types)) if mask >> t & 1]
        if len(chosen) == 1:
            node_max[mask] = node_size[chosen[0]]
        holds_all = [bool((in_rack[i, chosen] > 0).all()) for i in range(len(racks))]
        sizes = [int(in_rack[i, chosen].sum()) for i in range(len(racks)) if holds_all[i]]
        rack_max[mask] = max(sizes, default=0)
        touched = tuple(r for i, r in enumerate(racks) if (in_rack[i, chosen] > 0).any())
        local = tuple(r for i, r in enumerate(racks) if holds_all[i])
        rack_sets.append(((), local, touched))
    return LinkModel(node_max, rack_max, tuple(rack_sets))


def bandwidths(links: LinkModel, net: NetworkConfig, now_s: float) -> np.ndarray:
    """(2^T, 3) bottleneck Gb/s per type mask and level (node, rack, network) at ``now_s``."""
    out = np.full((len(links.racks), len(LEVELS)), net.intra_node_gbps)
    for mask in range(1, len(links.racks)):
        for level in (1, 2):
            out[mask, level] = bottleneck_gbps(net, LEVELS[level], links.racks[mask][level], now_s)
    return out


def model_arrays(
    inputs: JobInputs, links: LinkModel, bw: np.ndarray, net: NetworkConfig
) -> tuple[Any, ...]:
    """The step-time model's inputs as the compiled kernels take them
    (:mod:`engine.policies.sampling.kernels_rates`)."""
    return (
        *(np.ascontiguousarray(a, dtype=float) for a in inputs[:3]),
        np.ascontiguousarray(inputs.scale_factor, dtype=np.int64),
        np.ascontiguousarray(inputs.gradient_bytes, dtype=float),
        links.node_max,
        links.rack_max,
        bw,
        net.enabled,
        float(net.intra_node_gbps),
    )

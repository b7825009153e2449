"""Compiled step-time model (Numba) of the sampling-based placement policy.

:func:`rates_rows` computes the step-time model of :mod:`engine.policies.sampling.model` one
(category, job) cell at a time (the rules and their sources are there), and :func:`jct_rows` the
estimated JCTs that :func:`engine.policies.sampling.plan.score_categories` scores: the same float
operations in the same order as the vectorized code they replaced, so the values are identical
bit for bit (``tests/engine/test_sampling_kernels.py``).
No ``fastmath``; ``error_model="numpy"`` so a division by zero gives inf as in numpy. Imported
on first use, like :mod:`engine.policies.sampling.kernels`.

The model's arrays travel as one tuple, ``model = (one_gpu, full, sync, scale_factor,
gradient_bytes, node_max, rack_max, bw, enabled, intra_node_gbps)``: the
:class:`~engine.policies.sampling.model.JobInputs` fields, the
:class:`~engine.policies.sampling.model.LinkModel` bounds, the (2^T, 3) bandwidths and the
network's switch and intra-node bandwidth.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

njit: Any = numba.njit  # Any for mypy: numba's hints type a dispatcher's call wrongly


@njit(cache=True, error_model="numpy")
def rates_rows(counts: np.ndarray, model: tuple[Any, ...]) -> np.ndarray:
    """(N, J) steps/s of every job on its (N, J, T) GPU counts (0 for a job with no GPU)."""
    n_cat, n_jobs, _ = counts.shape
    rate = np.zeros((n_cat, n_jobs))
    for k in range(n_cat):
        for j in range(n_jobs):
            rate[k, j] = _rate(counts, k, j, j, model)
    return rate


@njit(cache=True, error_model="numpy")
def jct_rows(
    settled: np.ndarray,
    others: np.ndarray,
    current: np.ndarray,
    model: tuple[Any, ...],
    lost_moved: np.ndarray,
    lost_kept: np.ndarray,
    remaining: np.ndarray,
    ideal: np.ndarray,
) -> np.ndarray:
    """(N, J) estimated JCTs: the restart a job pays (``lost_moved`` if its GPUs change, else
    ``lost_kept``) plus remaining steps / rate; a job without GPUs finishes after the slowest
    placed job plus its ``ideal`` time. A settled job's rate is computed once, and another's
    again only when its GPUs differ from the previous category's."""
    n_cat, n_jobs = others.shape[0], len(settled)
    jct = np.empty((n_cat, n_jobs))
    placed = np.empty((n_cat, n_jobs), dtype=np.bool_)
    held = current.reshape((1, *current.shape))
    i = 0  # index among the unsettled jobs
    for j in range(n_jobs):
        if settled[j]:
            rate = _rate(held, 0, j, j, model)
            for k in range(n_cat):
                jct[k, j] = lost_kept[j] + remaining[j] / rate
                placed[k, j] = rate > 0
            continue
        for k in range(n_cat):
            same, moved = k > 0, False  # same: the GPUs of category k - 1 (its JCT holds)
            for t in range(current.shape[1]):
                same = same and others[k, i, t] == others[k - 1, i, t]
                moved = moved or others[k, i, t] != current[j, t]
            if same:
                jct[k, j], placed[k, j] = jct[k - 1, j], placed[k - 1, j]
                continue
            rate = _rate(others, k, i, j, model)
            jct[k, j] = (lost_moved[j] if moved else lost_kept[j]) + remaining[j] / rate
            placed[k, j] = rate > 0
        i += 1
    for k in range(n_cat):
        slowest = -np.inf
        for j in range(n_jobs):
            slowest = max(slowest, jct[k, j] if placed[k, j] else 0.0)
        for j in range(n_jobs):
            if not placed[k, j]:
                jct[k, j] = slowest + ideal[j]
    return jct


@njit(cache=True, error_model="numpy", inline="always")
def _rate(counts: np.ndarray, k: int, i: int, j: int, model: tuple[Any, ...]) -> float:
    """Steps/s of job ``j`` on ``counts[k, i]`` (T,) GPUs per type (0 with no GPU)."""
    one_gpu, full, sync, scale_factor, gradient_bytes, node_max, rack_max, bw, enabled, intra = (
        model
    )
    n_types = counts.shape[2]
    workers = 0
    for t in range(n_types):
        workers += counts[k, i, t]
    if workers <= 0:
        return 0.0
    at_m = min(workers, sync.shape[2] - 1)
    measured, speed, mask, kinds, first = 0.0, 0.0, 0, 0, -1
    for t in range(n_types):
        n = counts[k, i, t]
        speed = n * one_gpu[j, 0] if t == 0 else speed + n * one_gpu[j, t]
        if n > 0:
            measured = max(measured, sync[j, t, at_m])
            mask += 1 << t
            kinds += 1
            if first < 0:
                first = t
    if workers <= 1:
        measured = 0.0
    level = 0 if workers <= node_max[mask] else (1 if workers <= rack_max[mask] else 2)
    extra = 0.0
    if enabled:
        share = 2 * max(workers - 1, 0) / max(workers, 1) * gradient_bytes[j] * 8 / 1e9
        extra = max(share / bw[mask, level] - share / intra, 0.0)
    whole = full[j, first]
    if kinds == 1 and workers == scale_factor[j] and whole > 0:
        return workers / (workers / whole + extra)
    sf = scale_factor[j]
    return sf / (sf / speed + measured + extra)

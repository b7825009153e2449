"""Compiled step-time model (Numba) of the sampling-based placement policy.

:func:`rates_rows` is :func:`engine.policies.sampling.model.step_rates` one (category, job) cell
at a time (the rules and their sources are there): the same float operations in the same order,
so the rates are identical bit for bit (``tests/engine/test_sampling_kernels.py``). No
``fastmath``; ``error_model="numpy"`` so a division by zero gives inf as in numpy. Imported on
first use, like :mod:`engine.policies.sampling.kernels`.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def rates_rows(
    counts: np.ndarray,
    one_gpu: np.ndarray,
    full: np.ndarray,
    sync: np.ndarray,
    scale_factor: np.ndarray,
    gradient_bytes: np.ndarray,
    node_max: np.ndarray,
    rack_max: np.ndarray,
    bw: np.ndarray,
    enabled: bool,
    intra_node_gbps: float,
) -> np.ndarray:
    """(N, J) steps/s of every job on its (N, J, T) GPU counts (0 for a job with no GPU)."""
    n_cat, n_jobs, n_types = counts.shape
    rate = np.zeros((n_cat, n_jobs))
    top = sync.shape[2] - 1
    for k in range(n_cat):
        for j in range(n_jobs):
            row = counts[k, j]
            workers = row.sum()
            if workers <= 0:
                continue
            at_m = min(workers, top)
            measured, speed, mask, kinds, first = 0.0, 0.0, 0, 0, -1
            for t in range(n_types):
                speed = row[0] * one_gpu[j, 0] if t == 0 else speed + row[t] * one_gpu[j, t]
                if row[t] > 0:
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
                extra = max(share / bw[mask, level] - share / intra_node_gbps, 0.0)
            whole = full[j, first]
            if kinds == 1 and workers == scale_factor[j] and whole > 0:
                rate[k, j] = workers / (workers / whole + extra)
            else:
                sf = scale_factor[j]
                rate[k, j] = sf / (sf / speed + measured + extra)
    return rate

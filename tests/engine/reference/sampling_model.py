"""Test conveniences around the sampling-based placement's compiled step-time model and market
(Liu et al., TPDS 2024): per-job rows stacked, and the compiled kernels called on plain arrays
(tests only; the policy keeps its inputs in :mod:`engine.policies.sampling.table`)."""

from __future__ import annotations

import numpy as np

from engine.config import NetworkConfig
from engine.policies.sampling.model import JobInputs, JobRow, LinkModel, model_arrays
from engine.state import JobState


def stack_rows(rows: list[JobRow], jobs: list[JobState]) -> JobInputs:
    """Stacks per-job rows (sync padded to the largest scale factor)."""
    widths = [row.sync.shape[1] for row in rows]
    sync = np.zeros((len(rows), rows[0].sync.shape[0], max(widths)))
    for width in set(widths):  # a few scale factors: one copy per width
        same = [j for j, w in enumerate(widths) if w == width]
        sync[same, :, :width] = np.stack([rows[j].sync for j in same])
    return JobInputs(
        np.array([row.one_gpu for row in rows]),
        np.array([row.full for row in rows]),
        sync,
        np.array([job.scale_factor for job in jobs]),
        np.array([job.gradient_bytes for job in jobs]),
    )


def step_rates(
    counts: np.ndarray, inputs: JobInputs, links: LinkModel, bw: np.ndarray, net: NetworkConfig
) -> np.ndarray:
    """(N, J) steps/s of every job on its (N, J, T) GPU counts (0 for a job with no GPU), by the
    rules of :mod:`engine.policies.sampling.model` (the compiled
    :func:`~engine.policies.sampling.kernels_rates.rates_rows`, one cell at a time)."""
    from engine.policies.sampling.kernels_rates import rates_rows

    return rates_rows(
        np.ascontiguousarray(counts, dtype=np.int64), model_arrays(inputs, links, bw, net)
    )


def add_supply(
    values: np.ndarray, supply: np.ndarray, counts: np.ndarray, free: np.ndarray
) -> None:
    """Augments ``counts`` (N, C, T) / ``free`` (N, T) in place with ``supply`` (N, C) more slots
    (the compiled :func:`~engine.policies.sampling.kernels.ssp_rows`)."""
    from engine.policies.sampling.kernels import ssp_rows

    ssp_rows(np.ascontiguousarray(values, dtype=float), supply.astype(np.int64), counts, free)

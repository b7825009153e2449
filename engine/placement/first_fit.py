"""First-fit placement: lowest-index nodes with free GPUs first, ignoring locality.

The "no consolidation" baseline: a job lands wherever GPUs are free, so multi-GPU jobs often
span nodes or racks and pay the network model's extra communication.
"""

from __future__ import annotations

import numpy as np

from engine.placement.base import register_placement


@register_placement("first_fit")
def first_fit(free: np.ndarray, racks: np.ndarray, num_gpus: int) -> np.ndarray:
    cumulative = np.cumsum(free)
    before = np.concatenate(([0], cumulative[:-1]))
    return np.clip(num_gpus - before, 0, free).astype(free.dtype)

"""Consolidated placement: as few nodes and racks as possible, best fit.

1. One node with enough free GPUs, the one with the fewest (best fit, keeps big holes for big jobs).
2. Otherwise one rack: the rack with the fewest sufficient free GPUs, fullest-free nodes first.
3. Otherwise across racks, fullest-free nodes first.
Ties go to the lower node index, so placement is deterministic.
"""

from __future__ import annotations

import numpy as np

from engine.placement.base import register_placement


@register_placement("consolidated")
def consolidated(free: np.ndarray, racks: np.ndarray, num_gpus: int) -> np.ndarray:
    take = np.zeros_like(free)
    fits = np.flatnonzero(free >= num_gpus)
    if fits.size:
        best = fits[np.argmin(free[fits])]  # argmin returns the first (lowest index) minimum
        take[best] = num_gpus
        return take
    rack_free = np.bincount(racks, weights=free)
    ok_racks = np.flatnonzero(rack_free >= num_gpus)
    if ok_racks.size:
        rack = ok_racks[np.argmin(rack_free[ok_racks])]
        return _fill(free, np.flatnonzero(racks == rack), num_gpus, take)
    return _fill(free, np.arange(free.size), num_gpus, take)


def _fill(free: np.ndarray, nodes: np.ndarray, num_gpus: int, take: np.ndarray) -> np.ndarray:
    """Takes GPUs from ``nodes`` with the most free GPUs first."""
    order = nodes[np.argsort(-free[nodes], kind="stable")]
    left = num_gpus
    for node in order:
        if left == 0:
            break
        grab = min(left, int(free[node]))
        take[node] = grab
        left -= grab
    return take

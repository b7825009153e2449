"""Plain reference for the sampling-based placement's hand-out (Liu et al., TPDS 2024): the
vectorized numpy code the compiled one replaced (engine/policies/sampling/fill.py at 5d4ebe2),
handing out to every job with none settled (tests only)."""

from __future__ import annotations

import numpy as np


def _segment_cumsum(values: np.ndarray, segments: np.ndarray) -> np.ndarray:
    total = np.cumsum(values, axis=1)
    start = np.flatnonzero(np.diff(segments, prepend=-1))
    first = np.repeat(start, np.diff(start, append=len(segments)))
    return total - total[:, first] + values[:, first]


def hand_out(class_counts, sizes, job_class, current, keep_order, line_order, type_order):  # type: ignore[no-untyped-def]
    """(N, J, T) workers per job, every job given (no job settled)."""
    out = np.zeros(sizes.shape + (class_counts.shape[2],), dtype=np.int64)
    taken = np.zeros_like(class_counts)
    if keep_order.size:
        cls = job_class[keep_order]
        want = current[keep_order]
        asks = sizes[:, keep_order] == want.sum(axis=1)
        demand = asks[..., None] * want
        fits = (_segment_cumsum(demand, cls) <= class_counts[:, cls, :]).all(axis=-1)
        kept = (asks & fits)[..., None] * want
        out[:, keep_order] = kept
        start = np.flatnonzero(np.diff(cls, prepend=-1))
        taken[:, cls[start]] = np.add.reduceat(kept, start, axis=1)
    pool = class_counts - taken
    need = (sizes - out.sum(axis=-1))[:, line_order]
    cls = job_class[line_order]
    lo = _segment_cumsum(need, cls) - need
    hi = lo + need
    types = type_order[cls]
    along = pool[:, cls[:, None], types]
    type_hi = np.cumsum(along, axis=-1)
    share = np.minimum(hi[..., None], type_hi) - np.maximum(lo[..., None], type_hi - along)
    out[:, line_order[:, None], types] += np.clip(share, 0, None)
    return out

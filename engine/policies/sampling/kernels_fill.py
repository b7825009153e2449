"""Compiled hand-out (Numba) of the sampling-based placement policy: workers to jobs.

Liu, Wang, Huang, Pan, IEEE TPDS 35(6), 2024, doi 10.1109/TPDS.2024.3390109; the rules are those
of :mod:`engine.policies.sampling.fill` (settled jobs, running jobs keeping their GPUs, the
others' contiguous runs along their class's line of types), one category at a time. Integer
arithmetic only, so the counts equal the vectorized code's it replaced
(``tests/engine/test_sampling_kernels.py``, ``tests/engine/test_sampling_fill.py``). Imported on
first use, like :mod:`engine.policies.sampling.kernels`.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

njit: Any = numba.njit  # Any for mypy: numba's hints type a dispatcher's call wrongly


@njit(cache=True)
def split_fill_rows(
    class_counts: np.ndarray,
    sizes: np.ndarray,
    job_class: np.ndarray,
    current: np.ndarray,
    keep_order: np.ndarray,
    line_order: np.ndarray,
    type_order: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`engine.policies.sampling.fill.split_fill`."""
    n_cat, n_cls, n_types = class_counts.shape
    n_jobs = len(job_class)
    settled = np.zeros(n_jobs, dtype=np.bool_)
    settle(class_counts, sizes, job_class, current, keep_order, settled)
    new_index = np.empty(n_jobs, dtype=np.int64)  # index among the unsettled jobs
    held = np.zeros(n_jobs, dtype=np.int64)  # GPUs held now
    held_settled = np.zeros((n_cls, n_types), dtype=np.int64)  # by the settled jobs, per class
    n_rest = 0
    for j in range(n_jobs):
        new_index[j] = n_rest
        if not settled[j]:
            n_rest += 1
        for t in range(n_types):
            held[j] += current[j, t]
            if settled[j]:
                held_settled[job_class[j], t] += current[j, t]
    pool = class_counts.copy()
    for k in range(n_cat):
        for c in range(n_cls):
            for t in range(n_types):
                pool[k, c, t] -= held_settled[c, t]
    keep, line = _unsettled(keep_order, settled), _unsettled(line_order, settled)
    out = np.zeros((n_cat, n_rest, n_types), dtype=np.int64)
    cum = np.zeros(n_types, dtype=np.int64)
    for k in range(n_cat):
        _keep(k, pool, sizes, job_class, current, held, keep, new_index, out, cum)
        _line(k, pool, sizes, job_class, line, type_order, new_index, out)
    return settled, out


@njit(cache=True)
def _unsettled(order: np.ndarray, settled: np.ndarray) -> np.ndarray:
    """The jobs of ``order`` that are not settled, in order."""
    out = np.empty(len(order), dtype=np.int64)
    n = 0
    for j in order:
        if not settled[j]:
            out[n] = j
            n += 1
    return out[:n]


@njit(cache=True)
def settle(
    class_counts: np.ndarray,
    sizes: np.ndarray,
    job_class: np.ndarray,
    current: np.ndarray,
    keep_order: np.ndarray,
    settled: np.ndarray,
) -> None:
    """Marks in ``settled`` the jobs that keep their current GPUs in every category (see
    :mod:`engine.policies.sampling.fill`)."""
    n_cat, n_cls, n_types = class_counts.shape
    leanest = class_counts[0].copy()  # (C, T): each class's share in its leanest category
    for k in range(1, n_cat):
        for c in range(n_cls):
            for t in range(n_types):
                leanest[c, t] = min(leanest[c, t], class_counts[k, c, t])
    upper = np.zeros(n_types, dtype=np.int64)
    previous = -1
    for j in keep_order:
        c = job_class[j]
        if c != previous:
            upper[:] = 0
            previous = c
        want, fits = 0, True
        for t in range(n_types):
            upper[t] += current[j, t]
            want += current[j, t]
            fits = fits and upper[t] <= leanest[c, t]
        for k in range(n_cat):
            fits = fits and sizes[k, j] == want
        settled[j] = fits


@njit(cache=True)
def _keep(
    k: int,
    pool: np.ndarray,
    sizes: np.ndarray,
    job_class: np.ndarray,
    current: np.ndarray,
    held: np.ndarray,
    keep: np.ndarray,
    new_index: np.ndarray,
    out: np.ndarray,
    cum: np.ndarray,
) -> None:
    """Running jobs of unchanged size keep their GPUs while the running total of those asking
    to, per class in keep order (a class's jobs contiguous), fits the class's share (category
    ``k``); what they keep then leaves ``pool``."""
    n_types = len(cum)
    previous = -1
    for j in keep:
        c = job_class[j]
        if c != previous:
            cum[:] = 0
            previous = c
        if sizes[k, j] != held[j]:
            continue
        fits = True
        for t in range(n_types):
            cum[t] += current[j, t]
            fits = fits and cum[t] <= pool[k, c, t]
        if fits:
            for t in range(n_types):
                out[k, new_index[j], t] = current[j, t]
    for j in keep:
        for t in range(n_types):
            pool[k, job_class[j], t] -= out[k, new_index[j], t]


@njit(cache=True)
def _line(
    k: int,
    pool: np.ndarray,
    sizes: np.ndarray,
    job_class: np.ndarray,
    line: np.ndarray,
    type_order: np.ndarray,
    new_index: np.ndarray,
    out: np.ndarray,
) -> None:
    """The hand-out's contiguous runs along each class's line of types, for category ``k``."""
    n_types = type_order.shape[1]
    previous, below = -1, 0
    for j in line:
        c, i = job_class[j], new_index[j]
        if c != previous:
            below, previous = 0, c
        lo = below
        hi = lo + sizes[k, j]
        for t in range(n_types):
            hi -= out[k, i, t]
        below = hi
        type_hi = 0
        for n in range(n_types):
            t = type_order[c, n]
            along = pool[k, c, t]
            type_hi += along
            share = min(hi, type_hi) - max(lo, type_hi - along)
            if share > 0:
                out[k, i, t] += share

"""Compiled loops (Numba) of the sampling-based placement policy: the matching market.

Liu, Wang, Huang, Pan, IEEE TPDS 35(6), 2024, doi 10.1109/TPDS.2024.3390109; the rules are those
of :mod:`engine.policies.sampling.matching` (successive shortest paths between job classes and
worker types), run one category at a time over arrays of a few dozen cells, where numpy's
per-call overhead cost more than the arithmetic. Every float is the same difference or sum in
the same order, and every tie goes to the same (first) index, so the counts are identical to the
vectorized solver's and the plain-Python one's (``tests/engine/ssp_one.py``,
``tests/engine/test_sampling_ssp_one.py``). No ``fastmath``.

Imported on first use (``engine.policies.sampling`` skips the ``kernels*`` modules when it fills
the registry), so only runs of the sampling policies pay Numba's import (about 0.15 s CPU) and
its loading of the compiled code, cached next to this file (``cache=True``; compiled once per
checkout, about 5 s CPU for the three ``kernels*`` modules).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

njit: Any = numba.njit  # Any for mypy: numba's hints type a dispatcher's call wrongly

_EPS = 1e-7  # the vectorized solver's guard against float noise


@njit(cache=True)
def ssp_market_rows(values: np.ndarray, supply: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """:func:`engine.policies.sampling.matching.ssp_market`: the slots every category has are
    matched once and copied, then each category's other slots are added (:func:`ssp_rows`)."""
    n_cat, n_cls = supply.shape
    n_types = len(capacity)
    base = supply[0].copy()
    for k in range(1, n_cat):
        for c in range(n_cls):
            base[c] = min(base[c], supply[k, c])
    shared = np.zeros((1, n_cls, n_types), dtype=np.int64)
    shared_free = capacity.copy().reshape((1, n_types))
    ssp_rows(values, base.reshape((1, n_cls)), shared, shared_free)
    counts = np.empty((n_cat, n_cls, n_types), dtype=np.int64)
    free = np.empty((n_cat, n_types), dtype=np.int64)
    rest = np.empty((n_cat, n_cls), dtype=np.int64)
    for k in range(n_cat):
        counts[k] = shared[0]
        free[k] = shared_free[0]
        for c in range(n_cls):
            rest[k, c] = supply[k, c] - base[c]
    ssp_rows(values, rest, counts, free)
    return counts


@njit(cache=True)
def ssp_rows(values: np.ndarray, supply: np.ndarray, counts: np.ndarray, free: np.ndarray) -> None:
    """Adds ``supply`` (N, C) slots to ``counts`` (N, C, T) and ``free`` (N, T) in place,
    category by category, class by class.

    A class whose most valued type has a free worker takes it directly: making room anywhere
    costs >= 0 in an optimal transport (else a unit could move to the free worker and gain), so
    that is a shortest path. Otherwise one shortest augmenting path at a time: Bellman-Ford over
    the types from the cheapest move per (t, t') to the nearest type with a free worker.
    """
    n_cat, n_cls = supply.shape
    n_types = values.shape[1]
    step = np.empty((n_types, n_types))  # cheapest move t -> t' (value lost), and its class
    via = np.empty((n_types, n_types), dtype=np.int64)
    dist, nxt = np.empty(n_types), np.empty(n_types, dtype=np.int64)
    for k in range(n_cat):
        for cls in range(n_cls):
            need = supply[k, cls]
            if need <= 0:
                continue
            best = 0  # the class's most valued type (the first on ties)
            for t in range(n_types):
                if values[cls, t] > values[cls, best]:
                    best = t
            direct = min(need, free[k, best])
            counts[k, cls, best] += direct
            free[k, best] -= direct
            need -= direct
            while need > 0:
                _cheapest_moves(values, counts[k], step, via)
                _distance_to_free(step, free[k], dist, nxt)
                need -= _augment(values, counts[k], free[k], cls, need, dist, nxt, via)


@njit(cache=True)
def _cheapest_moves(
    values: np.ndarray, counts: np.ndarray, step: np.ndarray, via: np.ndarray
) -> None:
    """``step[t, t']``: the least value lost moving a held unit from t to t' (first class on
    ties; inf when no class holds t, or t == t'), ``via``: that class."""
    n_cls, n_types = counts.shape
    for src in range(n_types):
        for dst in range(n_types):
            step[src, dst], via[src, dst] = np.inf, 0
            if src == dst:
                continue
            for c in range(n_cls):
                if counts[c, src] > 0:
                    cost = values[c, src] - values[c, dst]
                    if cost < step[src, dst]:
                        step[src, dst], via[src, dst] = cost, c


@njit(cache=True)
def _distance_to_free(
    step: np.ndarray, free: np.ndarray, dist: np.ndarray, nxt: np.ndarray
) -> None:
    """Bellman-Ford to the nearest type with a free worker, into ``dist`` (inf: none) and
    ``nxt`` (next type on the path, -1: none); every type updated from the previous pass, as
    the vectorized solver did."""
    n_types = len(free)
    for t in range(n_types):
        dist[t] = 0.0 if free[t] > 0 else np.inf
        nxt[t] = -1
    for _ in range(n_types - 1):
        before = dist.copy()  # every type updated from the previous pass
        for t in range(n_types):
            best, arg = np.inf, 0
            for u in range(n_types):
                through = step[t, u] + before[u]
                if through < best:
                    best, arg = through, u
            if best < before[t] - _EPS:
                dist[t], nxt[t] = best, arg


@njit(cache=True)
def _augment(
    values: np.ndarray,
    counts: np.ndarray,
    free: np.ndarray,
    cls: int,
    need: int,
    dist: np.ndarray,
    nxt: np.ndarray,
    via: np.ndarray,
) -> int:
    """One shortest augmenting path for ``cls`` in one category, entering at the type of
    greatest value less distance (the first on ties); returns the units placed (>= 1)."""
    n_types = len(free)
    entry, gain, reachable = 0, values[cls, 0] - dist[0], False
    for t in range(n_types):
        reachable = reachable or dist[t] < np.inf
        if values[cls, t] - dist[t] > gain:
            entry, gain = t, values[cls, t] - dist[t]
    if not reachable:
        raise RuntimeError("matching market: more slots than workers")
    delta, here = need, entry
    for _ in range(n_types - 1):  # the bottleneck along the path
        there = nxt[here]
        if there < 0:
            break
        delta = min(delta, counts[via[here, there], here])
        here = there
    delta = min(delta, free[here])
    counts[cls, entry] += delta
    here = entry
    for _ in range(n_types - 1):
        there = nxt[here]
        if there < 0:
            break
        counts[via[here, there], here] -= delta
        counts[via[here, there], there] += delta
        here = there
    free[here] -= delta
    return delta

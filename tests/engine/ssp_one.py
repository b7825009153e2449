"""Successive shortest paths for one category, in plain Python: the readable statement of the
market's solver and the reference of its compiled form.

The same steps as :func:`engine.policies.sampling.matching.ssp_market` (see there for the
method: Liu et al., TPDS 2024's matching market as a transportation problem between job classes
and worker types), on Python lists. The policy runs the compiled loops of
:mod:`engine.policies.sampling.kernels` (Numba); every float there is the same sum or difference
in the same order, and every tie goes to the same (first) index, so the counts are identical
(``tests/engine/test_sampling_ssp_one.py``).
"""

from __future__ import annotations

import math

_EPS = 1e-7  # the vectorized solver's guard against float noise


def add_supply_one(
    values: list[list[float]], supply: list[int], counts: list[list[int]], free: list[int]
) -> None:
    """Adds ``supply[c]`` slots of each class to ``counts`` (C x T) / ``free`` (T), in place.

    Args:
        values: C x T value of one worker of each type to a slot of each class.
    """
    n_types = len(free)
    for cls, need in enumerate(supply):
        if need <= 0:
            continue
        row = values[cls]
        best = row.index(max(row))
        direct = min(need, free[best])
        counts[cls][best] += direct
        free[best] -= direct
        need -= direct
        while need > 0:
            need -= _augment(values, counts, free, cls, need, n_types)


def _augment(
    values: list[list[float]],
    counts: list[list[int]],
    free: list[int],
    cls: int,
    need: int,
    n_types: int,
) -> int:
    """One shortest augmenting path for ``cls``; returns the units placed (>= 1)."""
    step = [[math.inf] * n_types for _ in range(n_types)]
    via = [[0] * n_types for _ in range(n_types)]
    for src in range(n_types):
        for dst in range(n_types):
            if src == dst:
                continue
            for c, held in enumerate(counts):
                if held[src] > 0:
                    cost = values[c][src] - values[c][dst]
                    if cost < step[src][dst]:
                        step[src][dst], via[src][dst] = cost, c
    dist, nxt = _distance_to_free(step, free, n_types)
    value = values[cls]
    gain = [value[t] - dist[t] for t in range(n_types)]
    entry = gain.index(max(gain))
    if not math.isfinite(dist[entry]):
        raise RuntimeError("matching market: more slots than workers")
    delta, here, hops = need, entry, []
    for _ in range(n_types - 1):
        there = nxt[here]
        if there < 0:
            break
        mover = via[here][there]
        delta = min(delta, counts[mover][here])
        hops.append((here, there, mover))
        here = there
    delta = min(delta, free[here])
    counts[cls][entry] += delta
    for src, dst, mover in hops:
        counts[mover][src] -= delta
        counts[mover][dst] += delta
    free[here] -= delta
    return delta


def _distance_to_free(
    step: list[list[float]], free: list[int], n_types: int
) -> tuple[list[float], list[int]]:
    """Bellman-Ford (all types updated from the previous pass, as the vectorized solver does)."""
    dist = [0.0 if f > 0 else math.inf for f in free]
    nxt = [-1] * n_types
    for _ in range(n_types - 1):
        through = [[step[t][u] + dist[u] for u in range(n_types)] for t in range(n_types)]
        best = [min(row) for row in through]
        arg = [row.index(b) for row, b in zip(through, best, strict=True)]
        better = [best[t] < dist[t] - _EPS for t in range(n_types)]
        dist = [best[t] if better[t] else dist[t] for t in range(n_types)]
        nxt = [arg[t] if better[t] else nxt[t] for t in range(n_types)]
    return dist, nxt

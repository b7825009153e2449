"""Matching markets of the sampling-based placement policy: job slots to workers.

Liu, Wang, Huang, Pan, "Sampling-Based Multi-Job Placement for Heterogeneous Deep Learning
Clusters", IEEE TPDS 35(6), 2024, doi 10.1109/TPDS.2024.3390109. For one category (a worker
count per job) every job becomes that many slots, and the slots are matched to workers by a
maximum-weight bipartite assignment whose weight is the job's throughput on the worker: the
outcome of the paper's ascending-price auction [R, shared/docs/schedulers.md, section A].

A worker's value depends only on its type, and jobs with the same valuation row (a *class*) are
interchangeable, so each market is a transportation problem between classes and worker types.
Two exact solvers give the same maximum total value (the tests compare them with brute force):

- :func:`lsa_market`: ``scipy.optimize.linear_sum_assignment`` on the slot x worker matrix, one
  category at a time; fast for the small markets of the paper's testbed.
- :func:`ssp_market`: successive shortest paths between classes and types, one category at a
  time in compiled code (:mod:`engine.policies.sampling.kernels`, Numba), warm-started from the
  slots all categories share; for 512-GPU clusters, where a 500 x 500 assignment per category
  would cost seconds per decision.

:func:`engine.policies.sampling.fill.split_fill` then hands each class's workers to its jobs.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

LSA_MAX_CELLS = 1 << 14
""":func:`market` uses :func:`lsa_market` while categories x slots x worker columns (at most as
many per type as there are slots) stays below this: a 400 x 512 assignment costs ~10 ms, the
class-level solver well under 1 ms (benchmarks/bench_sampling.py) [R]."""


def market(
    values: np.ndarray, usable: np.ndarray, supply: np.ndarray, capacity: np.ndarray
) -> np.ndarray:
    """Workers of each type matched to each class, per category (maximum total value).

    Args:
        values: (C, T) value of one worker of type t to a slot of class c (its throughput).
        usable: (C, T) bool, whether class c can run on type t at all.
        supply: (N, C) slots of each class in each of N >= 1 categories; every row sums to at
            most ``capacity.sum()``.
        capacity: (T,) workers of each type.

    Returns:
        (N, C, T) int counts. A slot that only an unusable type could take stays unmatched
        (the market first avoids such slots, then maximizes value).
    """
    big = (capacity.sum() + 1) * (np.abs(values).max(initial=0.0) + 1.0)
    priced = np.where(usable, values, -big)
    slots = int(supply.sum(axis=1).max(initial=0))
    cells = supply.shape[0] * slots * int(np.minimum(capacity, slots).sum())
    solve = lsa_market if cells <= LSA_MAX_CELLS else ssp_market
    counts = solve(priced, supply, capacity)
    counts[:, ~usable] = 0
    return counts


def lsa_market(values: np.ndarray, supply: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """:func:`market` by ``linear_sum_assignment`` on each category's slot x worker matrix.

    Workers of one type are identical, so a type needs at most as many columns as there are slots.
    """
    n_cat, n_cls = supply.shape
    n_types = len(capacity)
    counts = np.zeros((n_cat, n_cls, n_types), dtype=np.int64)
    for k in range(n_cat):
        rows = np.repeat(np.arange(n_cls), supply[k])
        if rows.size == 0:
            continue
        cols = np.repeat(np.arange(n_types), np.minimum(capacity, rows.size))
        slot, worker = linear_sum_assignment(values[rows][:, cols], maximize=True)
        flat = rows[slot] * n_types + cols[worker]
        counts[k] = np.bincount(flat, minlength=n_cls * n_types).reshape(n_cls, n_types)
    return counts


def ssp_market(values: np.ndarray, supply: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """:func:`market` by successive shortest paths, category by category (compiled:
    :func:`~engine.policies.sampling.kernels.ssp_market_rows`), warm-started from the slots
    every category shares, matched once.

    Adding a class's slots to an optimal transport along shortest augmenting paths keeps it
    optimal (no negative cycle in the residual graph). Types are few, so a path is a chain of
    moves "a unit of some class leaves type t for type t'" costing the class's value
    difference; the cheapest such move per (t, t') is all a shortest path needs.
    """
    from engine.policies.sampling.kernels import ssp_market_rows  # Numba: loaded on first use

    return ssp_market_rows(
        np.ascontiguousarray(values, dtype=float),
        np.ascontiguousarray(supply, dtype=np.int64),
        np.ascontiguousarray(capacity, dtype=np.int64),
    )

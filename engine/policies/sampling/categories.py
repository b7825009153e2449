"""Feasible-solution categories of the sampling-based placement policy.

A category is a worker count per job, ``1 <= n_i <= upper_i`` with ``sum n_i <= K`` (Liu et al.,
IEEE TPDS 2024, doi 10.1109/TPDS.2024.3390109; [R] shared/docs/schedulers.md, section A), where
``upper_i`` is the job's scale factor (its maximum parallelism) capped by the GPUs it can use.
Categories are rows of an (N, J) int array, jobs in the policy's selection order.

- :func:`enumerate_categories`: all of them, in chunks (exact mode).
- :func:`sample_categories`: half drawn uniformly per job, half biased toward giving more
  workers to bigger jobs, then scaled into the budget (sampled mode) [R].
- :func:`equal_split`: the GPUs divided evenly among the jobs, capped at each job's upper bound
  (the paper's baseline) [R].
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np


def count_categories(upper: np.ndarray, limit: int) -> int:
    """Number of count vectors below ``upper`` (before the budget), or ``limit + 1`` if more."""
    total = 1
    for bound in upper.tolist():
        total *= bound
        if total > limit:
            return limit + 1
    return total


def enumerate_categories(upper: np.ndarray, budget: int, chunk: int) -> Iterator[np.ndarray]:
    """Every category within ``budget`` GPUs, ``chunk`` candidates at a time (mixed radix).

    Yields:
        (n, J) arrays, n <= chunk, in lexicographic order of the flexible jobs' counts.
    """
    flexible = np.nonzero(upper > 1)[0]
    total = count_categories(upper[flexible], np.iinfo(np.int64).max - 1)
    for start in range(0, total, chunk):
        code = np.arange(start, min(total, start + chunk), dtype=np.int64)
        rows = np.ones((len(code), len(upper)), dtype=np.int64)
        for j in flexible[::-1].tolist():
            rows[:, j] += code % upper[j]
            code //= upper[j]
        rows = rows[rows.sum(axis=1) <= budget]
        if len(rows):
            yield rows


def sample_categories(
    rng: np.random.Generator, upper: np.ndarray, work: np.ndarray, budget: int, count: int
) -> np.ndarray:
    """``count`` random categories (duplicates removed).

    The first half draws each ``n_i`` uniformly from ``1..upper_i``. The second half is biased
    toward bigger jobs [R]: ``n_i = 1 + Binomial(upper_i - 1, p_i)``, ``p_i = (rank_i + 1) / J``
    with ``rank_i`` the job's rank by remaining work (0 = least), so the biggest job tends to its
    maximum and the smallest to one worker. Rows over the budget are scaled down
    (:func:`fit_budget`).

    Args:
        work: (J,) remaining work of each job (any unit; only the ranks matter).
    """
    uniform = rng.integers(1, upper + 1, size=((count + 1) // 2, len(upper)))
    rank = np.empty(len(work), dtype=np.int64)
    rank[np.argsort(work, kind="stable")] = np.arange(len(work))
    share = (rank + 1) / len(work)
    biased = 1 + rng.binomial(upper - 1, share, size=(count // 2, len(upper)))
    return unique_rows(fit_budget(np.vstack([uniform, biased]), budget))


def fit_budget(categories: np.ndarray, budget: int) -> np.ndarray:
    """Scales rows over ``budget`` down: ``n_i = 1 + floor((n_i - 1) (K - J) / (sum n - J))``.

    Keeps every ``n_i >= 1`` and never raises one; needs ``J <= K``.
    """
    jobs = categories.shape[1]
    total = categories.sum(axis=1, keepdims=True)
    over = total > budget
    spare = np.maximum(total - jobs, 1)
    scaled = 1 + (categories - 1) * (budget - jobs) // spare
    return np.where(over, scaled, categories)


def equal_split(upper: np.ndarray, budget: int) -> np.ndarray:
    """(1, J) the largest even share ``min(upper_i, level)`` within ``budget``; the GPUs left
    (fewer than the uncapped jobs) go one each to the first uncapped jobs."""
    levels = np.arange(2, int(upper.max()) + 1)  # GPUs used at each even share: monotone
    used = np.minimum(upper[None, :], levels[:, None]).sum(axis=1)
    level = 1 + int(np.count_nonzero(used <= budget))
    counts = np.minimum(upper, level)
    spare = budget - int(counts.sum())
    open_jobs = np.nonzero(counts < upper)[0][:spare]
    counts[open_jobs] += 1
    return counts[None, :]


def unique_rows(categories: np.ndarray) -> np.ndarray:
    """Distinct rows, in order of first appearance (rows compared as raw bytes)."""
    rows = np.ascontiguousarray(categories)
    as_bytes = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    first = np.unique(as_bytes, return_index=True)[1]  # first occurrence of each row
    return categories[np.sort(first)]

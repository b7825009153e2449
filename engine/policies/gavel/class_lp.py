"""The max-min class LP over a whole run: one HiGHS instance, remembered solutions, warm starts.

:class:`ClassMaxMin` solves the LP of :func:`engine.policies.gavel.lp.solve_classes` for the
classes present, keeps one HiGHS instance, the models of recent class sets
(:class:`engine.policies.gavel.class_model.ClassModel`), and the solutions of recent class
counts (the same counts give the same LP, hence the same solution: 1,051 of the 17,765 solves
asked for on the full Philly trace under max-min). With ``warm_start``,
:class:`WarmBasis` carries the last optimal basis over to the next LP.

Consecutive solves differ in a few classes (jobs arrived or left) and in the class counts, so
the previous optimal basis is nearly optimal for the next LP; HiGHS's dual simplex then takes a
few pivots instead of a solve from the slack basis (about 2.5 instead of 87 on the full Philly
trace). Columns and rows are matched by what they stand for: share column (class, worker type),
the fairness level ``t``, the fairness and time rows of a class, the capacity row of a type.
Entries that are new start nonbasic at 0 (columns) or basic (rows); HiGHS repairs the count of
basic variables (an "alien" basis).

[R] The optimum reached can differ from a cold solve's where the LP has several optima (it
often does: classes with proportional throughputs can trade shares at equal objective), so
results depend on the order of the solves; they stay deterministic.
Measured (issue 11, a loaded 2-core machine): the full Philly trace took about 2% less CPU
time in all and its mean JCT moved by -1% (-6% on the 2,000-job sample), so it is off by
default.
"""

from __future__ import annotations

from collections import deque
from typing import TypeVar

import numpy as np

from engine.policies.gavel.class_model import ClassModel
from engine.policies.gavel.highs import HighsSolver

T = TypeVar("T")
_LOWER, _BASIC = 0, 1  # HiGHS's kLower (nonbasic at the lower bound) and kBasic


def _carry(old_keys: np.ndarray, old: np.ndarray, keys: np.ndarray, default: int) -> np.ndarray:
    """Status of each key in ``keys`` (sorted) from the sorted ``old_keys``, else ``default``."""
    if old_keys.size == 0:
        return np.full(keys.size, default)
    at = np.minimum(np.searchsorted(old_keys, keys), old_keys.size - 1)
    return np.where(old_keys[at] == keys, old[at], default)


class WarmBasis:
    """The last optimal basis of a class LP, keyed by class labels and worker-type columns."""

    def __init__(self, num_types: int) -> None:
        self.num_types = num_types
        self._cols = np.zeros(0, dtype=np.int64)  # keys label * K + col, ascending
        self._col_status = np.zeros(0, dtype=np.int64)
        self._labels = np.zeros(0, dtype=np.int64)  # classes with fairness and time rows
        self._row_status = np.zeros((0, 2), dtype=np.int64)  # (fairness, time) per class
        self._t_status = _BASIC
        self._capacity_status = np.full(num_types, _BASIC)
        self.empty = True

    def start(
        self, labels: np.ndarray, rows: np.ndarray, cols: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(column statuses, row statuses) for the LP over classes ``labels`` (ascending) with
        share columns ``(labels[rows], cols)`` and ``t`` last; rows as in the LP module."""
        keys = labels[rows] * self.num_types + cols
        col_status = np.append(_carry(self._cols, self._col_status, keys, _LOWER), self._t_status)
        fairness = _carry(self._labels, self._row_status[:, 0], labels, _BASIC)
        time = _carry(self._labels, self._row_status[:, 1], labels, _BASIC)
        return col_status, np.concatenate([fairness, time, self._capacity_status])

    def keep(
        self,
        labels: np.ndarray,
        rows: np.ndarray,
        cols: np.ndarray,
        basis: tuple[np.ndarray, np.ndarray],
    ) -> None:
        """Remembers the optimal basis HiGHS returned for that LP."""
        col_status, row_status = basis
        nc = labels.size
        self._cols = labels[rows] * self.num_types + cols
        self._col_status, self._t_status = col_status[:-1], int(col_status[-1])
        self._labels = labels
        self._row_status = np.column_stack([row_status[:nc], row_status[nc : 2 * nc]])
        self._capacity_status = row_status[2 * nc :]
        self.empty = False


class ClassMaxMin:
    """The class LP (:func:`engine.policies.gavel.lp.solve_classes`) for one policy run: one
    HiGHS instance, and the solutions of recent class counts remembered (the same counts give
    the same LP, hence the same solution: HiGHS is deterministic).

    Args:
        capacity: (K,) GPUs per worker type.
        epsilon: weight of the efficiency tie-break term.
        warm_start: start each solve from the last optimal basis
            (:class:`WarmBasis`; may reach another of several optima).
        cache_size: how many solutions to keep (oldest dropped first).
        models_kept: how many class sets' models (:class:`ClassModel`) to keep (oldest
            dropped first); consecutive solves mostly share their class set.
    """

    def __init__(
        self,
        capacity: np.ndarray,
        epsilon: float,
        warm_start: bool = False,
        cache_size: int = 4096,
        models_kept: int = 64,
    ) -> None:
        self.capacity = capacity
        self.epsilon = epsilon
        self.cache_size = cache_size
        self.solver = HighsSolver()
        self.warm = WarmBasis(capacity.size) if warm_start else None
        self._cache: dict[bytes, np.ndarray] = {}
        self._cache_order: deque[bytes] = deque()  # its keys, oldest first
        self.models_kept = models_kept
        self._models: dict[bytes, ClassModel] = {}  # by the present classes' ids
        self._models_order: deque[bytes] = deque()

    def shares(
        self, class_coefficients: np.ndarray, class_scale_factors: np.ndarray, counts: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Shares of the classes present.

        Args:
            class_coefficients: (C, K) coefficient row of every class seen so far. A class's
                row must stay the same from call to call (the table may only grow): the
                remembered solutions are keyed by class labels and counts.
            class_scale_factors: (C,) GPUs per job of each class (same rule).
            counts: (C,) active jobs per class (0 for absent classes).

        Returns:
            The present class ids (P,), ascending, and their shares (P, K).
        """
        present = counts.nonzero()[0]  # (np.flatnonzero: three calls)
        present_counts = counts[present]
        classes = present.tobytes()
        key = classes + present_counts.tobytes()
        shares = self._cache.get(key)
        if shares is None:
            model = self._models.get(classes)
            if model is None:
                model = ClassModel(
                    class_coefficients[present], class_scale_factors[present], self.capacity,
                    self.epsilon,
                )  # fmt: skip
                _remember(self._models, self._models_order, classes, model, self.models_kept)
            warm = None if self.warm is None else (self.warm, present)
            shares = model.solve(present_counts, self.solver, warm)
            _remember(self._cache, self._cache_order, key, shares, self.cache_size)
        return present, shares


def _remember(cache: dict[bytes, T], order: deque[bytes], key: bytes, value: T, size: int) -> None:
    """Stores ``value`` under the new ``key``, first dropping the oldest entry if ``cache`` is
    full; ``order`` holds the keys, oldest first. (Not ``next(iter(cache))``: a dict keeps a
    hole for each deleted entry, which iteration from the front walks over.)"""
    if len(cache) >= size:
        del cache[order.popleft()]
    cache[key] = value
    order.append(key)

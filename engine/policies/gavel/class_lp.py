"""The max-min class LP over a whole run: one HiGHS instance, remembered solutions, warm starts.

:class:`ClassMaxMin` solves the class LP (:class:`engine.policies.gavel.class_model.ClassModel`)
for the classes present, keeps one HiGHS instance, the models of recent class sets, and the
solutions of recent class counts (the same counts give the same LP, hence the same solution:
1,051 of the 17,765 solves asked for on the full Philly trace under max-min). With
``warm_start``, :class:`engine.policies.gavel.class_model.WarmBasis` carries the last optimal
basis over to the next LP.

Consecutive solves differ in a few classes (jobs arrived or left) and in the class counts, so
the previous optimal basis is nearly optimal for the next LP; HiGHS's dual simplex then takes a
few pivots instead of a solve from the slack basis (about 2.5 instead of 87 on the full Philly
trace).

[R] The optimum reached can differ from a cold solve's where the LP has several optima (it
often does: classes with proportional throughputs can trade shares at equal objective), so
results depend on the order of the solves; they stay deterministic.
Measured (issue 11, a loaded 2-core machine): the full Philly trace took about 2% less CPU
time in all and its mean JCT moved by -1% (-6% on the 2,000-job sample), so it is off by
default.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TypeVar

import numpy as np

from engine.policies.gavel.class_model import ClassModel, WarmBasis
from engine.policies.gavel.highs import HighsSolver

T = TypeVar("T")


class ClassMaxMin:
    """The class LP (:class:`engine.policies.gavel.class_model.ClassModel`) for one run: one
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
        self._cache: OrderedDict[bytes, np.ndarray] = OrderedDict()  # oldest first
        self.models_kept = models_kept
        self._models: OrderedDict[bytes, ClassModel] = OrderedDict()  # by present classes' ids

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
                _remember(self._models, classes, model, self.models_kept)
            warm = None if self.warm is None else (self.warm, present)
            shares = model.solve(present_counts, self.solver, warm)
            _remember(self._cache, key, shares, self.cache_size)
        return present, shares


def _remember(cache: OrderedDict[bytes, T], key: bytes, value: T, size: int) -> None:
    """Stores ``value`` under the new ``key``, first dropping the oldest entry if ``cache`` is
    full."""
    if len(cache) >= size:
        cache.popitem(last=False)
    cache[key] = value

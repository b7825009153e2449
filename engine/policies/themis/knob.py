"""Themis's fairness knob ``f``: which jobs take part in a round's allocation.

Mahajan et al., "Themis: Fair and Efficient GPU Cluster Scheduling", NSDI 2020, section on the
fairness knob: each round only the ``1 - f`` fraction of jobs farthest from fair (largest
finish-time fairness ``rho``) take part in the allocation; ``f = 0`` lets every job take part
(efficiency), ``f`` near 1 only the most unfair job (fairness). The paper's text is not among
our sources, so the count and the ties follow its authors' simulator (github.com/kshiteejm/mltiply,
``ThemisInterJobScheduler.onResourceAvailable``: jobs sorted by ``rho``, largest first, and the
first ``max(floor(d n), 1)`` of the ``n`` take part, with ``d = 1 - f`` its
``fairness_threshold``).

Our choices [R]: ``floor`` is taken with a 1e-9 tolerance, so that ``(1 - 0.8) x 10`` counts
2 jobs, not 1 (floating point); jobs tied on ``rho`` keep the order given (arrival, then
index) where the simulator shuffles them with a fixed seed.
"""

from __future__ import annotations

import math

import numpy as np

from engine.errors import ConfigError

_FLOOR_TOLERANCE = 1e-9  # [R] see the module docstring


def check_fairness_knob(fairness_knob: float) -> None:
    """Accepts ``f`` in [0, 1) (the paper's range less 1, where no fraction takes part).

    Raises:
        ConfigError: naming ``fairness_knob`` when it is outside [0, 1).
    """
    if not 0.0 <= fairness_knob < 1.0:
        raise ConfigError(
            f"themis: fairness_knob must be in [0, 1) (0 = every job takes part), "
            f"got {fairness_knob!r}"
        )


def take_part(rho: np.ndarray, fairness_knob: float) -> np.ndarray:
    """(n,) bool: the jobs that take part this round, the ``max(floor((1 - f) n), 1)`` largest
    ``rho`` (ties: the earlier index first).

    Args:
        rho: (n,) each job's finish-time fairness now (``inf`` for a job that never ran).
        fairness_knob: ``f`` in [0, 1).
    """
    n = len(rho)
    count = max(math.floor((1.0 - fairness_knob) * n + _FLOOR_TOLERANCE), 1)
    mask = np.zeros(n, dtype=bool)
    mask[np.argsort(-rho, kind="stable")[:count]] = True
    return mask

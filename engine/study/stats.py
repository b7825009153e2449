"""Statistics over seeds (scipy.stats): means with 95% intervals, one-sided bounds, paired
differences.

**Means of non-negative metrics** (JCT, queueing delay, utilization, cost) get an interval on
the log scale of the mean (the delta method: ``Var(log x̄) ~= s^2 / (n x̄^2)``, e.g. Casella &
Berger, *Statistical Inference*, 2nd ed., 5.5.4), with Student's t quantile:
``x̄ * exp(+-t(q, n - 1) * s / (x̄ sqrt(n)))``. It is centred on the arithmetic mean in log
terms, never reaches below zero, and is close to the plain t-interval when the seeds agree
(small ``s / x̄``); it is wider above the mean than below when they do not. A metric with a
negative value gets the plain t-interval ``x̄ +- t * s / sqrt(n)``. Fewer than 2 values give
no interval (NaN).

**Paired differences** take, per seed, the variant's value minus the baseline's (same policy,
same seed); they may be negative, so they get the plain t-interval and a two-sided one-sample
t-test of mean zero (``scipy.stats.ttest_1samp``, i.e. the paired t-test). When every
difference is the same, the test is undefined; we report p = 1.0 for all-zero differences and
p = 0.0 for a constant non-zero one [R: our convention].
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

CONFIDENCE = 0.95
INTERVAL_METHOD = (
    "Student's t on the log scale of the mean over seeds, so a non-negative metric never "
    "gets a bound below zero"
)


def _finite(values: ArrayLike) -> np.ndarray:
    x = np.asarray(values, dtype=float)
    return x[np.isfinite(x)]


def _spread(x: np.ndarray, quantile: float) -> tuple[float, float]:
    """(mean, t(quantile, n - 1) x standard error) of ``x`` (n >= 2)."""
    n = x.size
    return float(x.mean()), float(stats.t.ppf(quantile, n - 1) * x.std(ddof=1) / math.sqrt(n))


def t_interval(values: ArrayLike) -> tuple[int, float, float, float]:
    """(n, mean, ci_low, ci_high): the plain 95% Student's t interval of the finite values
    (for quantities that may be negative, e.g. paired differences); NaN bounds for n < 2."""
    x = _finite(values)
    if x.size == 0:
        return 0, math.nan, math.nan, math.nan
    if x.size < 2:
        return int(x.size), float(x.mean()), math.nan, math.nan
    mean, half = _spread(x, 0.5 + CONFIDENCE / 2)
    return int(x.size), mean, mean - half, mean + half


def mean_ci(values: ArrayLike) -> tuple[int, float, float, float]:
    """(n, mean, ci_low, ci_high): the mean of the finite values (NaNs left out of n) and its
    95% interval, on the log scale when every value is >= 0 (see the module docstring), so the
    bounds stay >= 0; NaN bounds for n < 2."""
    x = _finite(values)
    if x.size < 2 or (x < 0).any():
        return t_interval(x)
    low = mean_bound(x, 0.5 + CONFIDENCE / 2, upper=False)
    return int(x.size), float(x.mean()), low, mean_bound(x, 0.5 + CONFIDENCE / 2)


def mean_bound(values: ArrayLike, confidence: float, upper: bool = True) -> float:
    """A one-sided bound of the mean of non-negative values at ``confidence`` (0.5 .. 1):
    ``x̄ * exp(+-t(confidence, n - 1) * s / (x̄ sqrt(n)))``, upper (default) or lower. At 0.5 it is
    the mean itself. NaN without finite values, or with one value and ``confidence > 0.5``.

    Raises:
        ValueError: for a confidence outside [0.5, 1) or a negative value.
    """
    if not 0.5 <= confidence < 1:
        raise ValueError(f"confidence must be in [0.5, 1), got {confidence}")
    x = _finite(values)
    if (x < 0).any():
        raise ValueError("mean_bound: the values must be >= 0")
    if x.size == 0 or (x.size < 2 and confidence > 0.5):
        return math.nan
    if confidence == 0.5 or x.size < 2:
        return float(x.mean())
    mean, half = _spread(x, confidence)
    if mean == 0:
        return 0.0
    return mean * math.exp((half if upper else -half) / mean)


def paired_diff(values: ArrayLike, baseline: ArrayLike) -> dict[str, float]:
    """Mean of ``values - baseline`` (aligned by seed), its 95% t interval and the p-value.

    Pairs where either side is NaN are left out.
    """
    a = np.asarray(values, dtype=float)
    b = np.asarray(baseline, dtype=float)
    d = (a - b)[np.isfinite(a) & np.isfinite(b)]
    n, mean, low, high = t_interval(d)
    if n < 2:
        p = math.nan
    elif np.all(d == d[0]):
        p = 1.0 if d[0] == 0 else 0.0
    else:
        p = float(stats.ttest_1samp(d, 0.0).pvalue)
    return {"n": float(n), "mean_diff": mean, "ci_low": low, "ci_high": high, "p_value": p}

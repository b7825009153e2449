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

**Paired differences** take, per seed, one side's value minus the other's (same seed); they
may be negative, so they get Student's paired t-test and its interval (``scipy.stats.ttest_rel``,
:func:`paired_test`). When every difference is the same, the test is undefined; we report
p = 1.0 for all-zero differences and p = 0.0 for a constant non-zero one [R: our convention].
"""

from __future__ import annotations

import math
from collections.abc import Sequence

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


def _spread(x: np.ndarray, quantile: float, at_n: int | None = None) -> tuple[float, float]:
    """(mean, t(quantile, n - 1) x standard error) of ``x`` (``x.size`` >= 2), the standard
    error ``s / sqrt(n)`` taken at ``n = at_n`` seeds (default: ``x.size``)."""
    n = at_n or x.size
    return float(x.mean()), float(stats.t.ppf(quantile, n - 1) * x.std(ddof=1) / math.sqrt(n))


def t_interval(values: ArrayLike) -> tuple[int, float, float, float]:
    """(n, mean, ci_low, ci_high): the plain 95% Student's t interval of the finite values
    (for a metric that may be negative); NaN bounds for n < 2."""
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


def mean_bound(
    values: ArrayLike, confidence: float, upper: bool = True, at_n: int | None = None
) -> float:
    """A one-sided bound of the mean of non-negative values at ``confidence`` (0.5 .. 1):
    ``x̄ * exp(+-t(confidence, n - 1) * s / (x̄ sqrt(n)))``, upper (default) or lower. At 0.5 it is
    the mean itself. NaN without finite values, or with one value and ``confidence > 0.5``.
    ``at_n`` (default: the number of values) takes ``n`` at that many seeds: the bound the same
    mean and spread would give on ``at_n`` seeds (the current trend).

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
    mean, half = _spread(x, confidence, at_n)
    if mean == 0:
        return 0.0
    return mean * math.exp((half if upper else -half) / mean)


def t_bound(
    values: ArrayLike, confidence: float, upper: bool = True, at_n: int | None = None
) -> float:
    """The plain one-sided Student's t bound ``x̄ +- t(confidence, n - 1) * s / sqrt(n)`` of the
    mean of values that may be negative (paired differences, module docstring), upper (default)
    or lower; the mean at 0.5; NaN without finite values, or with one value and
    ``confidence > 0.5``; ``n`` taken at ``at_n`` seeds as in :func:`mean_bound`."""
    x = _finite(values)
    if x.size == 0 or (x.size < 2 and confidence > 0.5):
        return math.nan
    if x.size < 2:
        return float(x.mean())
    mean, half = _spread(x, confidence, at_n)
    return mean + half if upper else mean - half


FIRM_SEEDS = 5
"""Fewer paired seeds than this make a weak answer [R]: with n seeds the 95% interval is
``t(0.975, n - 1)`` standard errors wide on each side (12.7 for 2 seeds, 4.3 for 3, 3.2 for 4,
2.8 for 5, 1.96 for very many), and the spread over seeds is itself poorly known."""


def paired_test(a: Sequence[float], b: Sequence[float]) -> dict[str, float]:
    """A against B on the same seeds: the mean of ``a - b``, its 95% interval and the p-value.

    ``a[i]`` and ``b[i]`` must come from the same seed (same trace draws, same simulation
    seed), e.g. two policies of one scenario, or one policy in two variants. The interval and
    test are Student's paired t (``scipy.stats.ttest_rel`` and its ``confidence_interval``);
    when every difference is the same the test is undefined and the convention of the module
    docstring holds (interval of zero width; p = 1.0 for all-zero differences, 0.0 otherwise).

    Args:
        a, b: one value per seed, aligned; pairs where either side is NaN are left out.

    Returns:
        ``{"n", "mean_diff", "ci_low", "ci_high", "p_value"}`` (NaN interval and p for n < 2).

    Raises:
        ValueError: when ``a`` and ``b`` differ in length.
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired_test: {x.size} values against {y.size}; pair them by seed")
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    d = x - y
    n = int(d.size)
    out = {"n": float(n), "mean_diff": float(d.mean()) if n else math.nan,
           "ci_low": math.nan, "ci_high": math.nan, "p_value": math.nan}  # fmt: skip
    if n < 2:
        return out
    if np.all(d == d[0]):
        return {**out, "ci_low": float(d[0]), "ci_high": float(d[0]),
                "p_value": 1.0 if d[0] == 0 else 0.0}  # fmt: skip
    test = stats.ttest_rel(x, y)
    interval = test.confidence_interval(CONFIDENCE)
    return {**out, "ci_low": float(interval.low), "ci_high": float(interval.high),
            "p_value": float(test.pvalue)}  # fmt: skip


ALPHA = round(1 - CONFIDENCE, 12)  # 0.05, not 0.050000000000000044
"""The level a Holm-adjusted p-value must stay below for "beyond seed noise" (0.05)."""


def holm(p_values: ArrayLike) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values (Holm, "A simple sequentially
    rejective multiple test procedure", Scand. J. Statist. 6, 1979): the i-th smallest of m
    becomes ``max over j <= i of min(1, (m - j + 1) p_(j))``, so comparing each adjusted value
    with 0.05 keeps the chance of any false "beyond seed noise" among the m at most 5%.

    Args:
        p_values: shape (m,); NaN entries (no test) stay NaN and do not count in m.

    Returns:
        The adjusted p-values, shape (m,), in the input's order.
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, math.nan)
    tested = np.flatnonzero(np.isfinite(p))
    order = tested[np.argsort(p[tested], kind="stable")]
    factors = len(order) - np.arange(len(order))
    out[order] = np.minimum(1.0, np.maximum.accumulate(factors * p[order]))
    return out


def few_seeds_note(n: int) -> str:
    """Why an answer from ``n`` seeds is weak ("" from :data:`FIRM_SEEDS` seeds up)."""
    if n >= FIRM_SEEDS:
        return ""
    if n < 2:
        return (f"weak with {n} seed{'' if n == 1 else 's'}: no interval can be given; run at "
                f"least {FIRM_SEEDS} seeds")  # fmt: skip
    t = float(stats.t.ppf(0.5 + CONFIDENCE / 2, n - 1))
    return (
        f"weak with {n} seeds: the 95% interval spans {t:.1f} standard errors each side "
        f"(1.96 with many seeds) and the seeds' spread is itself uncertain; run at least "
        f"{FIRM_SEEDS} seeds"
    )

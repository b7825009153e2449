"""Statistics over seeds (scipy.stats): means with 95% t intervals, paired differences.

For n values with mean m and sample standard deviation s, the interval is
``m +- t(0.975, n - 1) * s / sqrt(n)`` (Student's t); NaN for n < 2. A paired difference takes,
per seed, the variant's value minus the baseline's (same policy, same seed), then the same
interval and a two-sided one-sample t-test of mean zero (``scipy.stats.ttest_1samp``, i.e. the
paired t-test). When every difference is the same, the test is undefined; we report p = 1.0
for all-zero differences and p = 0.0 for a constant non-zero one [R: our convention].
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

CONFIDENCE = 0.95


def mean_ci(values: Sequence[float]) -> tuple[int, float, float, float]:
    """(n, mean, ci_low, ci_high) of the finite values; NaNs are left out of n."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    n = int(x.size)
    if n == 0:
        return 0, math.nan, math.nan, math.nan
    mean = float(x.mean())
    if n < 2:
        return n, mean, math.nan, math.nan
    half = float(stats.t.ppf(0.5 + CONFIDENCE / 2, n - 1) * x.std(ddof=1) / math.sqrt(n))
    return n, mean, mean - half, mean + half


def paired_diff(values: Sequence[float], baseline: Sequence[float]) -> dict[str, float]:
    """Mean of ``values - baseline`` (aligned by seed), its 95% interval and the p-value.

    Pairs where either side is NaN are left out.
    """
    a = np.asarray(values, dtype=float)
    b = np.asarray(baseline, dtype=float)
    d = (a - b)[np.isfinite(a) & np.isfinite(b)]
    n, mean, low, high = mean_ci(d)
    if n < 2:
        p = math.nan
    elif np.all(d == d[0]):
        p = 1.0 if d[0] == 0 else 0.0
    else:
        p = float(stats.ttest_1samp(d, 0.0).pvalue)
    return {"n": float(n), "mean_diff": mean, "ci_low": low, "ci_high": high, "p_value": p}


FIRM_SEEDS = 5
"""Fewer paired seeds than this make a weak answer [R]: with n seeds the 95% interval is
``t(0.975, n - 1)`` standard errors wide on each side (12.7 for 2 seeds, 4.3 for 3, 3.2 for 4,
2.8 for 5, 1.96 for very many), and the spread over seeds is itself poorly known."""


def paired_test(a: Sequence[float], b: Sequence[float]) -> dict[str, float]:
    """A against B on the same seeds: the mean of ``a - b``, its 95% interval and the p-value.

    ``a[i]`` and ``b[i]`` must come from the same seed (same trace draws, same simulation
    seed), e.g. two policies of one scenario, or one policy in two variants. The interval and
    test are Student's paired t (``scipy.stats.ttest_rel`` and its ``confidence_interval``);
    when every difference is the same the test is undefined and the convention of
    :func:`paired_diff` holds (interval of zero width; p = 1.0 for all-zero differences, 0.0
    otherwise).

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

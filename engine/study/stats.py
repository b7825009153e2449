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

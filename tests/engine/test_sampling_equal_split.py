"""Equal split (the baseline of Liu et al., TPDS 2024) finds its even share in one pass; the
result equals raising the share one GPU at a time while it fits the budget."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.policies.sampling.categories import equal_split


def stepwise_equal_split(upper: np.ndarray, budget: int) -> np.ndarray:
    """The share raised one GPU at a time (the code the one-pass search replaced)."""
    level = 1
    while level < upper.max() and np.minimum(upper, level + 1).sum() <= budget:
        level += 1
    counts = np.minimum(upper, level)
    open_jobs = np.nonzero(counts < upper)[0][: budget - int(counts.sum())]
    counts[open_jobs] += 1
    return counts[None, :]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 64), min_size=1, max_size=40), st.integers(0, 2000))
def test_one_pass_share_equals_the_stepwise_one(upper: list[int], extra: int) -> None:
    caps = np.array(upper, dtype=np.int64)
    budget = len(upper) + extra  # at least one GPU per job, as the policy selects
    assert np.array_equal(equal_split(caps, budget), stepwise_equal_split(caps, budget))


def test_hand_computed_share() -> None:
    """Caps (1, 4, 8), 10 GPUs: a share of 5 uses 1 + 4 + 5 = 10 GPUs and a share of 6 would
    need 11, so the counts are (1, 4, 5). With 12 GPUs the share is 7 (1 + 4 + 7)."""
    assert equal_split(np.array([1, 4, 8]), 10).tolist() == [[1, 4, 5]]
    assert equal_split(np.array([1, 4, 8]), 12).tolist() == [[1, 4, 7]]

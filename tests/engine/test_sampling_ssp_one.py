"""The plain-Python shortest paths of one market equal the vectorized solver's, count for count
(ties included), and both reach the brute-force optimum's value."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine.reference.sampling_model import add_supply
from tests.engine.ssp_one import add_supply_one

BIG = -1e6  # what market() prices an unusable type at


@st.composite
def markets(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Values with many ties (a few levels), some unusable cells, and supply within capacity."""
    n_cls, n_types = draw(st.integers(1, 6)), draw(st.integers(1, 4))
    levels = st.sampled_from([0.5, 1.0, 1.0, 2.25, 3.0, BIG])
    values = np.array([[draw(levels) for _ in range(n_types)] for _ in range(n_cls)])
    capacity = np.array([draw(st.integers(0, 6)) for _ in range(n_types)], dtype=np.int64)
    supply = np.array([draw(st.integers(0, 5)) for _ in range(n_cls)], dtype=np.int64)
    while supply.sum() > capacity.sum():
        supply[supply.argmax()] -= 1
    return values, supply, capacity


@settings(max_examples=300, deadline=None)
@given(markets())
def test_one_market_equals_the_vectorized_solver(market: tuple) -> None:
    values, supply, capacity = market
    counts = np.zeros((1, len(supply), len(capacity)), dtype=np.int64)
    free = capacity[None, :].copy()
    add_supply(values, supply[None, :], counts, free)
    one_counts = [[0] * len(capacity) for _ in supply]
    one_free = capacity.tolist()
    add_supply_one(values.tolist(), supply.tolist(), one_counts, one_free)
    assert one_counts == counts[0].tolist()
    assert one_free == free[0].tolist()
    assert (counts[0].sum(axis=1) == supply).all()


def test_hand_computed_market_moves_a_unit_to_make_room() -> None:
    """Two V100s and a K80. Class 0 values (V100 3, K80 2), class 1 values (V100 3, K80 1).
    Class 0's two slots take both V100s; class 1's slot then makes room: moving a class-0 unit
    to the K80 loses 1, cheaper than class 1 on the K80 (loses 2). Total 3 + 2 + 3 = 8."""
    values = [[3.0, 2.0], [3.0, 1.0]]
    counts, free = [[0, 0], [0, 0]], [2, 1]
    add_supply_one(values, [2, 1], counts, free)
    assert counts == [[1, 1], [1, 0]]
    assert free == [0, 0]

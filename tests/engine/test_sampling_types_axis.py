"""The worker-type-axis reductions of the sampling policy equal numpy's, bit for bit."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from engine.policies.sampling.types_axis import (
    all_types,
    any_types,
    cumsum_types,
    first_true,
    max_types,
    sum_types,
)

SHAPES = st.tuples(st.integers(1, 5), st.integers(1, 7), st.integers(1, 6))
FLOATS = st.floats(0.0, 1e6, allow_nan=False, allow_subnormal=False)


@settings(max_examples=60, deadline=None)
@given(st.data(), SHAPES)
def test_reductions_equal_numpys(data: st.DataObject, shape: tuple[int, int, int]) -> None:
    counts = data.draw(arrays(np.int64, shape, elements=st.integers(0, 512)))
    rates = data.draw(arrays(np.float64, shape, elements=FLOATS))
    flags = counts > 256
    assert np.array_equal(sum_types(counts), counts.sum(axis=2))
    assert np.array_equal(cumsum_types(counts), np.cumsum(counts, axis=2))
    assert sum_types(rates).tobytes() == rates.sum(axis=2).tobytes()
    assert max_types(rates, 0.5).tobytes() == rates.max(axis=2, initial=0.5).tobytes()
    assert np.array_equal(any_types(flags), flags.any(axis=2))
    assert np.array_equal(all_types(flags), flags.all(axis=2))
    assert np.array_equal(first_true(flags), flags.argmax(axis=2))


def test_a_float_sum_adds_left_to_right() -> None:
    """1e16 + 1 + 1 left to right loses both ones (adding the ones first would keep them): numpy
    and ours agree on the order."""
    rates = np.array([[[1e16, 1.0, 1.0]]])
    assert sum_types(rates)[0, 0] == rates.sum(axis=2)[0, 0] == 1e16

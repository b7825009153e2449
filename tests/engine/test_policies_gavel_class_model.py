"""The class LP's kept models and remembered solutions against fresh solves (issue 11).

:class:`ClassMaxMin` reuses a :class:`ClassModel` per class set and a solution per class counts;
both shortcuts must give, bit for bit, what a fresh model on a fresh HiGHS instance gives.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.policies.gavel.class_lp import ClassMaxMin
from engine.policies.gavel.class_model import ClassModel
from engine.policies.gavel.highs import HighsSolver
from engine.policies.gavel.lp import max_min_coefficients


@st.composite
def _class_runs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """A table of classes (some fitting no type) and a run of count vectors over it, drawn
    from a few class sets so that sets and counts repeat."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    num_classes = draw(st.integers(1, 10))
    tput = rng.uniform(0.5, 4.0, (num_classes, 3)).round(1)
    tput[rng.random((num_classes, 3)) < 0.3] = 0.0
    sfs = rng.choice([1.0, 2.0, 4.0], num_classes)
    capacity = np.array([4.0, 6.0, 2.0])
    coefficients = max_min_coefficients(tput, sfs, np.ones(num_classes), capacity, True)
    sets = [rng.random(num_classes) < 0.7 for _ in range(3)]
    runs = []
    for _ in range(draw(st.integers(1, 12))):
        members = sets[draw(st.integers(0, 2))]
        runs.append(rng.integers(1, 4, num_classes) * members)
    return coefficients, sfs, capacity, [counts for counts in runs if counts.any()]


@settings(max_examples=60, deadline=None)
@given(case=_class_runs())
def test_kept_models_and_solutions_equal_fresh_solves(
    case: tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]],
) -> None:
    coefficients, sfs, capacity, runs = case
    kept = ClassMaxMin(capacity, 1e-3, models_kept=2, cache_size=3)
    for counts in runs:
        present, shares = kept.shares(coefficients, sfs, counts)
        fresh = ClassModel(coefficients[present], sfs[present], capacity, 1e-3)
        assert np.array_equal(present, np.flatnonzero(counts))
        assert np.array_equal(shares, fresh.solve(counts[present], HighsSolver()))


def test_model_arrays_are_the_lp_of_its_definition() -> None:
    """Two classes on two types; class 1 fits type 0 only, class 2 fits nothing (no rows).
    The matrix, bounds and costs written out by hand from the LP (lp module docstring)."""
    coefficients = np.array([[2.0, 0.5], [3.0, 0.0], [0.0, 0.0]])
    model = ClassModel(coefficients, np.array([1.0, 2.0, 1.0]), np.array([4.0, 8.0]), 0.1)
    counts = np.array([3, 2, 5])
    live_counts = counts[model.live]
    matrix = np.zeros((model.num_rows, model.m + 1))
    data = model.data(live_counts)
    for col in range(model.m + 1):
        for at in range(model.indptr[col], model.indptr[col + 1]):
            matrix[model.indices[at], col] = data[at]
    # columns: X[0,0], X[0,1], X[1,0], t; rows: fairness 0, 1; time 0, 1; capacity 0, 1
    expected = np.array(
        [
            [-2.0, -0.5, 0.0, 1.0],
            [0.0, 0.0, -3.0, 1.0],
            [1.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [3.0, 0.0, 4.0, 0.0],
            [0.0, 3.0, 0.0, 0.0],
        ]
    )
    assert np.array_equal(matrix, expected)
    assert np.array_equal(model.b_ub, [0.0, 0.0, 1.0, 1.0, 4.0, 8.0])
    assert np.array_equal(model.upper, [1.0, 1.0, 1.0, np.inf])
    weight = 0.1 / 5  # epsilon over the live classes' jobs
    assert np.allclose(model.objective(live_counts), [-weight * 6, -weight * 1.5, -weight * 6, -1])
    shares = model.solve(counts, HighsSolver())
    assert shares.shape == (3, 2) and not shares[2].any()


@settings(max_examples=40, deadline=None)
@given(case=_class_runs())
def test_kept_buffers_solve_as_the_arrays_built_anew(
    case: tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]],
) -> None:
    """The fast path (entries and costs written into the model's kept HiGHS buffers, shares
    clipped in a loop and packed) against the path that builds ``data``/``objective`` anew
    and clips with numpy, on one model through a run of counts (stale entries would show)."""
    coefficients, sfs, capacity, runs = case
    model = ClassModel(coefficients, sfs, capacity, 1e-3)
    for counts in runs:
        counts = np.where(counts > 0, counts, 1)  # every class present
        fast = model.solve(counts, HighsSolver())
        if model.m == 0:  # no live class: no LP
            assert not fast.any()
            continue
        built = model._solve_arrays(counts, HighsSolver(), None)
        assert fast.dtype == built.dtype and fast.shape == built.shape
        assert fast.tobytes() == built.tobytes()


@pytest.mark.parametrize(
    "special",
    [
        [-0.0, 0.0, -1e-12, 1.0, 1.0 + 1e-9, np.nan, -np.inf, np.inf, 0.5],
        [-0.0, 0.0, 0.25, 1.0, 1.0 + 1e-9, 0.5, 0.75, 0.0, 0.5],  # only one above 1
        [-0.0, 0.0, 0.25, 1.0, 0.3, 0.5, 0.75, -1e-12, 0.5],  # only one below 0
        [-0.0, 0.0, 0.25, 1.0, 0.3, 0.5, 0.75, np.nan, 0.5],  # none out of bounds
    ],
)
def test_shares_clip_as_numpy_does(special: list[float]) -> None:
    """Negative zero and NaN pass through, below 0 and above 1 are cut: np.clip's bytes, in
    the cells of the share columns (class 1 fits type 0 only: its other cells stay 0)."""
    coefficients = np.array([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
    model = ClassModel(coefficients, np.ones(4), np.full(3, 4.0), 1e-3)
    shares = model._shares([*special, -1.0])  # m = 9 share columns, then t
    expected = np.zeros(12)
    expected[[0, 1, 2, 3, 6, 7, 8, 9, 10]] = np.clip(np.array(special), 0.0, 1.0)
    assert shares.tobytes() == expected.reshape(4, 3).tobytes()
    assert np.signbit(shares[0, 0]) and not np.signbit(shares[0, 1])


def test_oldest_solution_and_model_dropped_first() -> None:
    coefficients = np.array([[1.0, 2.0], [2.0, 1.0]])
    kept = ClassMaxMin(np.array([2.0, 2.0]), 1e-3, cache_size=2, models_kept=2)
    for counts in ([1, 0], [0, 1], [1, 1], [2, 1]):
        kept.shares(coefficients, np.ones(2), np.array(counts))
    classes = [np.array(ids).tobytes() for ids in ([0], [1], [0, 1])]
    assert list(kept._models) == classes[1:]  # [0] dropped, [0, 1] kept once
    assert len(kept._cache) == 2
    assert list(kept._cache)[0].startswith(classes[2])  # the [1] solution dropped


def test_kept_model_is_the_lp_of_its_counts() -> None:
    """After a solve, the kept model HiGHS was passed holds, byte for byte, the costs and
    matrix entries the LP of those counts has (:meth:`ClassModel.objective`, ``data``)."""
    coefficients = np.array([[2.0, 0.5], [3.0, 0.0], [0.0, 0.0]])
    model = ClassModel(coefficients, np.array([1.0, 2.0, 1.0]), np.array([4.0, 8.0]), 0.1)
    for counts in (np.array([3, 2, 5]), np.array([1, 4, 5])):
        model.solve(counts, HighsSolver())  # writes the entries and costs of these counts
        live_counts = counts[model.live]
        kept = model.model
        assert kept.objective.tobytes() == model.objective(live_counts).tobytes()
        assert kept.matrix.data.tobytes() == model.data(live_counts).tobytes()
        assert kept.b_ub is model.b_ub and kept.upper is model.upper

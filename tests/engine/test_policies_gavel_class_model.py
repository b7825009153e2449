"""The class LP's kept models and remembered solutions against fresh solves (issue 11).

:class:`ClassMaxMin` reuses a :class:`ClassModel` per class set and a solution per class counts;
both shortcuts must give, bit for bit, what a fresh model on a fresh HiGHS instance gives; the
kept model holds the LP of its counts as written out from its definition
(tests/engine/reference/gavel_lp.py).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.policies.gavel.class_lp import ClassMaxMin
from engine.policies.gavel.class_model import ClassModel
from engine.policies.gavel.highs import HighsSolver
from engine.policies.gavel.lp import max_min_coefficients
from tests.engine.reference.gavel_lp import class_lp_arrays


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


def _dense(model: ClassModel) -> np.ndarray:
    """The kept model's constraint matrix, dense."""
    csc = model.model.matrix
    shape = (csc.num_rows, csc.indptr.size - 1)
    return sp.csc_matrix((csc.data, csc.indices, csc.indptr), shape=shape).toarray()


def test_model_arrays_are_the_lp_of_its_definition() -> None:
    """Two classes on two types; class 1 fits type 0 only, class 2 fits nothing (no rows).
    The matrix, bounds and costs written out by hand from the LP (lp module docstring)."""
    coefficients = np.array([[2.0, 0.5], [3.0, 0.0], [0.0, 0.0]])
    model = ClassModel(coefficients, np.array([1.0, 2.0, 1.0]), np.array([4.0, 8.0]), 0.1)
    shares = model.solve(np.array([3, 2, 5]), HighsSolver())  # fills the kept model
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
    assert np.array_equal(_dense(model), expected)
    assert np.array_equal(model.model.b_ub, [0.0, 0.0, 1.0, 1.0, 4.0, 8.0])
    assert np.array_equal(model.model.upper, [1.0, 1.0, 1.0, np.inf])
    weight = 0.1 / 5  # epsilon over the live classes' jobs
    assert np.allclose(model.model.objective, [-weight * 6, -weight * 1.5, -weight * 6, -1])
    assert shares.shape == (3, 2) and not shares[2].any()


@settings(max_examples=40, deadline=None)
@given(case=_class_runs())
def test_kept_model_is_the_lp_of_its_counts(
    case: tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]],
) -> None:
    """One model through a run of counts (stale entries would show): after each solve the
    kept model holds, byte for byte, the matrix and costs of the LP of those counts."""
    coefficients, sfs, capacity, runs = case
    model = ClassModel(coefficients, sfs, capacity, 1e-3)
    for counts in runs:
        counts = np.where(counts > 0, counts, 1)  # every class present
        shares = model.solve(counts, HighsSolver())
        if model.m == 0:  # no live class: no LP
            assert not shares.any()
            continue
        matrix, costs = class_lp_arrays(coefficients, sfs, counts, 1e-3)
        assert _dense(model).tobytes() == matrix.tobytes()
        assert model.model.objective.tobytes() == costs.tobytes()
        assert ((shares >= 0) & (shares <= 1)).all()


def test_oldest_solution_and_model_dropped_first() -> None:
    coefficients = np.array([[1.0, 2.0], [2.0, 1.0]])
    kept = ClassMaxMin(np.array([2.0, 2.0]), 1e-3, cache_size=2, models_kept=2)
    for counts in ([1, 0], [0, 1], [1, 1], [2, 1]):
        kept.shares(coefficients, np.ones(2), np.array(counts))
    classes = [np.array(ids).tobytes() for ids in ([0], [1], [0, 1])]
    assert list(kept._models) == classes[1:]  # [0] dropped, [0, 1] kept once
    assert len(kept._cache) == 2
    assert list(kept._cache)[0].startswith(classes[2])  # the [1] solution dropped

"""Handing out the market's workers with settled jobs copied once (compiled) equals handing out
to every job (the vectorized reference), count for count (sampling-based placement, Liu et al.,
TPDS 2024)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.policies.sampling.fill import split_fill
from tests.engine.reference.sampling_fill import hand_out


@st.composite
def hand_outs(draw: st.DrawFn) -> tuple[np.ndarray, ...]:
    """Random classes, holdings, sizes (often the current size) and class shares."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_cat, n_jobs = int(rng.integers(1, 6)), int(rng.integers(1, 12))
    n_cls, n_types = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    job_class = rng.integers(0, n_cls, n_jobs)
    current = rng.integers(0, 3, (n_jobs, n_types)) * (rng.random((n_jobs, 1)) < 0.7)
    held = current.sum(axis=1)
    sizes = np.where(rng.random((n_cat, n_jobs)) < 0.8, np.maximum(held, 1), rng.integers(1, 4))
    class_counts = rng.integers(0, draw(st.integers(1, 12)), (n_cat, n_cls, n_types))
    running = np.nonzero(held > 0)[0]
    keep_order = running[np.argsort(job_class[running], kind="stable")]
    line_order = np.lexsort((np.arange(n_jobs), rng.random(n_jobs), job_class))
    type_order = np.array([rng.permutation(n_types) for _ in range(n_cls)])
    return class_counts, sizes, job_class, current, keep_order, line_order, type_order


def fill_jobs(*case: np.ndarray) -> np.ndarray:
    """(N, J, T) workers per job: the settled jobs' current GPUs and the others' hand-out."""
    settled, out_rest = split_fill(*case)
    out = np.empty(case[1].shape + (case[0].shape[2],), dtype=np.int64)
    out[:, settled] = case[3][settled]
    out[:, ~settled] = out_rest
    return out


@settings(max_examples=400, deadline=None)
@given(hand_outs())
def test_settled_split_equals_the_full_hand_out(case: tuple[np.ndarray, ...]) -> None:
    assert np.array_equal(fill_jobs(*case), hand_out(*case))


def test_hand_computed_settled_jobs() -> None:
    """One class, two types. Jobs 0 and 1 run on one GPU of type 0 each and ask for one; job 2
    runs on one GPU of type 1 and asks for 2 in the second category. The class gets
    (2, 1) and (2, 2) GPUs: jobs 0 and 1 fit in both (settled); job 2 keeps its GPU in the
    first category and takes the type-1 line's two GPUs in the second."""
    current = np.array([[1, 0], [1, 0], [0, 1]])
    sizes = np.array([[1, 1, 1], [1, 1, 2]])
    class_counts = np.array([[[2, 1]], [[2, 2]]])
    case = (class_counts, sizes, np.zeros(3, dtype=np.int64), current,
            np.arange(3), np.arange(3), np.array([[1, 0]]))  # fmt: skip
    assert split_fill(*case)[0].tolist() == [True, True, False]
    out = fill_jobs(*case)
    assert out[0].tolist() == [[1, 0], [1, 0], [0, 1]]
    assert out[1].tolist() == [[1, 0], [1, 0], [0, 2]]

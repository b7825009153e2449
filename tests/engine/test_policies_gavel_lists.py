"""Gavel's Python-list fast paths against their numpy (or plain) definitions (issue 11).

Gavel's per-type queues are ranked in Python lists, the random type order shuffles a list,
and the round book registers jobs one at a time in Python. Each must give exactly what the
other form gives.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.policies.gavel.book import RoundBook
from engine.policies.gavel.lp import fit_mask
from engine.policies.gavel.queues import GavelQueues, QueueRow
from engine.state import JobState
from tests.engine.reference.gavel_rounds import fits_of

TYPES = ["v100", "p100", "k80"]


def _gavel_queues(
    capacity: np.ndarray, aware: bool, rng: np.random.Generator, skip_zero: bool = False
) -> GavelQueues:
    """Gavel's queues over ``TYPES`` (360 s rounds, 1920 s interval), with a book and no LP."""
    book = RoundBook(TYPES, capacity, aware)

    def no_solve(now_s: float, active: list[JobState], rows: np.ndarray) -> np.ndarray:
        raise AssertionError("these tests set the shares themselves")

    return GavelQueues(TYPES, capacity, 360.0, 1920.0, aware, rng, skip_zero, book, no_solve)


def _queues(
    rng: np.random.Generator, n: int, skip_zero: bool
) -> tuple[GavelQueues, list[JobState], list[QueueRow]]:
    """Queues with random X, times, deficits and shares for ``n`` jobs (some ties, some zeros,
    some jobs without a row in X)."""
    book = _gavel_queues(np.array([4.0, 4.0, 4.0]), True, rng, skip_zero)
    indices = np.sort(rng.choice(300, n, replace=False)).tolist()
    tputs = rng.choice([0.0, 1.0, 2.5], (n, 3))
    jobs = [
        JobState(index, f"j{index}", 0.0, "t", int(rng.choice([1, 2, 4])), 100.0, 1.0,
                 dict(zip(TYPES, tputs[i].tolist(), strict=True)), 1.0)
        for i, index in enumerate(indices)
    ]  # fmt: skip
    book.book.register(indices, jobs)
    rows = book._track(jobs)
    for row in rows:
        row.job_time = rng.choice([0.0, 180.0, 360.0, 540.0], 3).tolist()
        row.deficit = rng.choice([-90.0, 0.0, 0.0, 120.0], 3).tolist()
        if rng.random() < 0.8:
            row.shares = rng.choice([0.0, 0.0, 0.25, 0.5, 1.0], 3).tolist()
    book.worker_time = rng.choice([0.0, 900.0, 1800.0], 3).tolist()
    return book, jobs, rows


def _numpy_priorities(book: GavelQueues, rows: list[QueueRow]) -> np.ndarray:
    """(n, K) Gavel's priorities as its vectorized definition (the former numpy path)."""
    shares = np.array([row.shares or [0.0] * 3 for row in rows])
    has_share = np.array([row.shares is not None for row in rows])
    received = np.array([row.job_time for row in rows])
    tputs = np.array([row.throughputs for row in rows])
    worker_time = np.array(book.worker_time)
    fraction = np.divide(received, worker_time, out=np.zeros_like(received), where=worker_time > 0)
    priority = shares * 1e9
    np.divide(shares, fraction, out=priority, where=fraction > 0)
    return np.where(has_share[:, None] & (shares > 0) & (tputs > 0), priority, 0.0)


@pytest.mark.parametrize("seed", range(4))
def test_queue_lists_rank_as_the_lexsort(seed: int) -> None:
    """Each type's queue is the stable lexsort by (priority, deficit, X), largest first, with
    the priorities of the numpy definition, less the jobs the type could not take."""
    rng = np.random.default_rng(seed)
    for _ in range(100):
        skip_zero = bool(rng.random() < 0.5)
        book, jobs, rows = _queues(rng, int(rng.integers(1, 40)), skip_zero)
        priority = _numpy_priorities(book, rows)
        shares = np.array([row.shares or [0.0] * 3 for row in rows])
        deficit = np.array([row.deficit for row in rows])
        picked = (rng.random(len(jobs)) < 0.3).tolist()
        for col in range(3):
            room = int(rng.integers(1, 5))
            order = np.lexsort((-shares[:, col], -deficit[:, col], -priority[:, col])).tolist()
            expected = [
                i for i in order
                if not picked[i] and rows[i].throughputs[col] > 0
                and not (skip_zero and priority[i, col] <= 0) and jobs[i].scale_factor <= room
            ]  # fmt: skip
            assert book._candidates(jobs, rows, picked, col, room) == expected


def _job(index: int, waiting: bool) -> JobState:
    """A job that waits, or one that completed (neither waits nor can be granted)."""
    job = JobState(index, f"j{index}", 0.0, "t", 1, 10.0, 1.0, {}, 1.0)
    if not waiting:
        job.completion_s = 0.0
    return job


def test_shuffled_type_order_draws_as_rng_permutation() -> None:
    """The list shuffle takes the draws rng.permutation takes (the agnostic policies' seeds)."""
    book = _gavel_queues(np.ones(3), False, np.random.default_rng(7))
    reference = np.random.default_rng(7)
    for _ in range(500):
        assert book._type_order() == reference.permutation(3).tolist()
    assert book.rng.random() == reference.random()


def test_registered_rows_match_the_vectorized_definitions() -> None:
    """Jobs registered one at a time get the fit mask, the stable fastest-first type order and
    the class labels of the array definitions."""
    rng = np.random.default_rng(3)
    capacity = np.array([8.0, 4.0, 2.0])
    for aware in (True, False):
        book = RoundBook(TYPES, capacity, aware)
        tput = rng.choice([0.0, 1.0, 2.0, 2.0, 3.5], (60, 3))
        sfs = rng.choice([1, 2, 4], 60)
        jobs = [
            JobState(i, f"j{i}", 0.0, "t", int(sfs[i]), 10.0, 1.0,
                     {wt: tput[i, k] for k, wt in enumerate(TYPES) if tput[i, k] > 0}, 1.0)
            for i in range(60)
        ]  # fmt: skip
        for start in range(0, 60, 7):  # jobs first seen a few at a time
            book.register(list(range(start, min(start + 7, 60))), jobs[start : start + 7])
        fits = fit_mask(tput, sfs.astype(float), capacity)
        assert np.array_equal(fits_of(book, np.arange(60)), fits)
        order = np.argsort(-tput, axis=1, kind="stable") if aware else np.tile(range(3), (60, 1))
        ordered = [tuple(col for col in order[i].tolist() if fits[i, col]) for i in range(60)]
        assert book.fit_cols[:60] == ordered
        basis = tput if aware else fits
        keys = [(*basis[i].tolist(), float(sfs[i])) for i in range(60)]
        first = {key: keys.index(key) for key in keys}
        labels = sorted(set(first.values()))
        assert book.class_rows == labels
        assert book.labels[:60] == [labels.index(first[key]) for key in keys]

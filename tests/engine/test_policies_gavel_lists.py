"""Gavel's Python-list fast paths against their numpy (or plain) definitions (issue 11).

Gavel's per-type queues are ranked in Python lists, RoundPairs skips the pairs of jobs no
longer waiting inside the greedy pass, the random type order shuffles a list, and the round
book registers jobs one at a time in Python. Each must give exactly what the other form gives.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.policies.gavel.lp import fit_mask
from engine.policies.gavel.pairs import RoundPairs, greedy_grants
from engine.policies.gavel.queues import GavelQueues, QueueRow
from engine.policies.gavel.rounds import RoundBook
from engine.state import JobState

TYPES = ["v100", "p100", "k80"]


def _queues(
    rng: np.random.Generator, n: int, skip_zero: bool
) -> tuple[GavelQueues, list[JobState], list[QueueRow]]:
    """Queues with random X, times, deficits and shares for ``n`` jobs (some ties, some zeros,
    some jobs without a row in X)."""
    book = GavelQueues(TYPES, np.array([4.0, 4.0, 4.0]), 360.0, 1920.0, True, rng, skip_zero)
    indices = np.sort(rng.choice(300, n, replace=False)).tolist()
    tputs = rng.choice([0.0, 1.0, 2.5], (n, 3))
    jobs = [
        JobState(index, f"j{index}", 0.0, "t", int(rng.choice([1, 2, 4])), 100.0, 1.0,
                 dict(zip(TYPES, tputs[i].tolist(), strict=True)), 1.0)
        for i, index in enumerate(indices)
    ]  # fmt: skip
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
    book = GavelQueues(TYPES, np.ones(3), 360.0, 1920.0, False, np.random.default_rng(7))
    reference = np.random.default_rng(7)
    for _ in range(500):
        assert book._type_order() == reference.permutation(3).tolist()
    assert book.rng.random() == reference.random()


def _plain_pass_over_waiting(
    jobs: list[JobState], pos: list[int], cols: list[int], sfs: list[float], free: list[int]
) -> list[int]:
    """The greedy pass over the pairs of waiting jobs only, as indices into the whole lists."""
    keep = [i for i, p in enumerate(pos) if jobs[p].completion_s is None]
    granted = greedy_grants([pos[i] for i in keep], [cols[i] for i in keep],
                            [sfs[i] for i in keep], free)  # fmt: skip
    return [keep[g] for g in granted]


@pytest.mark.parametrize("num_jobs", [5, 40])
def test_round_pairs_grant_as_the_pass_over_the_waiting_pairs(num_jobs: int) -> None:
    """Pass after pass of a round, RoundPairs.grants (from lists or arrays) grants what the
    greedy pass over the pairs of the jobs still waiting grants, and leaves the same GPUs free;
    the jobs it granted stop waiting before the next pass, as the engine starts them."""
    rng = np.random.default_rng(num_jobs)
    for _ in range(50):
        pos = rng.integers(0, num_jobs, 3 * num_jobs)
        cols = rng.integers(0, 3, pos.size)
        sfs = rng.choice([1.0, 2.0, 4.0], pos.size)
        for given in ((pos, cols, sfs), (pos.tolist(), cols.tolist(), sfs.tolist())):
            jobs = [_job(i, waiting=rng.random() < 0.6) for i in range(num_jobs)]
            reference = [_job(i, waiting=job.completion_s is None) for i, job in enumerate(jobs)]
            round_pairs = RoundPairs(jobs, *given)
            for _ in range(4):
                free = rng.integers(0, 5, 3).tolist()
                expected_free = list(free)
                expected = _plain_pass_over_waiting(
                    reference, pos.tolist(), cols.tolist(), sfs.tolist(), expected_free
                )
                assert round_pairs.grants(free) == expected
                assert free == expected_free
                for i in expected:
                    jobs[pos[i]].completion_s = reference[pos[i]].completion_s = 1.0


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
            book.rows(jobs[start : start + 7])
        fits = fit_mask(tput, sfs.astype(float), capacity)
        assert np.array_equal(book.fits[:60], fits)
        assert np.array_equal(book.speed_order[:60], np.argsort(-tput, axis=1, kind="stable"))
        basis = tput if aware else fits
        keys = [(*basis[i].tolist(), float(sfs[i])) for i in range(60)]
        first = {key: keys.index(key) for key in keys}
        labels = sorted(set(first.values()))
        assert book.class_rows == labels
        assert book.class_ids[:60].tolist() == [labels.index(first[key]) for key in keys]

"""Gavel's Python-list fast paths against their numpy (or plain) definitions (issue 11).

Small rounds rank Gavel's per-type queues in Python lists, RoundPairs filters few pairs in
Python and many with numpy, the random type order shuffles a list, and the round book
registers jobs one at a time in Python. Each must give exactly what the other form gives.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from engine.policies.gavel import pairs, queues
from engine.policies.gavel.lp import fit_mask
from engine.policies.gavel.pairs import RoundPairs, greedy_grants
from engine.policies.gavel.queues import GavelQueues
from engine.policies.gavel.rounds import RoundBook

TYPES = ["v100", "p100", "k80"]


def _queues(rng: np.random.Generator, n: int) -> tuple[GavelQueues, np.ndarray, np.ndarray]:
    """Queues with random X, times, deficits and shares for ``n`` jobs (some ties, some zeros)."""
    book = GavelQueues(TYPES, np.array([4.0, 4.0, 4.0]), 360.0, 1920.0, True, rng)
    rows = np.sort(rng.choice(300, n, replace=False))
    book._grow(300)
    book.shares[rows] = rng.choice([0.0, 0.0, 0.25, 0.5, 1.0], (n, 3))
    book.job_time[rows] = rng.choice([0.0, 180.0, 360.0, 540.0], (n, 3))
    book.deficit[rows] = rng.choice([-90.0, 0.0, 0.0, 120.0], (n, 3))
    book.has_share[rows] = rng.random(n) < 0.8
    book.worker_time = rng.choice([0.0, 900.0, 1800.0], 3).tolist()
    throughputs = rng.choice([0.0, 1.0, 2.5], (n, 3))
    return book, rows, throughputs


@pytest.mark.parametrize("seed", range(4))
def test_queue_lists_rank_as_the_lexsort(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same priorities (bit for bit) and the same queue of every type, in lists and numpy."""
    rng = np.random.default_rng(seed)
    for _ in range(100):
        book, rows, throughputs = _queues(rng, int(rng.integers(1, 30)))
        monkeypatch.setattr(queues, "_LISTS_UP_TO", 1000)
        priority_lists, queue_lists = book._queues(rows, throughputs)
        monkeypatch.setattr(queues, "_LISTS_UP_TO", 0)
        priority_numpy, queue_numpy = book._queues(rows, throughputs)
        assert priority_lists == priority_numpy
        for col in range(3):
            assert queue_lists(col) == queue_numpy(col)


def test_shuffled_type_order_draws_as_rng_permutation() -> None:
    """The list shuffle takes the draws rng.permutation takes (the agnostic policies' seeds)."""
    book = GavelQueues(TYPES, np.ones(3), 360.0, 1920.0, False, np.random.default_rng(7))
    reference = np.random.default_rng(7)
    for _ in range(500):
        assert book._type_order() == reference.permutation(3).tolist()
    assert book.rng.random() == reference.random()


@pytest.mark.parametrize("num_jobs", [5, 40])  # pairs filtered in Python, and with numpy
def test_round_pairs_filter_the_waiting_pairs(num_jobs: int) -> None:
    """waiting() keeps exactly the pairs of jobs still waiting, in order, from lists or arrays,
    and can_grant says whether the greedy pass over them grants anything."""
    rng = np.random.default_rng(num_jobs)
    for _ in range(50):
        jobs = [
            SimpleNamespace(placement=None if rng.random() < 0.6 else object(), completion_s=None)
            for _ in range(num_jobs)
        ]
        pos = rng.integers(0, num_jobs, 3 * num_jobs)
        cols = rng.integers(0, 3, pos.size)
        sfs = rng.choice([1.0, 2.0, 4.0], pos.size)
        alive = [job.placement is None for job in jobs]
        keep = [i for i, p in enumerate(pos.tolist()) if alive[p]]
        free = rng.integers(0, 5, 3).tolist()
        for given in ((pos, cols, sfs), (pos.tolist(), cols.tolist(), sfs.tolist())):
            round_pairs = RoundPairs(jobs, np.arange(num_jobs), *given)  # type: ignore[arg-type]
            _, _, live_pos, live_cols, live_sfs = round_pairs.waiting()
            assert live_pos == pos[keep].tolist()
            assert live_cols == cols[keep].tolist()
            assert live_sfs == sfs[keep].tolist()
            grants = greedy_grants(live_pos, live_cols, live_sfs, list(free))
            assert round_pairs.can_grant(list(free)) == bool(grants)
    assert pairs._FILTER_IN_PYTHON_UP_TO < 3 * 40


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
            SimpleNamespace(
                index=i,
                steps_per_s={wt: tput[i, k] for k, wt in enumerate(TYPES) if tput[i, k] > 0},
                scale_factor=int(sfs[i]),
                priority_weight=1.0,
            )
            for i in range(60)
        ]
        for start in range(0, 60, 7):  # jobs first seen a few at a time
            book.rows(jobs[start : start + 7])  # type: ignore[arg-type]
        fits = fit_mask(tput, sfs.astype(float), capacity)
        assert np.array_equal(book.fits[:60], fits)
        assert np.array_equal(book.speed_order[:60], np.argsort(-tput, axis=1, kind="stable"))
        basis = tput if aware else fits
        keys = [(*basis[i].tolist(), float(sfs[i])) for i in range(60)]
        first = {key: keys.index(key) for key in keys}
        labels = sorted(set(first.values()))
        assert book.class_rows == labels
        assert book.class_ids[:60].tolist() == [labels.index(first[key]) for key in keys]

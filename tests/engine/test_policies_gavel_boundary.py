"""Gavel's rank-then-grant rule (engine.policies.gavel.priority) against the plain reference:
the full pair list of ``priority_pairs`` walked by ``greedy_grants`` (tests/engine/reference/).

Each shortcut (ranking only the pairs with a share, the zero-share pairs walked job by job,
rounds counted in the ranking walk, the active jobs kept from arrivals and completions, the
share and zero columns kept per row, the mid-round passes over the boundary's ranking) must
give exactly what the plain rule gives.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.policies.gavel import priority
from engine.policies.gavel.book import RoundBook
from engine.policies.gavel.priority import active_in_order
from engine.state import JobState
from tests.engine.reference.gavel_rounds import fits_of, greedy_grants, priority_pairs

TYPES = ["v100", "p100", "k80"]


def _job(index: int, tputs: list[float], gpus: int = 1) -> JobState:
    steps = {wt: t for wt, t in zip(TYPES, tputs, strict=False) if t > 0}
    return JobState(index, f"j{index}", 0.0, "t", gpus, 10.0, 1.0, steps, 1.0)


def _book(seed: int, n: int, num_types: int, aware: bool) -> tuple[RoundBook, list[int]]:
    """``n`` registered jobs (rows below 200, 1-4 GPUs, a few throughput rows), solved twice
    (some jobs only by the first solve, some by none), with few distinct shares (ties, tiny
    shares counted as 0), rounds received and rounds in the system (0: infinite priority)."""
    rng = np.random.default_rng(seed)
    book = RoundBook(TYPES[:num_types], np.full(num_types, 4.0), aware)
    rows = np.sort(rng.choice(200, n, replace=False)).tolist()
    tputs = rng.choice([0.0, 1.0, 2.0], (n, num_types)).tolist()
    jobs = [_job(row, tputs[i], int(rng.choice([1, 2, 4]))) for i, row in enumerate(rows)]
    book.register([job.index for job in jobs], jobs)
    for _ in range(2):
        solved = np.array([row for row in rows if rng.random() < 0.8], dtype=np.int64)
        shares = rng.choice([0.0, 0.0, 1e-10, 0.1, 0.2, 0.5], (solved.size, num_types))
        book.set_shares(solved, shares * fits_of(book, solved))
    for row in rows:
        book.in_system[row] = float(rng.choice([0.0, 1.0, 3.0]))
        for col in range(num_types):
            book.round_cells[row * num_types + col] = float(rng.choice([0.0, 0.5, 1.0]))
    return book, rows


@settings(max_examples=400, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(0, 40),
    num_types=st.integers(1, 3),
    aware=st.booleans(),
    work_conserving=st.booleans(),
    free=st.lists(st.integers(0, 12), min_size=3, max_size=3),
)
def test_boundary_is_the_pass_over_priority_pairs(
    seed: int, n: int, num_types: int, aware: bool, work_conserving: bool, free: list[int]
) -> None:
    """The boundary's grants and free GPUs are greedy_grants' over priority_pairs' list;
    counting the round adds one to each row."""
    book, rows = _book(seed, n, num_types, aware)
    indices = rows[::2] + rows[1::2][:3]  # jobs gone, and some back out of order
    indices.sort()
    pos, cols, sfs = priority_pairs(book, indices, work_conserving, aware)
    before = list(book.in_system)
    ranked_pos, ranked_cols = priority.ranked_pairs(book, indices, True)
    expected = [before[row] + (1.0 if row in indices else 0.0) for row in range(len(before))]
    assert book.in_system == expected
    left, expected_left = free[:num_types], free[:num_types]
    granted = greedy_grants(pos, cols, sfs, expected_left)
    got = priority.grant_in_order(book, indices, ranked_pos, ranked_cols, work_conserving, left)
    assert got == ([pos[i] for i in granted], [cols[i] for i in granted])
    assert left == expected_left


def test_boundary_by_hand() -> None:
    """Two V100s, one K80. Job a (2 GPUs) and b (1 GPU) have shares on the V100 only, c
    (1 GPU) none. b never ran there (infinite priority), a did: b first, then a does not fit;
    the zero-share pairs follow job by job: a@K80 (2 GPUs: no), c@V100 (1 left), done."""
    book = RoundBook(["v100", "k80"], np.array([2.0, 1.0]), True)
    jobs = [_job(0, [2.0, 1.0], 2), _job(1, [2.0, 1.0]), _job(2, [2.0, 1.0])]
    book.register([job.index for job in jobs], jobs)
    book.set_shares(np.array([0, 1]), np.array([[0.5, 0.0], [0.5, 0.0]]))
    book.in_system[0] = book.in_system[1] = 2.0
    book.round_cells[0] = 1.0  # a: 1 round of 2 on the V100
    ranked = priority.ranked_pairs(book, [0, 1, 2], False)
    assert ranked == ([1, 0], [0, 0])
    free = [2, 1]
    assert priority.grant_in_order(book, [0, 1, 2], *ranked, True, free) == ([1, 2], [0, 0])
    assert free == [0, 1]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 40), num_classes=st.integers(1, 6))
def test_share_and_zero_columns_follow_every_solve(seed: int, n: int, num_classes: int) -> None:
    """After class solutions (some jobs of a class with other columns) and per-job ones, each
    row's share and zero columns are its policy-order columns with and without a share."""
    rng = np.random.default_rng(seed)
    book, rows = _book(seed, n, 3, bool(seed % 2))
    labels = rng.integers(0, num_classes, n).tolist()
    for row, label in zip(rows, labels, strict=True):
        book.labels[row] = label
    present = sorted(set(labels))
    for _ in range(2):
        class_shares = rng.choice([0.0, 1e-10, 0.25, 0.5], (len(present), 3))
        book.set_class_shares(rows, present, class_shares)
        for row in rows:
            columns = book.fit_cols[row]
            shares = book.share_rows[row]
            assert book.share_cols[row] == tuple(c for c in columns if shares[c] > 0)
            assert book.zero_cols[row] == tuple(c for c in columns if not shares[c] > 0)


@settings(max_examples=200, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.integers(0, 4), st.lists(st.integers(0, 30), max_size=4), st.booleans()),
        max_size=12,
    )
)
def test_active_jobs_are_the_sorted_waiting_and_running(
    steps: list[tuple[int, list[int], bool]],
) -> None:
    """Boundary after boundary, with arrivals (some reported by mid-round calls, some not
    reported at all: the count tells), jobs finishing (some that arrived since the last
    boundary) and jobs moving between waiting and running: the kept list is active_in_order's."""
    active = priority.ActiveJobs()
    jobs: list[JobState] = []
    waiting: dict[int, JobState] = {}
    running: dict[int, JobState] = {}
    for arrivals, finishing, report in steps:
        new = [_job(len(jobs) + i, [1.0]) for i in range(arrivals)]
        jobs.extend(new)
        waiting.update({job.index: job for job in new})
        if report:  # else the engine did not say: the count must catch it
            active.add_arrivals(new[: len(new) // 2])  # a mid-round call's arrivals
            active.add_arrivals(new[len(new) // 2 :])
        for index in finishing:
            for pool in (waiting, running):
                if index in pool:
                    pool.pop(index).completion_s = 1.0
        for index in list(waiting)[::2]:  # some start, the others wait
            running[index] = waiting.pop(index)
        got = active.at_boundary(list(waiting.values()), list(running.values()))
        assert got == active_in_order(list(waiting.values()), list(running.values()))


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(0, 30),
    work_conserving=st.booleans(),
    passes=st.lists(st.lists(st.integers(0, 6), min_size=3, max_size=3), max_size=4),
)
def test_mid_round_passes_grant_as_the_full_list(
    seed: int, n: int, work_conserving: bool, passes: list[list[int]]
) -> None:
    """A round's mid-round passes (the boundary's ranking, the waiting jobs only) grant the
    same (job, type) pairs, pass after pass, as greedy_grants over priority_pairs' full list
    of the waiting jobs; jobs granted by a pass wait no more."""
    book, rows = _book(seed, n, 3, bool(seed % 2))
    rng = np.random.default_rng(seed)
    waiting = [rng.random() >= 0.4 for _ in rows]  # the others run
    ranked_pos, ranked_cols = priority.ranked_pairs(book, rows, False)
    pos, cols, sfs = priority_pairs(book, rows, work_conserving, bool(seed % 2))
    for free in passes:
        expected_free, left = list(free), list(free)
        keep = [i for i in range(len(pos)) if waiting[pos[i]]]
        granted = greedy_grants([pos[i] for i in keep], [cols[i] for i in keep],
                                [sfs[i] for i in keep], expected_free)  # fmt: skip
        expected = ([pos[keep[i]] for i in granted], [cols[keep[i]] for i in granted])
        got = priority.grant_in_order(
            book, rows, ranked_pos, ranked_cols, work_conserving, left, list(waiting)
        )
        assert got == expected
        assert left == expected_free
        for p in got[0]:
            waiting[p] = False  # started

"""Gavel's round bookkeeping and LP plumbing: the fast paths against their plain definitions.

The greedy pass, the priority order, the class-LP cache and the reused HiGHS instance are
shortcuts (issue 11); each must give exactly what the plain rule gives.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.allocation.grants import gang_grant
from engine.policies.gavel import priority
from engine.policies.gavel.book import RoundBook
from engine.policies.gavel.class_lp import ClassMaxMin
from engine.policies.gavel.lp import max_min_coefficients
from engine.policies.gavel.priority import grant_in_order, ranked_pairs
from engine.state import JobState
from tests.engine.reference.gavel_rounds import (
    fits_of,
    greedy_grants,
    lex_order,
    shares_of,
    solve_max_min,
)


def _plain_greedy(
    pos: list[int], cols: list[int], sfs: list[int], free: list[int]
) -> tuple[list[int], list[int]]:
    """Gavel's pass as written: every pair in order, while any GPU is free."""
    free, granted, taken = list(free), [], set()
    for i, (job, col, gpus) in enumerate(zip(pos, cols, sfs, strict=True)):
        if sum(free) <= 0:
            break
        if free[col] < gpus or job in taken:
            continue
        free[col] -= gpus
        taken.add(job)
        granted.append(i)
    return granted, free


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[list[int], list[int], list[int], list[int]]:
    num_types = draw(st.integers(1, 3))
    num_jobs = draw(st.integers(0, 25))
    sizes = [draw(st.sampled_from([1, 2, 4])) for _ in range(num_jobs)]
    pairs = draw(
        st.lists(
            st.tuples(st.integers(0, max(num_jobs - 1, 0)), st.integers(0, num_types - 1)),
            max_size=3 * num_jobs,
            unique=True,
        )
        if num_jobs
        else st.just([])
    )
    free = [draw(st.integers(0, 6)) for _ in range(num_types)]
    return [p for p, _ in pairs], [c for _, c in pairs], [sizes[p] for p, _ in pairs], free


@settings(max_examples=300, deadline=None)
@given(case=_pairs())
def test_greedy_grants_is_the_plain_pass(
    case: tuple[list[int], list[int], list[int], list[int]],
) -> None:
    """The reference pass: same grants and the same GPUs left as the loop over every pair,
    from numpy arrays."""
    pos, cols, sfs, free = case
    expected, expected_free = _plain_greedy(pos, cols, sfs, free)
    left = list(free)
    granted = greedy_grants(
        np.array(pos, dtype=int), np.array(cols, dtype=int), np.array(sfs, dtype=float), left
    )
    assert granted == expected
    assert left == expected_free


def test_greedy_grants_by_hand() -> None:
    """Two V100s (col 0), one K80 (col 1). Pairs: a@V100 (2 GPUs), b@V100 (1: none left),
    b@K80 (1), a@K80 (a already has GPUs), c@K80 (full, and nothing is free: stop)."""
    pos = np.array([0, 1, 1, 0, 2])
    cols = np.array([0, 0, 1, 1, 1])
    sfs = np.array([2.0, 1.0, 1.0, 1.0, 1.0])
    free = [2, 1]
    assert greedy_grants(pos, cols, sfs, free) == [0, 2]
    assert free == [0, 0]


def _book(
    rng: np.random.Generator, n: int, num_types: int, aware: bool = True
) -> tuple[RoundBook, np.ndarray]:
    """A book of ``n`` registered jobs (random rows below 200) with random shares, rounds
    received and rounds in the system (many ties: few distinct values)."""
    types = ["v100", "p100", "k80"][:num_types]
    book = RoundBook(types, np.full(num_types, 4.0), aware)
    rows = np.sort(rng.choice(200, n, replace=False))
    tputs = rng.choice([0.0, 1.0, 2.0, 3.0], (n, num_types))
    jobs = [
        JobState(int(row), f"j{row}", 0.0, "t", 1, 10.0, 1.0,
                 {wt: float(tputs[i, k]) for k, wt in enumerate(types) if tputs[i, k] > 0}, 1.0)
        for i, row in enumerate(rows.tolist())
    ]  # fmt: skip
    book.register([job.index for job in jobs], jobs)
    shares = rng.choice([0.0, 0.0, 0.1, 0.2, 0.5], (n, num_types))
    book.set_shares(rows, shares * fits_of(book, rows))
    for row in rows.tolist():
        book.in_system[row] = float(rng.choice([0.0, 1.0, 3.0]))
        for col in range(num_types):
            book.round_cells[row * num_types + col] = float(rng.choice([0.0, 0.5, 1.0, 2.0]))
    return book, rows


def _plain_order(
    book: RoundBook, rows: np.ndarray, work_conserving: bool, aware: bool
) -> list[tuple[int, int]]:
    """The priority order by its definition: one sort over every pair with the full key."""
    keys = []
    shares, fits, num_types = shares_of(book, rows), fits_of(book, rows), book.num_types
    for p, row in enumerate(rows.tolist()):
        for col in range(num_types):
            share = shares[p, col]
            if not fits[p, col] or (share <= 0 and not work_conserving):
                continue
            present = book.in_system[row]
            held = book.round_cells[row * num_types + col]
            received = held / present if present > 0 else 0.0
            priority = share / received if received > 0 else (np.inf if share > 0 else 0.0)
            tie = -book.throughput_rows[row][col] if aware else 0.0
            keys.append(((-priority, -share, p, tie, col), (p, col)))
    return [pair for _, pair in sorted(keys)]


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(0, 60),
    num_types=st.integers(1, 3),
    aware=st.booleans(),
    work_conserving=st.booleans(),
)
def test_priority_order_is_the_full_sort(
    seed: int, n: int, num_types: int, aware: bool, work_conserving: bool
) -> None:
    """The ranked pairs (stable float sort, then the runs of equal priority by share), then
    (work conserving) each job's zero-share columns in arrival order, are the one sort over
    every pair with the full key (priority, share, arrival, faster type)."""
    book, rows = _book(np.random.default_rng(seed), n, num_types, aware)
    indices = rows.tolist()
    pos, cols = ranked_pairs(book, indices, False)
    got = list(zip(pos, cols, strict=True))
    if work_conserving:
        got += [(p, col) for p, row in enumerate(indices) for col in book.zero_cols[row]]
    assert got == _plain_order(book, rows, work_conserving, aware)


@settings(max_examples=300, deadline=None)
@given(
    keys=st.lists(
        st.tuples(
            st.sampled_from([-np.inf, -3.0, -2.0, -0.5, -1e-12]),
            st.sampled_from([-1.0, -0.5, -0.25]),
        ),
        max_size=80,
    )
)
def test_lex_order_is_numpy_lexsort(keys: list[tuple[float, float]]) -> None:
    """The reference's float sort plus run re-sort = lexsort by (primary, secondary, index)."""
    primary, secondary = [k[0] for k in keys], [k[1] for k in keys]
    expected = np.lexsort((np.array(secondary), np.array(primary))).tolist() if keys else []
    assert lex_order(primary, secondary) == expected


def _lp_case(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    tput = rng.uniform(0.5, 4.0, (12, 3))
    tput[rng.random((12, 3)) < 0.2] = 0.0
    sfs = rng.choice([1.0, 2.0], 12)
    capacity = np.array([6.0, 6.0, 4.0])
    return max_min_coefficients(tput, sfs, np.ones(12), capacity, True), sfs, capacity


def test_reused_highs_instance_gives_what_a_fresh_one_gives() -> None:
    """A solver that has just solved another LP returns the fresh solver's answer, bit for bit
    (each call passes a whole model; no basis carries over). The two LPs' classes are distinct
    labels of one table, as in a run (a class's row never changes)."""
    (first, first_sfs, capacity), (second, second_sfs, _) = _lp_case(1), _lp_case(2)
    fresh = solve_max_min(second, second_sfs, capacity, class_ids=np.arange(12))
    table, sfs = np.vstack([first, second]), np.concatenate([first_sfs, second_sfs])
    class_lp = ClassMaxMin(capacity, 1e-3)
    class_lp.shares(table, sfs, np.repeat([2, 0], 12))
    present, shares = class_lp.shares(table, sfs, np.repeat([0, 1], 12))
    assert np.array_equal(present, np.arange(12, 24))
    assert np.array_equal(shares, fresh)


def test_class_lp_remembers_solutions_by_class_counts() -> None:
    """Class counts seen before are not solved again; the answer is the same array, and it
    equals the per-job LP's shares of those classes."""
    coefficients, sfs, capacity = _lp_case(3)
    class_lp = ClassMaxMin(capacity, 1e-3)
    counts = np.array([2, 0, 1, 3, 0, 1, 1, 0, 2, 1, 0, 1])
    present, shares = class_lp.shares(coefficients, sfs, counts)
    calls: list[int] = []
    real = class_lp.solver.solve

    def counting(*args):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args)

    class_lp.solver.solve = counting  # type: ignore[method-assign]
    again = class_lp.shares(coefficients, sfs, counts.copy())
    assert not calls and again[1] is shares
    assert np.array_equal(present, np.flatnonzero(counts))
    jobs = np.repeat(np.arange(12), counts)
    per_job = solve_max_min(coefficients[jobs], sfs[jobs], capacity, class_ids=jobs)
    assert np.array_equal(per_job, shares[np.searchsorted(present, jobs)])


def test_warm_started_solves_reach_the_cold_optimum() -> None:
    """A run of class LPs whose classes come and go: every warm-started solve (from the last
    optimal basis) has the cold solve's objective value and meets every constraint."""
    rng = np.random.default_rng(9)
    tput = rng.uniform(0.5, 4.0, (20, 3))
    tput[rng.random((20, 3)) < 0.2] = 0.0
    sfs = rng.choice([1.0, 2.0, 4.0], 20)
    capacity = np.array([8.0, 8.0, 4.0])
    coefficients = max_min_coefficients(tput, sfs, np.ones(20), capacity, True)
    warm, cold = ClassMaxMin(capacity, 1e-3, warm_start=True), ClassMaxMin(capacity, 1e-3)
    for _ in range(40):
        counts = rng.integers(0, 4, 20) * (rng.random(20) < 0.6)
        if not counts.any():
            continue
        present, shares = warm.shares(coefficients, sfs, counts)
        _, reference = cold.shares(coefficients, sfs, counts)
        c, n = coefficients[present], counts[present]
        value = _class_objective(shares, c, n)
        assert value == pytest.approx(_class_objective(reference, c, n), abs=1e-7)
        assert np.all(shares.sum(axis=1) <= 1 + 1e-9)
        assert np.all((n * sfs[present]) @ shares <= capacity + 1e-9)
        assert np.all(shares[c == 0] == 0)


def _class_objective(shares: np.ndarray, coefficients: np.ndarray, counts: np.ndarray) -> float:
    """The class LP's objective: the fairness level plus the efficiency term (epsilon 1e-3)."""
    live = coefficients.max(axis=1) > 0
    level = (coefficients * shares).sum(axis=1)[live].min()
    weight = 1e-3 / counts[live].sum()
    return float(level + weight * (counts[:, None] * coefficients * shares).sum())


@settings(max_examples=300, deadline=None)
@given(case=_pairs(), data=st.data())
def test_grant_in_order_is_the_plain_pass_over_eligible_jobs(
    case: tuple[list[int], list[int], list[int], list[int]], data: st.DataObject
) -> None:
    """The engine's greedy pass over pairs given in order (no zero-share pass) grants what the
    loop over every pair of the eligible jobs grants (the mid-round rule) and leaves the same
    GPUs free."""
    pos, cols, sfs, free = case
    size_of = dict(zip(pos, sfs, strict=True))
    num_jobs = max(pos, default=-1) + 1
    types = ["v100", "p100", "k80"]
    jobs = [
        JobState(2 * i, f"j{i}", 0.0, "t", size_of.get(i, 1), 10.0, 1.0, dict.fromkeys(types, 1.0),
                 1.0)
        for i in range(num_jobs)
    ]  # fmt: skip
    book = RoundBook(types, np.full(3, 8.0), True)
    indices = [job.index for job in jobs]
    book.register(indices, jobs)
    eligible = [data.draw(st.booleans()) for _ in jobs]
    keep = [i for i in range(len(pos)) if eligible[pos[i]]]
    expected_free = list(free)
    expected = greedy_grants([pos[i] for i in keep], [cols[i] for i in keep],
                             [sfs[i] for i in keep], expected_free)  # fmt: skip
    granted = grant_in_order(book, indices, pos, cols, False, free, eligible)
    assert granted == ([pos[keep[i]] for i in expected], [cols[keep[i]] for i in expected])
    assert free == expected_free


@settings(max_examples=100, deadline=None)
@given(
    active=st.lists(st.integers(0, 900), unique=True, max_size=80),
    cut=st.integers(0, 80),
)
def test_active_in_order_sorts_by_index(active: list[int], cut: int) -> None:
    """The round's active jobs (waiting and running, interleaved indices, any order) by
    index, as the engine numbers them in arrival order; the indices list matches."""
    waiting, running = active[:cut], active[cut:]
    jobs = {i: JobState(i, f"j{i}", 0.0, "t", 1, 10.0, 1.0, {}, 1.0) for i in waiting + running}
    ordered, indices = priority.active_in_order(
        [jobs[i] for i in waiting], [jobs[i] for i in running]
    )
    assert indices == sorted(waiting + running)
    assert [job.index for job in ordered] == indices
    assert all(job is jobs[job.index] for job in ordered)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 40), num_classes=st.integers(1, 6))
def test_class_shares_are_the_per_job_scatter(seed: int, n: int, num_classes: int) -> None:
    """Storing a class solution by class row gives every job the shares the per-job scatter
    (``class_shares[searchsorted(present, labels)]``, then ``set_shares``) gives, tiny shares
    zeroed; ``any_share`` is numpy's ``any`` over the stored rows."""
    rng = np.random.default_rng(seed)
    book, rows = _book(rng, n, 3)
    labels = rng.integers(0, num_classes, n)
    for row, label in zip(rows.tolist(), labels.tolist(), strict=True):
        book.labels[row] = label
    present = np.unique(labels)
    class_shares = rng.choice([0.0, 1e-10, 0.25, 0.5], (present.size, 3))
    reference, _ = _book(np.random.default_rng(seed), n, 3)
    reference.set_shares(rows, class_shares[np.searchsorted(present, labels)])
    book.set_class_shares(rows.tolist(), present.tolist(), class_shares)
    assert np.array_equal(shares_of(book, rows), shares_of(reference, rows))
    assert book.any_share(rows.tolist()) == bool(shares_of(reference, rows).any())


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.sampled_from([1, 2, 4]), min_size=1, max_size=12),
    data=st.data(),
    fraction=st.sampled_from([1.0, 0.5, 0.125]),
)
def test_grant_each_adds_the_fraction_to_the_granted_cells(
    sizes: list[int], data: st.DataObject, fraction: float
) -> None:
    """Each granted pair adds ``fraction`` to its job's cell (job index * K + type column) and
    nothing else changes; equal (type, GPUs) grants are one object."""
    types = ["v100", "p100", "k80"]
    jobs = [
        JobState(2 * i + 1, f"j{i}", 0.0, "t", s, 10.0, 1.0, {}, 1.0) for i, s in enumerate(sizes)
    ]
    pos = list(range(len(jobs)))
    cols = [data.draw(st.integers(0, 2)) for _ in jobs]
    granted = data.draw(st.lists(st.sampled_from(pos), unique=True))
    cells = [0.5] * (3 * (2 * len(jobs) + 2))
    expected = list(cells)
    for i in granted:
        expected[jobs[i].index * 3 + cols[i]] += fraction
    granted_cols = [cols[i] for i in granted]
    table = priority.GrantTable(types)
    allocation = priority.grant_each(jobs, granted, granted_cols, fraction, cells, table)
    assert cells == expected
    assert list(allocation) == [jobs[i].index for i in granted]
    for i in granted:
        grant = allocation[jobs[i].index]
        assert (grant.worker_type, grant.num_gpus) == (types[cols[i]], sizes[i])
        assert grant is table.of(cols[i], sizes[i]) is gang_grant(types[cols[i]], sizes[i])

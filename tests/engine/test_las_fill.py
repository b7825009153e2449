"""Tiresias LAS's fill (:mod:`engine.policies.las.fill`) against the plain fill it replaced.

The plain fill (below, as it was before issue 11's session 20) walks the running and waiting
jobs merged in key order with a fresh dict of free GPUs per worker type and builds the
allocation from scratch; the fill edits the held grants of the running jobs and keeps free GPUs
in type slots. For random clusters, running sets and queues, both must grant the same jobs the
same grants, and the changed entries (the ones the engine acts on) must come in the same order.
The waiting books come by shape (GPU count and fitting types, as ``WaitingQueues`` keeps them),
and the fill drops a shape at its first miss (issue 37); the plain fill tries every book.
"""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import given
from hypothesis import strategies as st

from engine.allocation.grants import Allocation, Grant, gang_grant, keeps_grant
from engine.cluster import Placement
from engine.policies.agnostic import most_free_type
from engine.policies.las.books import Book, TypeSlot
from engine.policies.las.fill import fill_admit, fill_round
from engine.policies.las.sorted_books import SortedBooks
from engine.state import JobState

TYPES = ("v100", "p100", "k80")


def _plain_fill(ordered: Iterator[Book], free: dict[str, int]) -> tuple[Allocation, list[Book]]:
    """The allocation built afresh in key order, and the waiting books it starts."""
    allocation: Allocation = {}
    started: list[Book] = []
    total_free = sum(free.values())
    for book in ordered:
        if total_free <= 0:
            break
        job = book.job
        placement = job.placement
        if placement is not None and free[placement.worker_type] >= job.scale_factor:
            worker_type = placement.worker_type
            grant = job.grant or gang_grant(worker_type, job.scale_factor)
        else:
            found = most_free_type(job, free)
            if found is None:
                continue
            worker_type, grant = found, gang_grant(found, job.scale_factor)
            if placement is None:
                started.append(book)
        allocation[job.index] = grant
        free[worker_type] -= job.scale_factor
        total_free -= job.scale_factor
    return allocation, started


def _job(index: int, gpus: int, rates: tuple[float, ...]) -> JobState:
    steps_per_s = {wt: rate for wt, rate in zip(TYPES, rates, strict=True)}
    return JobState(index, f"j{index}", 0.0, "A3C", gpus, 1e6, 1.0, steps_per_s, 1e8)


@st.composite
def _cases(draw: st.DrawFn) -> tuple[dict[str, int], list[Book], list[SortedBooks]]:
    """A cluster, its running books (placed within capacity, sorted by key) and the waiting
    books by shape (each by key ascending); keys are unique."""
    capacity = {wt: draw(st.integers(0, 12)) for wt in TYPES}
    used = dict.fromkeys(TYPES, 0)
    num_jobs = draw(st.integers(0, 24))
    keys = draw(st.permutations(range(2 * num_jobs)))[:num_jobs]
    running: list[Book] = []
    lists: dict[tuple[int, tuple[float, ...]], list[Book]] = {}
    for index in range(num_jobs):
        gpus = draw(st.sampled_from([1, 2, 4, 8]))
        rates = tuple(draw(st.sampled_from([0.0, 1.0])) for _ in TYPES)
        book = Book(_job(index, gpus, rates))
        book.key = keys[index]
        fits = [wt for wt, r in zip(TYPES, rates, strict=True) if r > 0]
        fits = [wt for wt in fits if capacity[wt] - used[wt] >= gpus]
        if fits and draw(st.booleans()):
            worker_type = draw(st.sampled_from(fits))
            used[worker_type] += gpus
            book.job.placement = Placement(worker_type, (0,), (gpus,), ("r0",), "node", gpus)
            book.job.grant = gang_grant(worker_type, gpus)
            running.append(book)
        else:
            lists.setdefault((gpus, rates), []).append(book)
    running.sort(key=lambda book: book.key)
    queues = [SortedBooks() for _ in lists]
    for waiting, books in zip(queues, lists.values(), strict=True):
        waiting.refill(sorted(books, key=lambda book: book.key))
    return capacity, running, queues


def _slots(capacity: dict[str, int], running: list[Book]) -> list[TypeSlot]:
    slots = [TypeSlot(wt, gpus) for wt, gpus in capacity.items()]
    slot_of = {slot.worker_type: slot for slot in slots}
    for book in running:
        book.slot = slot_of[book.job.worker_type]
    return slots


def _pop_started(queues: list[SortedBooks], started: list[Book]) -> None:
    """Removes the started books from their queues, as WaitingQueues.start does (each must be
    there), and checks the rest keep their order."""
    queue_of = {book.index: queue for queue, waiting in enumerate(queues) for book in waiting}
    left = [[book for book in waiting if book not in started] for waiting in queues]
    for book in started:
        queues[queue_of[book.index]].remove(book)
    assert [list(waiting) for waiting in queues] == left


def _changed(allocation: Allocation) -> list[tuple[int, Grant]]:
    return [(i, g) for i, g in allocation.items() if not keeps_grant(g, _JOBS[i].grant)]


_JOBS: dict[int, JobState] = {}


@given(case=_cases())
def test_round_fill_grants_as_the_plain_fill(
    case: tuple[dict[str, int], list[Book], list[SortedBooks]],
) -> None:
    capacity, running, queues = case
    _JOBS.clear()
    waiting = [book for queue in queues for book in queue]
    _JOBS.update({b.index: b.job for b in [*running, *waiting]})
    merged = sorted([*running, *waiting], key=lambda book: book.key)
    expected, expected_started = _plain_fill(iter(merged), dict(capacity))

    held: Allocation = {book.index: book.job.grant for book in running}  # type: ignore[misc]
    granted: list[Book] = []
    started: list[Book] = []
    preempted: list[Book] = []
    fill_round(running, queues, _slots(capacity, running), held, (granted, started, preempted))

    assert held == expected
    assert _changed(held) == _changed(expected)
    assert granted == [book for book in merged if book.index in expected]
    assert started == expected_started
    assert preempted == [book for book in running if book.index not in expected]
    _pop_started(queues, started)


@given(case=_cases(), taken=st.lists(st.integers(0, 12), min_size=3, max_size=3))
def test_admit_fill_grants_as_the_plain_fill(
    case: tuple[dict[str, int], list[Book], list[SortedBooks]], taken: list[int]
) -> None:
    capacity, _, queues = case
    free = {wt: max(0, gpus - t) for (wt, gpus), t in zip(capacity.items(), taken, strict=True)}
    waiting = sorted([book for queue in queues for book in queue], key=lambda book: book.key)
    expected, expected_started = _plain_fill(iter(waiting), dict(free))

    slots = _slots(capacity, [])
    for slot in slots:
        slot.free = free[slot.worker_type]
    held: Allocation = {}
    started: list[Book] = []
    allocation = fill_admit(queues, slots, held, started)

    assert list(allocation.items()) == list(expected.items())
    assert held == expected
    assert started == expected_started
    _pop_started(queues, started)

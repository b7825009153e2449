"""Tiresias LAS's fill (:mod:`engine.policies.las`): GPUs granted to jobs in queue-key order.

At a round boundary the running jobs (sorted by key) and the waiting jobs (in their queues)
are merged in key order and granted while GPUs remain; mid-round only waiting jobs are granted,
onto the free GPUs. A job that finds no room is skipped and later jobs may pass it. A running
job keeps its worker type when it has room; others take the fitting type with the most free
GPUs (heterogeneity-agnostic, as Tiresias; :func:`engine.policies.agnostic.most_free_type`'s
rule, ties to the first type in the cluster's order).

Issue 11's speed work (full Philly trace: ~47,500 round boundaries, ~80 running jobs each)
keeps what does not change between decisions instead of rebuilding it: the free GPUs of each
worker type in a :class:`~engine.policies.las.books.TypeSlot` (a native int under mypyc, no
dict of boxed counts), each book's fitting slots, and the policy's ``held`` allocation (the
grants of the running jobs), which the fill edits: a preempted or migrated job's entry leaves,
a started or migrated job's grant is appended. The policy returns ``held`` itself (the engine
reads an allocation before it asks again, :mod:`engine.policies.base`): its changed entries are
the new grants in key order, as in an allocation built afresh, and the kept ones the very grant
objects the jobs run under, which the engine neither re-checks nor moves.
"""

from __future__ import annotations

from engine.allocation.grants import Allocation, Grant
from engine.policies.las.books import Book, TypeSlot
from engine.policies.las.sorted_books import KeyWalk, SortedBooks


def fill_round(
    running: list[Book],
    queues: list[SortedBooks],
    slots: list[TypeSlot],
    held: Allocation,
    lists: tuple[list[Book], list[Book], list[Book]],
) -> None:
    """Round boundary: every GPU granted in key order to the running books (sorted by key)
    and the waiting ones (``queues``: the waiting books by shape, each by key ascending, see
    :mod:`engine.policies.las.queues`). ``held`` (job index -> grant) holds the running books'
    grants and is edited into the new allocation. Appends to ``lists`` (granted, started,
    preempted) the books granted (in key order), the waiting ones among them, and the running
    ones left without GPUs (in key order)."""
    granted, started, preempted = lists
    total_free = 0
    for slot in slots:
        slot.free = slot.capacity
        total_free += slot.capacity
    at, end = 0, len(running)
    walk = KeyWalk(queues)
    book = walk.next()
    while book is not None:
        key = book.key
        while at < end and total_free > 0 and running[at].key < key:
            total_free = _keep_running(running[at], slots, held, granted, preempted, total_free)
            at += 1
        if total_free <= 0:
            break
        found = best_slot(book, slots)
        if found is None:  # nor will any later book of its shape: free GPUs only shrink
            walk.drop_last()
        else:
            total_free = _start_waiting(book, found, held, granted, started, total_free)
        book = walk.next()
    while at < end:
        total_free = _keep_running(running[at], slots, held, granted, preempted, total_free)
        at += 1


def fill_admit(
    queues: list[SortedBooks], slots: list[TypeSlot], held: Allocation, started: list[Book]
) -> Allocation:
    """Mid-round: the waiting books (``queues``: by shape, each by key ascending) granted in
    key order onto the slots' free GPUs; returns their grants (also added to ``held``) and
    appends the books to ``started``."""
    allocation: Allocation = {}
    total_free = 0
    for slot in slots:
        total_free += slot.free
    walk = KeyWalk(queues)
    book = walk.next()
    while book is not None and total_free > 0:
        found = best_slot(book, slots)
        if found is None:  # nor will any later book of its shape
            walk.drop_last()
        else:
            grant = found.gang(book.gpus)
            allocation[book.index] = grant
            held[book.index] = grant
            book.slot = found
            started.append(book)
            found.free = found.free - book.gpus
            total_free -= book.gpus
        book = walk.next()
    return allocation


def _keep_running(
    book: Book,
    slots: list[TypeSlot],
    held: Allocation,
    granted: list[Book],
    preempted: list[Book],
    total_free: int,
) -> int:
    """A running book in the fill: keeps its grant when its worker type has room, else moves
    to the fitting type with the most free GPUs, else is preempted. Returns ``total_free``
    less its GPUs if granted."""
    gpus, own = book.gpus, book.slot
    if total_free > 0 and own is not None and own.free >= gpus:  # its grant, already in held
        own.free = own.free - gpus
        granted.append(book)
        return total_free - gpus
    return _move_running(book, slots, held, granted, preempted, total_free)


def _move_running(
    book: Book,
    slots: list[TypeSlot],
    held: Allocation,
    granted: list[Book],
    preempted: list[Book],
    total_free: int,
) -> int:
    """A running book without room on its own type: moved, or preempted (:func:`_keep_running`)."""
    gpus = book.gpus
    if total_free > 0:
        found = best_slot(book, slots)
        if found is not None:  # migrated: its entry moves to the end, among the new grants
            del held[book.index]
            held[book.index] = found.gang(gpus)
            book.slot = found
            found.free = found.free - gpus
            granted.append(book)
            return total_free - gpus
    del held[book.index]
    preempted.append(book)
    return total_free


def _start_waiting(
    book: Book,
    slot: TypeSlot,
    held: Allocation,
    granted: list[Book],
    started: list[Book],
    total_free: int,
) -> int:
    """A waiting book in the fill granted ``slot`` (its :func:`best_slot`). Returns
    ``total_free`` less its GPUs."""
    gpus = book.gpus
    held[book.index] = slot.gang(gpus)
    book.slot = slot
    slot.free = slot.free - gpus
    granted.append(book)
    started.append(book)
    return total_free - gpus


def best_slot(book: Book, slots: list[TypeSlot]) -> TypeSlot | None:
    """The fitting slot with the most free GPUs that holds the book's gang, or None (ties: the
    first in ``slots``' order); the fitting slots (types the job has a positive throughput on)
    are found once per book."""
    fitting = book.fitting
    if fitting is None:
        rates = book.job.steps_per_s
        fitting = [slot for slot in slots if rates.get(slot.worker_type, 0.0) > 0]
        book.fitting = fitting
    best: TypeSlot | None = None
    best_free = book.gpus - 1
    for slot in fitting:
        free = slot.free
        if free > best_free:
            best, best_free = slot, free
    return best


def held_grants(books: list[Book], slot_of: dict[str, TypeSlot]) -> dict[int, Grant]:
    """The running books' grants as the engine holds them (job index -> grant), each book's
    slot set to the worker type it runs on (the running jobs looked up afresh)."""
    held: dict[int, Grant] = {}
    for book in books:
        grant = book.job.grant
        assert grant is not None, "the engine gives every running job its grant"
        held[book.index] = grant
        book.slot = slot_of[grant.worker_type]
    return held

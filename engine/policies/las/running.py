"""Tiresias LAS's running jobs (:mod:`engine.policies.las.policy`): their books in key order and
their grants, carried from one decision to the next.

Issue 11's speed work (full Philly trace: ~47,500 round boundaries, ~80 running jobs each) keeps
three things instead of recomputing them at every boundary: each running job's key with a time
before which its service cannot cross the next threshold (:func:`~engine.policies.las.keys.
running_key`), recomputed exactly after it; the running books' key order, into which only the
books whose key changed or breaks the order are merged (a sort with a key function calls out
per book); and the grants the engine holds (``held``), which the fill edits into the next
allocation (:mod:`engine.policies.las.fill`). Issue 37: the jobs started mid-round and the books
whose key moved are merged into the order once per round boundary (sorted among themselves),
not bisected into it one by one (a list insertion shifts every running book behind it, a cost
that grows with the running jobs). ``tests/engine/test_las_running_keys.py`` checks the
schedule against recomputing everything afresh (``keep_order`` off, no margin).

Compiled with mypyc with :mod:`engine.policies.las.policy` (:mod:`engine.native`).
"""

from __future__ import annotations

from collections.abc import Collection

from engine.allocation.grants import Grant
from engine.policies.las.books import Book, TypeSlot, book_key
from engine.policies.las.fill import held_grants
from engine.policies.las.keys import KEY_BITS, running_key
from engine.policies.las.queues import WaitingQueues
from engine.state import JobState


class RunningBooks:
    """The running jobs as of the last decision: ``books`` in key order (the last round
    boundary's grants, which the fill makes in key order), ``started`` (the jobs started
    mid-round since, with their waiting keys) and ``held`` (job index -> grant).

    Args:
        by_index: every arrived job's book by job index (the policy's, shared).
        queues: the waiting queues (their thresholds; told when a running job changes queues).
        keep_order: carry the order from the last decision (off: look up and sort afresh).
        margin_gpu_s: service short of a threshold at which a cached key is recomputed.
    """

    def __init__(
        self,
        by_index: dict[int, Book],
        queues: WaitingQueues,
        keep_order: bool,
        margin_gpu_s: float,
    ) -> None:
        self.by_index = by_index
        self.queues = queues
        self.keep_order = keep_order
        self.margin_gpu_s = margin_gpu_s
        self.books: list[Book] = []
        self.started: list[Book] = []
        self.held: dict[int, Grant] = {}

    def in_order(
        self, running: Collection[JobState], now_s: float, slot_of: dict[str, TypeSlot]
    ) -> list[Book]:
        """The books of the engine's ``running`` jobs, sorted by their keys at ``now_s``.

        They are the last decision's books still placed (a completed job has left: the engine
        clears its placement), checked against the engine's count of running jobs; else every
        running job's book is looked up, its grant read into ``held`` (its slot from
        ``slot_of``) and the books sorted.
        """
        if self.keep_order:
            in_order, moved = self._carried_in_order(now_s)
            if len(in_order) + len(moved) == len(running):
                moved.sort(key=book_key)
                return merged_by_key(in_order, moved)
        self.started = []
        by_index = self.by_index
        books = [by_index[job.index] for job in running]
        self.held = held_grants(books, slot_of)
        for book in books:
            if now_s >= book.until_s:
                self._rekey(book, now_s)
        books.sort(key=book_key)
        return books

    def add_started(self, started: list[Book]) -> None:
        """Jobs started mid-round, with their waiting keys (which mostly stay their running
        keys): merged into the order at the next round boundary."""
        self.started.extend(started)

    def stop(self, stopped: list[Book]) -> None:
        """Jobs a failed node stopped (engine.faults) leave, with their grants."""
        held = self.held
        for book in stopped:
            held.pop(book.index, None)
        gone = {book.index for book in stopped}
        self.books = [book for book in self.books if book.index not in gone]
        self.started = [book for book in self.started if book.index not in gone]

    def _carried_in_order(self, now_s: float) -> tuple[list[Book], list[Book]]:
        """The last decision's books still placed, keys brought up to date: those in the
        carried order, and those whose key changed or breaks it. The grants of the books no
        longer placed leave ``held``. The books are walked in key order: ``books`` merged with
        ``started`` (sorted), which empties."""
        books = self.books
        if self.started:
            self.started.sort(key=book_key)
            books = merged_by_key(books, self.started)
            self.started = []
        held, previous = self.held, -1
        in_order: list[Book] = []
        moved: list[Book] = []
        for book in books:
            if book.job.placement is None:  # completed (or never placed): its grant is gone
                held.pop(book.index, None)
                continue
            key = book.key
            if now_s >= book.until_s:
                self._rekey(book, now_s)
            if book.key != key or key < previous:
                moved.append(book)
            else:
                in_order.append(book)
                previous = key
        return in_order, moved

    def _rekey(self, book: Book, now_s: float) -> None:
        """The book's key and until_s brought up to ``now_s``; the queues are told when it
        entered another queue."""
        key, queues = book.key, self.queues
        book.key, book.until_s = running_key(
            queues.thresholds, book.job, book.offset_gpu_s, now_s, self.margin_gpu_s, book.order
        )
        if book.key >> KEY_BITS != key >> KEY_BITS:
            queues.moved(book)


def merged_by_key(first: list[Book], second: list[Book]) -> list[Book]:
    """The books of two lists sorted by key (unique keys) in one list sorted by key."""
    merged: list[Book] = []
    at, end = 0, len(second)
    for book in first:
        key = book.key
        while at < end and second[at].key < key:
            merged.append(second[at])
            at += 1
        merged.append(book)
    while at < end:
        merged.append(second[at])
        at += 1
    return merged

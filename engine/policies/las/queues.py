"""Tiresias LAS's waiting jobs (:mod:`engine.policies.las.policy`): one sorted list of books per
queue.

Each queue is ordered by key (:mod:`engine.policies.las.keys`) ascending: the jobs served first
come first; arrivals, preempted jobs and promotions land anywhere in a queue, so each is a
:class:`~engine.policies.las.sorted_books.SortedBooks` (a list of sorted blocks: a plain list
shifts every book behind the insertion point, a cost that grows with the queue, issue 37). A
waiting job's service is frozen, so its key changes only on promotion or, under ``requeue``,
when it moves to the back of its queue.

Compiled with mypyc with :mod:`engine.policies.las.policy` (:mod:`engine.native`).
"""

from __future__ import annotations

import math

from engine.policies.las.books import Book
from engine.policies.las.keys import KEY_BITS, queue_key
from engine.policies.las.sorted_books import SortedBooks


class WaitingQueues:
    """The waiting books by queue (``lists[q]``, key ascending), the requeue stamps, and
    whether a job changed queues since the last full decision (``requeued``).

    Args:
        thresholds: the queue thresholds in GPU-seconds, increasing (``len + 1`` queues).
        requeue: a job enters at the back of a queue when it arrives, is demoted or promoted
            into it, and :meth:`requeue_all` moves every waiting job to the back
            (:class:`~engine.policies.las.policy.LasParams`); off, a queue is FIFO by arrival.
    """

    def __init__(self, thresholds: tuple[float, ...], requeue: bool) -> None:
        self.thresholds = thresholds
        self.requeue = requeue
        self.lists: list[SortedBooks] = [SortedBooks() for _ in range(len(thresholds) + 1)]
        self.requeued = False
        self._next_order = 0  # the next requeue stamp (under requeue)

    def arrive(self, book: Book, now_s: float) -> None:
        """An arrived job's book into queue 0 (at its back under ``requeue``)."""
        if self.requeue:
            book.order = self._stamp()
        self.enqueue(book, now_s)

    def enqueue(self, book: Book, now_s: float) -> None:
        """The book into the queue of its service at ``now_s``, by its order."""
        book.key = key = queue_key(self.thresholds, book.job, book.offset_gpu_s, now_s, book.order)
        self.lists[key >> KEY_BITS].add(book)

    def moved(self, book: Book) -> None:
        """A running book whose key entered another queue: noted in ``requeued``; under
        ``requeue`` it enters at the back (a new stamp)."""
        self.requeued = True
        if self.requeue:
            self._to_back(book)

    def requeue_all(self) -> None:
        """``requeue``: every waiting job to the back of its queue, their order kept (new
        stamps in key order; each queue is refilled, as its keys changed)."""
        for waiting in self.lists:
            books = list(waiting)
            for book in books:
                self._to_back(book)
            waiting.refill(books)

    def promote(self, book: Book) -> None:
        """A starved waiting book out of its queue and into queue 0 (at its back under
        ``requeue``): it holds no GPUs and its service counts afresh (attained - offset = 0,
        below every threshold; :meth:`enqueue` would agree)."""
        self.lists[book.key >> KEY_BITS].remove(book)
        self.requeued = True
        if self.requeue:
            book.order = self._stamp()
        book.key = book.order
        self.lists[0].add(book)

    def start(self, started: list[Book], now_s: float) -> None:
        """The books an allocation starts leave their queues."""
        lists = self.lists
        for book in started:
            lists[book.key >> KEY_BITS].remove(book)
            book.run_start_s = now_s
            book.since_s = math.nan
            book.until_s = -math.inf  # its key is computed at the next round boundary

    def _to_back(self, book: Book) -> None:
        book.order = self._stamp()
        book.key = ((book.key >> KEY_BITS) << KEY_BITS) | book.order

    def _stamp(self) -> int:
        """The next requeue stamp: later than every order given so far."""
        order = self._next_order
        self._next_order = order + 1
        return order

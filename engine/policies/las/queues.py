"""Tiresias LAS's waiting jobs (:mod:`engine.policies.las.policy`): sorted lists of books, one
per shape.

The waiting jobs are served by key (:mod:`engine.policies.las.keys`: queue, then place in it)
ascending. They are kept by shape, the job's GPU count and the worker types it has a throughput
on, each shape's books by key (a :class:`~engine.policies.las.sorted_books.SortedBooks`: a list
of sorted blocks, as arrivals, preempted jobs and promotions land anywhere in it); the fill reads
the shapes merged in key order (:class:`~engine.policies.las.sorted_books.KeyWalk`). Issue 37:
on a crowded cluster the head of the queue fills with large jobs that find no room while small
ones pass them; one queue made the fill try each of those at every decision (a walk that grew
with the queue), by shape it drops the shape at its first miss (a book of the same shape cannot
fit either). A waiting job's service is frozen, so its key changes only on promotion or, under
``requeue``, when it moves to the back of its queue.

Compiled with mypyc with :mod:`engine.policies.las.policy` (:mod:`engine.native`).
"""

from __future__ import annotations

import math

from engine.policies.las.books import Book
from engine.policies.las.keys import KEY_BITS, queue_key
from engine.policies.las.sorted_books import KeyWalk, SortedBooks


class WaitingQueues:
    """The waiting books by shape (``lists[s]``, key ascending; ``Book.shelf`` is s), the
    requeue stamps, and whether a job changed queues since the last full decision
    (``requeued``).

    Args:
        thresholds: the queue thresholds in GPU-seconds, increasing (``len + 1`` queues).
        requeue: a job enters at the back of a queue when it arrives, is demoted or promoted
            into it, and :meth:`requeue_all` moves every waiting job to the back
            (:class:`~engine.policies.las.policy.LasParams`); off, a queue is FIFO by arrival.
    """

    def __init__(self, thresholds: tuple[float, ...], requeue: bool) -> None:
        self.thresholds = thresholds
        self.requeue = requeue
        self.lists: list[SortedBooks] = []
        self._shelf_of: dict[tuple[int, tuple[str, ...]], int] = {}  # shape -> index in lists
        self.requeued = False
        self._next_order = 0  # the next requeue stamp (under requeue)

    def arrive(self, book: Book, now_s: float) -> None:
        """An arrived job's book into queue 0 (at its back under ``requeue``)."""
        if self.requeue:
            book.order = self._stamp()
        job = book.job
        shape = (book.gpus, tuple(wt for wt, rate in job.steps_per_s.items() if rate > 0))
        shelf = self._shelf_of.get(shape)
        if shelf is None:
            shelf = self._shelf_of[shape] = len(self.lists)
            self.lists.append(SortedBooks())
        book.shelf = shelf
        self.enqueue(book, now_s)

    def enqueue(self, book: Book, now_s: float) -> None:
        """The book into the queue of its service at ``now_s``, by its order."""
        book.key = queue_key(self.thresholds, book.job, book.offset_gpu_s, now_s, book.order)
        self.lists[book.shelf].add(book)

    def moved(self, book: Book) -> None:
        """A running book whose key entered another queue: noted in ``requeued``; under
        ``requeue`` it enters at the back (a new stamp)."""
        self.requeued = True
        if self.requeue:
            self._to_back(book)

    def requeue_all(self) -> None:
        """``requeue``: every waiting job to the back of its queue, their order kept (new
        stamps in key order; each shape's list is refilled, as its keys changed)."""
        walk = KeyWalk(self.lists)
        in_order: list[Book] = []
        book = walk.next()
        while book is not None:
            in_order.append(book)
            book = walk.next()
        for book in in_order:
            self._to_back(book)
        for waiting in self.lists:
            waiting.refill(list(waiting))

    def promote(self, book: Book) -> None:
        """A starved waiting book out of its queue and into queue 0 (at its back under
        ``requeue``): it holds no GPUs and its service counts afresh (attained - offset = 0,
        below every threshold; :meth:`enqueue` would agree)."""
        shelf = self.lists[book.shelf]
        shelf.remove(book)
        self.requeued = True
        if self.requeue:
            book.order = self._stamp()
        book.key = book.order
        shelf.add(book)

    def start(self, started: list[Book], now_s: float) -> None:
        """The books an allocation starts leave their queues."""
        lists = self.lists
        for book in started:
            lists[book.shelf].remove(book)
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

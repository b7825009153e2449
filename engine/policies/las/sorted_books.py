"""A queue of books by key ascending for Tiresias LAS's waiting jobs (issue 37): a list of
sorted blocks, so an insertion or a removal shifts one block, not every book behind it.

On a 320,000-job tiling of the Philly sample a waiting queue holds ~11,000 books and each job
enters one ~7 times (arrival, preemptions, promotions) anywhere in it; a plain list shifts on
average ~70,000 pointers per job, a cost that grows with the queue. ``sortedcontainers``'
``SortedKeyList`` (the same list-of-blocks design) removes the growth but, called from the
compiled policy, costs more than the shift at this scale (measured: LAS on 320,000 jobs 61 s ->
88 s); this class is that design cut to what the policy uses, with native int keys, compiled
with mypyc (:mod:`engine.native`). ``tests/engine/test_las_sorted_books.py`` checks it against
``SortedKeyList``.

:class:`KeyWalk` reads several of them (the waiting queue split by shape,
:mod:`engine.policies.las.queues`) as one queue in key order, and drops a part when told: the
fill skips a whole shape once it no longer fits, instead of trying each of its books.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from engine.policies.las.books import Book

END_KEY: Final = 1 << 62  # above every key (:mod:`engine.policies.las.keys`: queue << 40 | order)
BLOCK: Final = 256  # [R] a block splits in two above 2 * BLOCK books (a 4 KiB shift at most)


class SortedBooks:
    """Books by key (``Book.key``, unique, unchanged while the book is in here) ascending.

    ``blocks`` are non-empty lists, each sorted, every key of block b below every key of
    block b + 1; ``lasts[b]`` is block b's largest key.
    """

    def __init__(self) -> None:
        self.blocks: list[list[Book]] = []
        self.lasts: list[int] = []
        self.size = 0

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[Book]:
        for block in self.blocks:
            yield from block

    def add(self, book: Book) -> None:
        """Inserts ``book`` at its key's place."""
        key = book.key
        blocks, lasts = self.blocks, self.lasts
        self.size += 1
        if not blocks:
            blocks.append([book])
            lasts.append(key)
            return
        at = min(_first_at_least(lasts, key), len(lasts) - 1)
        block = blocks[at]
        block.insert(_books_before(block, key), book)
        lasts[at] = block[-1].key
        if len(block) > 2 * BLOCK:
            blocks.insert(at + 1, block[BLOCK:])
            del block[BLOCK:]
            lasts.insert(at, block[-1].key)

    def remove(self, book: Book) -> None:
        """Takes ``book`` out.

        Raises:
            ValueError: ``book`` is not in here (or its key changed while it was).
        """
        key = book.key
        at = _first_at_least(self.lasts, key)
        if at == len(self.lasts):
            raise ValueError(f"job {book.index}: not in the queue")
        block = self.blocks[at]
        position = _books_before(block, key)
        if position == len(block) or block[position] is not book:
            raise ValueError(f"job {book.index}: not in the queue")
        del block[position]
        self.size -= 1
        if block:
            self.lasts[at] = block[-1].key
        else:
            del self.blocks[at]
            del self.lasts[at]

    def refill(self, books: list[Book]) -> None:
        """Replaces the content with ``books``, which must be sorted by key ascending."""
        self.blocks = [books[at : at + BLOCK] for at in range(0, len(books), BLOCK)]
        self.lasts = [block[-1].key for block in self.blocks]
        self.size = len(books)


class KeyWalk:
    """The books of several :class:`SortedBooks` (their keys disjoint) in key order, each
    part left out from the moment :meth:`drop_last` drops it. The parts must not change while
    walked. A k-way merge: each step compares the k parts' heads (k is small: the shapes)."""

    def __init__(self, parts: list[SortedBooks]) -> None:
        self.cursors: list[_Cursor] = [_Cursor(part) for part in parts if part.size]
        self.last: _Cursor | None = None

    def next(self) -> Book | None:
        """The book of lowest key not yet walked among the parts not dropped (None: none)."""
        best: _Cursor | None = None
        best_key = END_KEY
        for cursor in self.cursors:
            if cursor.key < best_key:
                best, best_key = cursor, cursor.key
        self.last = best
        if best is None:
            return None
        book = best.take()
        if best.key == END_KEY:
            self.cursors.remove(best)
        return book

    def drop_last(self) -> None:
        """The part of the book :meth:`next` returned last is walked no further."""
        last = self.last
        if last is not None and last.key != END_KEY:
            self.cursors.remove(last)
        self.last = None


class _Cursor:
    """A place in one :class:`SortedBooks`: its next book's block and position, and key."""

    def __init__(self, part: SortedBooks) -> None:
        self.blocks = part.blocks
        self.block = 0
        self.at = 0
        self.key: int = part.blocks[0][0].key

    def take(self) -> Book:
        """The next book; moves past it (``key`` becomes :data:`END_KEY` past the last)."""
        block = self.blocks[self.block]
        book = block[self.at]
        self.at += 1
        if self.at == len(block):
            self.block += 1
            self.at = 0
            if self.block == len(self.blocks):
                self.key = END_KEY
                return book
            block = self.blocks[self.block]
        self.key = block[self.at].key
        return book


def _first_at_least(keys: list[int], key: int) -> int:
    """The first position in ``keys`` (ascending) whose key is not below ``key`` (a bisection
    written out: compiled, it compares native ints)."""
    low, high = 0, len(keys)
    while low < high:
        middle = (low + high) >> 1
        if keys[middle] < key:
            low = middle + 1
        else:
            high = middle
    return low


def _books_before(books: list[Book], key: int) -> int:
    """The number of ``books`` (by key ascending) whose key is below ``key``."""
    low, high = 0, len(books)
    while low < high:
        middle = (low + high) >> 1
        if books[middle].key < key:
            low = middle + 1
        else:
            high = middle
    return low

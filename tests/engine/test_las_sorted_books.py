"""Tiresias LAS's waiting queue (:class:`engine.policies.las.sorted_books.SortedBooks`) against
``sortedcontainers``' ``SortedKeyList`` (the reference it was cut from; issue 37).

Random runs of insertions and removals, long enough to split blocks (above 2 x BLOCK books) and
to empty them: after every step both hold the same books in the same order, and the blocks keep
their invariants (non-empty, sorted, ``lasts`` their largest keys).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sortedcontainers import SortedKeyList

from engine.policies.las.books import Book, book_key
from engine.policies.las.sorted_books import BLOCK, KeyWalk, SortedBooks
from engine.state import JobState


def _book(index: int, key: int) -> Book:
    book = Book(JobState(index, f"j{index}", 0.0, "A3C", 1, 1e6, 1.0, {"v100": 1.0}, 1e8))
    book.key = key
    return book


def _check(queue: SortedBooks, reference: SortedKeyList) -> None:
    assert list(queue) == list(reference)
    assert len(queue) == len(reference)
    assert all(queue.blocks), "no empty block"
    assert queue.lasts == [block[-1].key for block in queue.blocks]
    keys = [book.key for book in queue]
    assert keys == sorted(keys)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), adds=st.integers(0, 6 * BLOCK), share=st.floats(0, 1))
def test_a_queue_holds_what_the_reference_holds(seed: int, adds: int, share: float) -> None:
    rng = random.Random(seed)
    keys = rng.sample(range(10 * adds + 1), adds)
    queue, reference = SortedBooks(), SortedKeyList(key=book_key)
    inside: list[Book] = []
    for index, key in enumerate(keys):
        book = _book(index, key)
        queue.add(book)
        reference.add(book)
        inside.append(book)
        if rng.random() < share:  # a removal somewhere (a start, a promotion)
            gone = inside.pop(rng.randrange(len(inside)))
            queue.remove(gone)
            reference.remove(gone)
    _check(queue, reference)
    rng.shuffle(inside)
    for book in inside:  # emptied: every block goes
        queue.remove(book)
        reference.remove(book)
    _check(queue, reference)
    assert queue.blocks == []


def test_refill_keeps_the_order_and_a_missing_book_is_named() -> None:
    books = [_book(index, 3 * index) for index in range(3 * BLOCK + 5)]
    queue = SortedBooks()
    queue.refill(books)
    assert list(queue) == books and len(queue) == len(books)
    assert [len(block) for block in queue.blocks] == [BLOCK, BLOCK, BLOCK, 5]
    queue.add(_book(9999, 1))  # between the first two books
    assert [book.key for book in queue][:3] == [0, 1, 3]
    with pytest.raises(ValueError, match="job 7777: not in the queue"):
        queue.remove(_book(7777, 2))


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    sizes=st.lists(st.integers(0, 3 * BLOCK), max_size=6),
    drop_share=st.floats(0, 0.2),
)
def test_a_walk_reads_the_parts_in_key_order_without_the_dropped(
    seed: int, sizes: list[int], drop_share: float
) -> None:
    """Parts with disjoint keys walked in key order, blocks crossed; a part dropped after one of
    its books is walked no further, the others are walked to their end."""
    rng = random.Random(seed)
    keys = rng.sample(range(10 * sum(sizes) + 1), sum(sizes))
    parts: list[SortedBooks] = []
    for size in sizes:
        part_keys, keys = sorted(keys[:size]), keys[size:]
        part = SortedBooks()
        part.refill([_book(len(parts) * 10_000 + i, key) for i, key in enumerate(part_keys)])
        parts.append(part)
    part_of = {book.index: p for p, part in enumerate(parts) for book in part}
    expected = sorted((book for part in parts for book in part), key=book_key)
    walk, walked, dropped = KeyWalk(parts), [], set()
    book = walk.next()
    while book is not None:
        walked.append(book)
        if rng.random() < drop_share:
            walk.drop_last()
            dropped.add(part_of[book.index])
        book = walk.next()
    dropped_at = {part_of[b.index]: b.key for b in walked if part_of[b.index] in dropped}
    assert walked == [b for b in expected if b.key <= dropped_at.get(part_of[b.index], b.key)]
    assert walk.next() is None

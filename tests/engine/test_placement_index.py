"""The free-GPU index (issue 37): the indexed consolidated choice equals the scan's."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.placement.consolidated import consolidated, consolidated_indexed
from engine.placement.free_index import FreeIndex

NODES = st.lists(st.tuples(st.integers(0, 8), st.integers(0, 3)), min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
@given(nodes=NODES, num_gpus=st.integers(1, 40), changes=st.lists(st.tuples(st.integers(0, 39),
       st.integers(0, 8)), max_size=30))  # fmt: skip
def test_index_choice_equals_scan_choice(
    nodes: list[tuple[int, int]], num_gpus: int, changes: list[tuple[int, int]]
) -> None:
    """On random free states (built, then changed through ``set``), the same nodes and counts."""
    free = [count for count, _ in nodes]
    racks = [rack for _, rack in nodes]
    index = FreeIndex(free, racks)
    for position, count in changes:
        index.set(position % len(free), count)
    if num_gpus > sum(free):
        return  # the caller never asks (ClusterState checks the type's free total first)
    assert consolidated_indexed(index, num_gpus) == consolidated(list(free), racks, num_gpus)


def test_set_keeps_buckets_and_rack_totals() -> None:
    """Hand-computed: nodes free 8, 2, 2 in racks 0, 1, 1; node 0 drops to 2."""
    index = FreeIndex([8, 2, 2], [0, 1, 1])
    index.set(0, 2)
    assert index.free == [2, 2, 2]
    assert index.buckets[2] == [0, 1, 2] and index.buckets[8] == []
    assert index.rack_free == [2, 4]
    index.set(1, 0)  # a full node is not listed; it is listed again once it frees GPUs
    assert index.buckets[0] == [] and index.buckets[2] == [0, 2] and index.rack_free == [2, 2]
    index.set(1, 1)
    assert index.buckets[0] == [] and index.buckets[1] == [1] and index.rack_free == [2, 3]


def test_indexed_choice_hand_computed() -> None:
    """Best fit on one node (the lowest of the fewest sufficient); else the rack with the fewest
    sufficient GPUs, fullest node first; else across racks."""
    index = FreeIndex([4, 2, 2, 8], [0, 0, 1, 1])
    assert consolidated_indexed(index, 2) == [(1, 2)]
    assert consolidated_indexed(index, 5) == [(3, 5)]
    index.set(3, 3)  # racks: 0 holds 6, 1 holds 5
    assert consolidated_indexed(index, 5) == [(3, 3), (2, 2)]
    assert consolidated_indexed(index, 10) == [(0, 4), (3, 3), (1, 2), (2, 1)]

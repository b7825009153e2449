"""A ClusterQueue's pending keys (engine/quota/pending.py) and which queues only count them.

- :class:`SortedKeys` through random adds and removes (front, middle, new smallest key) holds
  exactly the sorted multiset a plain list holds, and its first key is that list's first.
- :class:`CountedKeys` counts like it and refuses to give keys it does not keep.
- The scheduler keeps keys in order only where its head needs them: StrictFIFO, preemption, or
  admission fair sharing; a BestEffortFIFO queue without them only counts.
- The wake index pushes nothing when a queue is parked again with the same need, and pushes
  again what :meth:`WakeIndex.woken` popped.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.quota.admission import QuotaScheduler
from engine.quota.model import ClusterQueue, FlavorQuota, Preemption, QueueConfig
from engine.quota.pending import CountedKeys, OrderKey, SortedKeys
from engine.quota.tree import QuotaTree
from engine.quota.wake import WakeIndex

keys = st.tuples(st.integers(-2, 0), st.floats(0, 3), st.floats(0, 100), st.integers(0, 10_000))


@settings(max_examples=200, deadline=None)
@given(ops=st.lists(st.tuples(st.booleans(), keys, st.integers(0, 1000)), max_size=300))
def test_sorted_keys_hold_what_a_sorted_list_holds(ops: list[tuple[bool, OrderKey, int]]) -> None:
    ordered, counted, reference = SortedKeys(), CountedKeys(), []
    for add, key, pick in ops:
        if add or not reference:
            ordered.add(key)
            counted.add(key)
            reference.append(key)
        else:  # remove the first key half the time (FIFO's head), else any
            key = reference[0] if pick % 2 else reference[pick % len(reference)]
            ordered.remove(key)
            counted.remove(key)
            reference.remove(key)
        reference.sort()
        assert ordered.in_order() == reference
        assert len(ordered) == len(counted) == len(reference)
        if reference:
            assert ordered.first() == reference[0]


def test_counted_keys_refuse_to_give_keys() -> None:
    counted = CountedKeys()
    counted.add((0, 0.0, 1.0, 3))
    assert len(counted) == 1
    with pytest.raises(TypeError, match="keeps no keys"):
        counted.first()
    with pytest.raises(TypeError, match="keeps no keys"):
        counted.in_order()


def test_only_a_head_that_needs_the_order_keeps_it() -> None:
    v100 = (FlavorQuota("v100", 4),)
    config = QueueConfig(cluster_queues=(
        ClusterQueue("best", v100, "all"),
        ClusterQueue("strict", v100, "all", queueing_strategy="StrictFIFO"),
        ClusterQueue("preempts", v100, "all",
                     preemption=Preemption(within_cluster_queue="LowerPriority")),
    ))  # fmt: skip
    scheduler = QuotaScheduler(config, lambda index, worker_type: True, lambda index: (0, 0, 0, 0))
    kinds = {name: type(keys) for name, keys in ((s.name, s.pending) for s in scheduler.states)}
    assert kinds == {"best": CountedKeys, "strict": SortedKeys, "preempts": SortedKeys}


def test_parking_again_with_the_same_need_pushes_nothing() -> None:
    tree = QuotaTree(QueueConfig(cluster_queues=(
        ClusterQueue("a", (FlavorQuota("v100", 4),), "all"),
        ClusterQueue("b", (FlavorQuota("v100", 4),), "all"),
    )))  # fmt: skip
    index = WakeIndex(tree)
    tree.cluster_queues["b"].add_usage("v100", 6)  # 2 free at the root
    index.park("a", {"v100": 4})
    index.park("a", {"v100": 4})
    assert len(index.heaps["all"]["v100"]) == 1
    index.park("a", {"v100": 3})  # a lower need: a new live entry, the old one stale
    assert len(index.heaps["all"]["v100"]) == 2
    tree.cluster_queues["b"].remove_usage("v100", 1)  # 3 free: wakes it
    index.woken()
    assert index.parked == set()
    index.park("a", {"v100": 4})
    assert index.parked == {"a"} and index.live["a"]["v100"][0] == 4

"""The wake index of parked ClusterQueues (engine/quota/wake.py).

- Its bound is sound: in any tree (two-level cohorts, lending and borrowing limits) and under any
  usage, what a ClusterQueue may take of a flavor is at most its root's availability plus its
  slack; a queue the index keeps parked has no head.
- Hand-computed: a queue needing 4 GPUs in a cohort whose root has 3 free stays parked; one
  more freed GPU wakes it; with a lending limit of 2 on its own quota the slack is 2, so 2 free
  at the root wake it.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.quota.model import ClusterQueue, Cohort, FlavorQuota, QueueConfig
from engine.quota.tree import QuotaTree
from engine.quota.wake import WakeIndex

TEAMS = ("a", "b", "c", "d")


@st.composite
def trees(draw: st.DrawFn) -> QueueConfig:
    """Four ClusterQueues under two sub-cohorts of one root, with random limits on v100."""
    queues = []
    for i, team in enumerate(TEAMS):
        nominal = draw(st.integers(0, 6))
        borrow = draw(st.one_of(st.none(), st.integers(0, 6)))
        lend = draw(st.one_of(st.none(), st.integers(0, nominal)))
        flavors = (FlavorQuota("v100", nominal, borrow, lend),)
        queues.append(ClusterQueue(team, flavors, "left" if i < 2 else "right"))
    subs = tuple(
        Cohort(name, "root", (FlavorQuota("v100", draw(st.integers(0, 4)), None,
                                          draw(st.one_of(st.none(), st.integers(0, 2)))),))
        for name in ("left", "right")
    )  # fmt: skip
    return QueueConfig(cluster_queues=tuple(queues), cohorts=(Cohort("root"), *subs))


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_a_queue_never_may_take_more_than_its_root_frees_plus_its_slack(
    data: st.DataObject,
) -> None:
    tree = QuotaTree(data.draw(trees()))
    index = WakeIndex(tree)
    booked = data.draw(st.lists(st.tuples(st.sampled_from(TEAMS), st.integers(1, 5)),
                                max_size=8))  # fmt: skip
    for team, gpus in booked:
        tree.cluster_queues[team].add_usage("v100", gpus)
    root = tree.cohorts["root"]
    for team in TEAMS:
        node = tree.cluster_queues[team]
        assert node.available("v100") <= root.available("v100") + index.slack(team, "v100")


def _one_cohort(lend: int | None) -> QuotaTree:
    return QuotaTree(QueueConfig(cluster_queues=(
        ClusterQueue("a", (FlavorQuota("v100", 4, None, lend),), "all"),
        ClusterQueue("b", (FlavorQuota("v100", 4),), "all"),
    )))  # fmt: skip


def test_a_parked_queue_wakes_when_its_root_frees_its_need() -> None:
    tree = _one_cohort(None)
    index = WakeIndex(tree)
    tree.cluster_queues["b"].add_usage("v100", 5)  # 8 - 5 = 3 free at the root
    index.park("a", {"v100": 4})
    index.woken()
    assert index.parked == {"a"}
    tree.cluster_queues["b"].remove_usage("v100", 1)  # 4 free
    index.woken()
    assert index.parked == set()


def test_a_lending_limit_lowers_the_threshold_by_the_local_quota() -> None:
    tree = _one_cohort(2)  # a keeps 4 - 2 = 2 GPUs for itself
    index = WakeIndex(tree)
    assert index.slack("a", "v100") == 2
    tree.cluster_queues["b"].add_usage("v100", 4)  # the root holds 2 lent + 4: 2 free
    index.park("a", {"v100": 4})
    index.woken()
    assert index.parked == set()
    assert tree.cluster_queues["a"].available("v100") == 4

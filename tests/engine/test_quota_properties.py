"""Invariants of the quota layer, as Hypothesis properties over random queue trees and jobs.

- Kueue's usage bookkeeping is exact: booking and releasing any sequence of workloads leaves
  every node of the tree at zero usage.
- A run under quotas never lets a ClusterQueue hold more than its nominal quota plus its
  borrowing limit of a flavor, nor a cohort tree more than its GPUs; every job completes once.
- A run whose queues all sit in one cohort with unlimited borrowing, no preemption and one
  flavor, under FIFO with BestEffortFIFO queues, never leaves a job waiting while its GPUs are
  free [the quota is the whole cluster, so Kueue's admission is work-conserving].
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.quota.model import ClusterQueue, FlavorQuota, LocalQueue, Preemption, QueueConfig
from engine.quota.tree import QuotaTree
from tests.engine.kueue_cases import J, jobs_table, run

TEAMS = ("a", "b", "c")


@st.composite
def queue_configs(draw: st.DrawFn) -> QueueConfig:
    """Three ClusterQueues, in one cohort or none, with v100 quotas adding up to at most 8."""
    in_cohort = draw(st.booleans())
    nominal = draw(st.lists(st.integers(0, 4), min_size=3, max_size=3).filter(
        lambda n: 2 <= sum(n) <= 8 and min(n) >= (0 if in_cohort else 2)))  # fmt: skip
    queues = []
    for team, gpus in zip(TEAMS, nominal, strict=True):
        borrow = draw(st.one_of(st.none(), st.integers(0, 4))) if in_cohort else None
        lend = draw(st.one_of(st.none(), st.integers(0, gpus))) if in_cohort else None
        preemption = Preemption(
            draw(st.sampled_from(("Never", "LowerPriority", "LowerOrNewerEqualPriority"))),
            draw(st.sampled_from(("Never", "LowerPriority", "Any"))) if in_cohort else "Never",
        )
        queues.append(ClusterQueue(
            team, (FlavorQuota("v100", gpus, borrow, lend),), "all" if in_cohort else "",
            draw(st.sampled_from(("BestEffortFIFO", "StrictFIFO"))), preemption,
        ))  # fmt: skip
    return QueueConfig(
        cluster_queues=tuple(queues), local_queues=tuple(LocalQueue(t, t) for t in TEAMS)
    )


@st.composite
def team_jobs(draw: st.DrawFn, config: QueueConfig) -> list[J]:
    """Jobs each small enough for its queue to hold."""
    from engine.quota.tree import QuotaTree

    tree = QuotaTree(config)
    room = {t: tree.cluster_queues[t].potential_available("v100") for t in TEAMS}
    teams = [t for t in TEAMS if room[t] >= 1]
    count = draw(st.integers(1, 8))
    jobs = []
    for i in range(count):
        team = draw(st.sampled_from(teams))
        jobs.append(J(f"j{i}", draw(st.integers(0, 3000)), draw(st.integers(1, room[team])),
                      team, draw(st.integers(-1, 2)), draw(st.integers(100, 2000))))  # fmt: skip
    return jobs


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_booking_and_releasing_leaves_the_tree_empty(data: st.DataObject) -> None:
    config = data.draw(queue_configs())
    tree = QuotaTree(config)
    booked = data.draw(st.lists(st.tuples(st.sampled_from(TEAMS), st.integers(1, 4)),
                                max_size=10))  # fmt: skip
    for team, gpus in booked:
        tree.cluster_queues[team].add_usage("v100", gpus)
    for team, gpus in reversed(booked):
        tree.cluster_queues[team].remove_usage("v100", gpus)
    nodes = [*tree.cluster_queues.values(), *tree.cohorts.values()]
    assert all(node.usage.get("v100", 0) == 0 for node in nodes)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_a_run_keeps_every_queue_within_its_limits(data: st.DataObject) -> None:
    config = data.draw(queue_configs())
    jobs = data.draw(team_jobs(config))
    result = run(config, jobs_table(*jobs), {"v100": 8})
    assert result.jobs["completion_s"].notna().all()
    assert len(result.jobs) == len(jobs)
    usage = result.quota_usage
    assert usage is not None
    limit = {cq.name: cq.flavors[0].nominal_gpus + (cq.flavors[0].borrowing_limit_gpus
             if cq.cohort and cq.flavors[0].borrowing_limit_gpus is not None else 0 if not
             cq.cohort else 10**6) for cq in config.cluster_queues}  # fmt: skip
    assert (usage["gpus"] <= usage["cluster_queue"].map(limit)).all()
    level = usage.pivot_table(index="time_s", columns="cluster_queue", values="gpus",
                              aggfunc="last").sort_index().ffill().fillna(0)  # fmt: skip
    assert (level.sum(axis=1) <= 8).all()


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_one_open_cohort_wastes_no_gpu(data: st.DataObject) -> None:
    nominal = data.draw(st.lists(st.integers(0, 4), min_size=3, max_size=3).filter(
        lambda n: sum(n) == 8))  # fmt: skip
    config = QueueConfig(
        cluster_queues=tuple(ClusterQueue(t, (FlavorQuota("v100", g),), "all")
                             for t, g in zip(TEAMS, nominal, strict=True)),
        local_queues=tuple(LocalQueue(t, t) for t in TEAMS),
    )  # fmt: skip
    jobs = data.draw(team_jobs(config))
    result = run(config, jobs_table(*jobs), {"v100": 8})
    seg = result.segments
    for job in result.jobs.itertuples():
        # while it waited, the cluster never had its GPUs free
        start = job.first_start_s
        busy = [(s.start_s, s.end_s, s.num_gpus) for s in seg.itertuples()]
        waits = {job.arrival_s, *(e for _, e, _ in busy if job.arrival_s <= e)}
        for t in (t for t in waits if t < start):
            held = sum(g for s, e, g in busy if s <= t < e)
            assert 8 - held < job.scale_factor, (job.job_id, t, held)

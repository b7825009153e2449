"""Heads found lazily in Kueue's entry order (QuotaScheduler._lazy_order) admit exactly what
heads found for every queue at the start of each cycle admit.

A Hypothesis property over random two-level cohort trees (nominal, borrowing and lending limits
on two flavors), random jobs (GPUs, priority, the worker types they run on) and random
completions: two schedulers, one with the lazy order and one made to compute every head
first, give the same admissions, evictions and blocked reasons at every decision. (A bound
raised by one borrowing level, tried by hand, fails it within a few examples.)
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.quota.admission import OrderKey, QuotaScheduler
from engine.quota.model import ClusterQueue, Cohort, FlavorQuota, QueueConfig

TEAMS = ("a", "b", "c", "d")
FLAVORS = ("v100", "k80")
CAPACITY = {"v100": 12, "k80": 8}


@st.composite
def configs(draw: st.DrawFn) -> QueueConfig:
    """Four BestEffortFIFO ClusterQueues without preemption under two sub-cohorts."""
    queues = []
    for i, team in enumerate(TEAMS):
        flavors = tuple(
            FlavorQuota(
                flavor,
                nominal := draw(st.integers(0, 6)),
                draw(st.one_of(st.none(), st.integers(0, 6))),
                draw(st.one_of(st.none(), st.integers(0, nominal))),
            )
            for flavor in draw(st.permutations(FLAVORS))
        )
        queues.append(ClusterQueue(team, flavors, "left" if i < 2 else "right"))
    subs = tuple(Cohort(name, "root") for name in ("left", "right"))
    return QueueConfig(cluster_queues=tuple(queues), cohorts=(Cohort("root"), *subs))


jobs = st.tuples(
    st.sampled_from(TEAMS),
    st.integers(1, 6),  # GPUs
    st.integers(0, 1),  # priority
    st.sampled_from([("v100",), ("k80",), FLAVORS]),  # the worker types it runs on
)


@settings(max_examples=150, deadline=None)
@given(config=configs(), data=st.data())
def test_lazy_heads_admit_what_eager_heads_admit(config: QueueConfig, data: st.DataObject) -> None:
    steps = data.draw(st.lists(st.lists(jobs, max_size=4), min_size=1, max_size=10))
    arrivals = [job for step in steps for job in step]

    def key_of(index: int) -> OrderKey:
        return (-arrivals[index][2], 0.0, float(index), index)

    def runs_on(index: int, worker_type: str) -> bool:
        return worker_type in arrivals[index][3]

    lazy, eager = QuotaScheduler(config, runs_on, key_of), QuotaScheduler(config, runs_on, key_of)
    eager._lazy_ok = False  # every head found at the start of each cycle
    free = {id(lazy): dict(CAPACITY), id(eager): dict(CAPACITY)}
    running: list[tuple[int, str, int]] = []
    index = 0
    for now, step in enumerate(steps):
        for _ in range(data.draw(st.integers(0, len(running)))):  # completions
            done, worker_type, used = running.pop(data.draw(st.integers(0, len(running) - 1)))
            for scheduler in (lazy, eager):
                scheduler.release(done, float(now))
                free[id(scheduler)][worker_type] += used
        for team, gpus, priority, _ in step:
            for scheduler in (lazy, eager):
                scheduler.submit(index, team, gpus, priority, key_of(index))
            index += 1
        results = [
            scheduler.schedule(float(now), free[id(scheduler)]) for scheduler in (lazy, eager)
        ]
        assert results[0].admitted == results[1].admitted
        assert results[0].evicted == results[1].evicted == []
        assert results[0].blocked == results[1].blocked
        running += [(i, t, arrivals[i][1]) for i, t in results[0].admitted]

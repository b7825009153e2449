"""Default queues of a trace with teams: quotas by GPU-hours, rounded by largest remainder."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config import ScenarioConfig, TraceSpec
from engine.errors import ConfigError
from engine.quota.defaults import default_queues, largest_remainder, team_gpu_hours
from engine.quota.model import Cohort, LocalQueue, Preemption, QueueConfig, ResourceFlavor
from engine.scenario import load_scenario_trace

# A cluster whose worker-type order is not alphabetical: the flavors follow it.
CAPACITY = {"v100": 7, "k80": 4}


def _jobs(rows: list[tuple[str, int, float]], steps: float = 100.0) -> pd.DataFrame:
    """A jobs table of (queue, scale_factor, duration_s) rows."""
    return pd.DataFrame(
        {
            "job_id": [f"j{i}" for i in range(len(rows))],
            "scale_factor": [r[1] for r in rows],
            "total_steps": steps,
            "duration_s": [r[2] for r in rows],
            "queue": [r[0] for r in rows],
        }
    )


# Team GPU-hours: c 1 x 2 h = 2; a 2 x 1.5 h + 1 x 2 h = 5; b 3 x 1 h = 3 (listed out of order).
HAND = _jobs([("c", 1, 7200.0), ("a", 2, 5400.0), ("b", 3, 3600.0), ("a", 1, 7200.0)])


def _nominal(config: QueueConfig) -> dict[str, dict[str, int]]:
    return {cq.name: {q.flavor: q.nominal_gpus for q in cq.flavors} for cq in config.cluster_queues}


def test_team_gpu_hours_by_hand() -> None:
    usage = team_gpu_hours(HAND)
    assert usage.name == "gpu_hours" and usage.index.name == "queue"
    assert usage.to_dict() == {"a": 5.0, "b": 3.0, "c": 2.0}


def test_without_every_duration_the_weight_is_gpu_steps() -> None:
    jobs = HAND.assign(duration_s=[7200.0, math.nan, 3600.0, 7200.0], total_steps=[1, 2, 3, 4])
    usage = team_gpu_hours(jobs)
    assert usage.name == "gpu_steps"
    assert usage.to_dict() == {"a": 2 * 2 + 1 * 4, "b": 3 * 3, "c": 1 * 1}


def test_quotas_by_hand_with_largest_remainder() -> None:
    config = default_queues(HAND, CAPACITY)
    # v100: 7 x (5, 3, 2) / 10 = 3.5, 2.1, 1.4 -> floors 3, 2, 1; the 7th GPU to a (0.5).
    # k80:  4 x (5, 3, 2) / 10 = 2.0, 1.2, 0.8 -> floors 2, 1, 0; the 4th GPU to c (0.8).
    assert _nominal(config) == {
        "a": {"v100": 4, "k80": 2},
        "b": {"v100": 2, "k80": 1},
        "c": {"v100": 1, "k80": 1},
    }
    for worker_type, gpus in CAPACITY.items():
        assert sum(q[worker_type] for q in _nominal(config).values()) == gpus
    config.check(CAPACITY)


def test_the_shape_of_the_default_queues() -> None:
    config = default_queues(HAND, CAPACITY, cohort="org")
    assert [cq.name for cq in config.cluster_queues] == ["a", "b", "c"]
    assert config.local_queues == (LocalQueue("a", "a"), LocalQueue("b", "b"), LocalQueue("c", "c"))
    assert config.cohorts == (Cohort("org"),)
    assert config.flavors == (ResourceFlavor("v100"), ResourceFlavor("k80"))
    for cq in config.cluster_queues:
        assert cq.cohort == "org"
        assert [q.flavor for q in cq.flavors] == ["v100", "k80"]
        assert all(q.borrowing_limit_gpus is None for q in cq.flavors)
        assert all(q.lending_limit_gpus is None for q in cq.flavors)
        assert cq.queueing_strategy == "BestEffortFIFO"
        assert cq.preemption == Preemption()
        assert cq.preemption.within_cluster_queue == "Never"
    assert config.cluster_queue_of("b") == "b"


def test_largest_remainder_by_hand() -> None:
    assert largest_remainder([5, 3, 2], 7) == [4, 2, 1]
    assert largest_remainder([1, 1, 1], 10) == [4, 3, 3]  # a tie goes to the earlier weight
    assert largest_remainder([0.1, 0.2, 0.7], 1) == [0, 0, 1]
    assert largest_remainder([0, 0], 3) == [2, 1]
    assert largest_remainder([1, 2], 0) == [0, 0]


def test_errors() -> None:
    with pytest.raises(ConfigError, match="no team column"):
        default_queues(HAND.drop(columns="queue"), CAPACITY)
    with pytest.raises(ConfigError, match="no team column"):
        team_gpu_hours(HAND.drop(columns="queue"))
    with pytest.raises(ConfigError, match=r"1 job\(s\) name no team \(the first: 'j2'\)"):
        default_queues(HAND.assign(queue=["c", "a", "", "a"]), CAPACITY)
    with pytest.raises(ConfigError, match="has the cohort's name"):
        default_queues(HAND, CAPACITY, cohort="b")
    with pytest.raises(ConfigError, match="no jobs"):
        default_queues(HAND.head(0), CAPACITY)


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["t0", "t1", "t2", "t3", "t4", "t5"]),
            st.integers(1, 64),
            st.floats(1e-3, 1e7, allow_nan=False),
        ),
        min_size=1,
        max_size=40,
    ),
    gpus=st.lists(st.integers(0, 10_000), min_size=1, max_size=4),
)
def test_quotas_always_add_up_to_the_cluster(
    rows: list[tuple[str, int, float]], gpus: list[int]
) -> None:
    capacity = {f"type{i}": n for i, n in enumerate(gpus)}
    config = default_queues(_jobs(rows), capacity)
    config.check(capacity)
    nominal = _nominal(config)
    assert list(nominal) == sorted({r[0] for r in rows})
    for worker_type, total in capacity.items():
        quotas = [q[worker_type] for q in nominal.values()]
        assert sum(quotas) == total
        assert min(quotas) >= 0


def test_philly_teams_through_the_scenario_trace() -> None:
    config = ScenarioConfig(trace=TraceSpec(team_column="cluster"))
    jobs = load_scenario_trace(config).jobs
    assert (jobs["queue"].str.len() > 0).all()
    assert jobs["queue"].nunique() == 10
    capacity = config.cluster.capacity()
    queues = default_queues(jobs, capacity)
    assert len(queues.cluster_queues) == 10
    queues.check(capacity)
    assert queues.root_nominal_gpus() == {"Cohort 'all-teams'": capacity}
    usage = team_gpu_hours(jobs)
    expected = (jobs["scale_factor"] * jobs["duration_s"]).sum() / 3600.0
    assert usage.sum() == pytest.approx(expected)

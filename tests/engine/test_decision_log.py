"""The decision log answers "why did job b wait?" (hand-built cases)."""

from __future__ import annotations

from engine.config import PolicySpec, ScenarioConfig
from engine.simulator import simulate
from engine.step_time.throughput import load_matrix
from tests.engine.helpers import RESNET50, cluster, jobs_frame

MATRIX = load_matrix()


def test_a_job_behind_another_on_one_gpu_waits_for_room() -> None:
    """FIFO, one V100, a and b arrive at 0: a starts, b waits (no room, first in the queue),
    then starts when a completes, and completes."""
    config = ScenarioConfig(cluster=cluster(("v100", 1, 1, "r0")))
    jobs = jobs_frame(("a", 0, RESNET50, 1, 500), ("b", 0, RESNET50, 1, 500))
    result = simulate(jobs, config, PolicySpec("fifo"), MATRIX)
    log = result.decisions
    b = log[log["job_id"] == "b"]
    assert list(b["event"]) == ["arrived", "waiting", "started", "completed"]
    waiting = b[b["event"] == "waiting"].iloc[0]
    assert waiting["reason"] == "no room" and waiting["queue_position"] == 1
    a_done = log[(log["job_id"] == "a") & (log["event"] == "completed")]["time_s"].iloc[0]
    assert b[b["event"] == "started"]["time_s"].iloc[0] == a_done
    assert "1 × v100 on n0" in b[b["event"] == "started"]["detail"].iloc[0]


def test_the_log_can_be_switched_off_and_changes_nothing_else() -> None:
    config = ScenarioConfig(cluster=cluster(("v100", 1, 2, "r0")))
    jobs = jobs_frame(("a", 0, RESNET50, 1, 500), ("b", 10, RESNET50, 2, 500))
    on = simulate(jobs, config, PolicySpec("las"), MATRIX)
    off = simulate(jobs, config, PolicySpec("las"), MATRIX, decision_log=False)
    assert off.decisions is None
    assert on.jobs.equals(off.jobs) and on.segments.equals(off.segments)
    events = on.decisions
    assert set(events["event"]) >= {"arrived", "started", "completed"}
    assert (events.groupby("job_id")["event"].last() == "completed").all()


def test_a_trace_longer_than_the_bound_records_no_log_unless_asked(monkeypatch) -> None:
    """The default records the log up to DECISION_LOG_MAX_JOBS jobs; a caller can force it."""
    import engine.simulator

    config = ScenarioConfig(cluster=cluster(("v100", 1, 2, "r0")))
    jobs = jobs_frame(("a", 0, RESNET50, 1, 500), ("b", 10, RESNET50, 2, 500))
    assert simulate(jobs, config, PolicySpec("fifo"), MATRIX).decisions is not None
    monkeypatch.setattr(engine.simulator, "DECISION_LOG_MAX_JOBS", 1)
    assert simulate(jobs, config, PolicySpec("fifo"), MATRIX).decisions is None
    forced = simulate(jobs, config, PolicySpec("fifo"), MATRIX, decision_log=True)
    assert forced.decisions is not None and set(forced.decisions["job_id"]) == {"a", "b"}


def test_a_job_arriving_at_a_full_cluster_is_explained_from_its_arrival() -> None:
    """b arrives at 10 s while a holds the only GPU: its waiting row is at 10 s, not later."""
    config = ScenarioConfig(cluster=cluster(("v100", 1, 1, "r0")))
    jobs = jobs_frame(("a", 0, RESNET50, 1, 500), ("b", 10, RESNET50, 1, 500))
    log = simulate(jobs, config, PolicySpec("fifo"), MATRIX).decisions
    waiting = log[(log["job_id"] == "b") & (log["event"] == "waiting")]
    assert list(waiting["time_s"]) == [10.0] and list(waiting["reason"]) == ["no room"]

"""Job selections of the Gantt chart for traces too large to draw whole."""

from __future__ import annotations

from dashboard.components.gantt_filters import MAX_BARS, GanttFilter, select_jobs
from tests.dashboard.fakes import fake_simulation


def test_every_mode_returns_at_most_max_bars_jobs() -> None:
    sim = fake_simulation("fifo", n_jobs=400, seed=0)
    for mode in ("Earliest jobs", "Time window", "Job range", "Only preempted", "Longest N"):
        ids = select_jobs(sim.jobs, sim.segments, GanttFilter(mode))
        assert 0 < len(ids) <= MAX_BARS, mode


def test_earliest_and_range_follow_arrival_order() -> None:
    sim = fake_simulation("fifo", n_jobs=50, seed=0)
    assert list(select_jobs(sim.jobs, sim.segments, GanttFilter(top_n=3))) == ["j0", "j1", "j2"]
    picked = select_jobs(sim.jobs, sim.segments, GanttFilter("Job range", ranks=(5, 7)))
    assert list(picked) == ["j4", "j5", "j6"]


def test_only_preempted_and_longest() -> None:
    sim = fake_simulation("fifo", n_jobs=30, seed=0)
    preempted = select_jobs(sim.jobs, sim.segments, GanttFilter("Only preempted"))
    assert set(preempted) == {f"j{i}" for i in range(0, 30, 3)}
    longest = select_jobs(sim.jobs, sim.segments, GanttFilter("Longest N", top_n=1))
    assert list(longest) == [sim.jobs.loc[sim.jobs["jct_s"].idxmax(), "job_id"]]


def test_time_window_keeps_jobs_alive_in_it() -> None:
    sim = fake_simulation("fifo", n_jobs=30, seed=0)
    ids = select_jobs(sim.jobs, sim.segments, GanttFilter("Time window", window_s=(0.0, 10.0)))
    assert list(ids) == ["j0"]

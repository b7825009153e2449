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


def test_side_by_side_panels_share_rows_range_and_mark_clipped_bars() -> None:
    from dashboard.chart_style import worker_type_colors
    from dashboard.components.gantt_filters import shared_selection
    from dashboard.gantt import make_gantt

    fast, slow = fake_simulation("a", n_jobs=60, seed=0), fake_simulation("b", n_jobs=60, seed=1)
    order, end_s = shared_selection([fast, slow], GanttFilter("Longest N", top_n=10))
    longest = max(fast.jobs["jct_s"].max(), slow.jobs["jct_s"].max())
    top = fast.jobs if fast.jobs["jct_s"].max() == longest else slow.jobs
    assert str(top.loc[top["jct_s"].idxmax(), "job_id"]) in order
    colors = worker_type_colors(["k80", "p100", "v100"])
    figures = [
        make_gantt(s.segments, s.jobs, colors, order=order, shown_end_s=end_s) for s in (fast, slow)
    ]
    for fig in figures:
        assert list(fig.layout.yaxis.categoryarray) == order
        assert fig.layout.xaxis.range == figures[0].layout.xaxis.range
    half = make_gantt(fast.segments, fast.jobs, colors, order=order, shown_end_s=end_s / 2)
    clipped = [t for t in half.data if t.name == "continues beyond the edge"]
    shown = fast.jobs[fast.jobs["job_id"].isin(order)]
    beyond = shown[shown["completion_s"] > end_s / 2 * 1.001]
    assert len(beyond) > 0
    assert sorted(clipped[0].y) == sorted(beyond["job_id"].astype(str))

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


def _arrivals_table(arrivals_s: list[float]):
    import pandas as pd

    return pd.DataFrame({"job_id": [f"j{i}" for i in range(len(arrivals_s))],
                         "arrival_s": arrivals_s})  # fmt: skip


def test_the_busiest_hour_is_the_hour_with_most_arrivals_the_earliest_of_equals() -> None:
    from dashboard.components.gantt_filters import busiest_window_s

    # hand-made: one job at 0 and 10 s, three from 5000 s on, one at 9000 s
    assert busiest_window_s([0, 10, 5000, 5100, 5200, 9000], 3600) == 5000
    # two hours of two arrivals each: the earlier wins; 5000..8600 holds 5000 and 5100 only
    assert busiest_window_s([0, 100, 5000, 5100], 3600) == 0
    # a window holds [start, start + width): 3600 s after the start is the next hour's
    assert busiest_window_s([0, 3600, 3700], 3600) == 3600
    assert busiest_window_s([], 3600) == 0.0


def test_the_gantt_opens_on_the_busiest_hour_with_a_label_on_every_row() -> None:
    from dashboard.chart_style import worker_type_colors
    from dashboard.components.gantt_filters import (
        BUSIEST,
        READABLE_ROWS,
        busiest_window_s,
        shown_range_s,
    )
    from dashboard.gantt import make_gantt

    sim = fake_simulation("fifo", n_jobs=400, seed=0)  # one arrival every 300 s
    jobs = sim.jobs.copy()  # and a burst of 70 arrivals at 40 h, 10 s apart
    burst = jobs["job_id"].isin([f"j{i}" for i in range(100, 170)])
    jobs.loc[burst, "arrival_s"] = 40 * 3600 + 10.0 * jobs.index[burst].to_series().sub(100)
    start_s = busiest_window_s(jobs["arrival_s"].to_numpy(float), 3600)
    assert start_s == 40 * 3600
    spec = GanttFilter(BUSIEST, window_s=(start_s, start_s + 3600))
    ids = list(select_jobs(jobs, sim.segments, spec))
    assert len(ids) == READABLE_ROWS  # 70 + the regular arrivals of that hour, cut to 30
    assert ids == [f"j{i}" for i in range(100, 100 + READABLE_ROWS)]  # by arrival
    lo, hi = shown_range_s([sim], ids, spec)
    assert (lo, hi) == (40 * 3600, 42 * 3600)  # that hour and one more
    fig = make_gantt(sim.segments, jobs, worker_type_colors(["k80", "p100", "v100"]),
                     order=ids, shown_start_s=lo, shown_end_s=hi)  # fmt: skip
    assert tuple(fig.layout.xaxis.range) == (40.0, 42.0)
    assert fig.layout.xaxis.title.text == "Simulated time (h)"
    assert fig.layout.yaxis.showticklabels is True
    whole = shown_range_s([sim], ids, GanttFilter("Earliest jobs"))
    last_s = float(sim.jobs.set_index("job_id").loc[ids, "completion_s"].max())
    assert whole == (0.0, last_s)  # the other slices open on their jobs' whole run

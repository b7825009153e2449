"""Unit tests of the pure chart builders."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dashboard import charts
from dashboard.formatting import human_duration, human_number, time_unit
from engine.results import ComparisonResult


def test_policy_colors_are_distinct_and_in_scenario_order() -> None:
    colors = charts.policy_colors(["las", "fifo", "gavel"])
    assert list(colors) == ["las", "fifo", "gavel"]
    assert len(set(colors.values())) == 3


def test_jct_cdf_has_one_line_per_policy_in_its_color(comparison: ComparisonResult) -> None:
    colors = charts.policy_colors(comparison.policies)
    fig = charts.make_jct_cdf(comparison.combined("jobs"), colors, log_x=True)
    assert [t.name for t in fig.data] == ["fifo", "las"]
    assert [t.line.color for t in fig.data] == [colors["fifo"], colors["las"]]
    assert fig.layout.xaxis.type == "log"
    assert max(fig.data[0].y) == 1.0


def test_jct_cdf_linear_axis(comparison: ComparisonResult) -> None:
    colors = charts.policy_colors(comparison.policies)
    fig = charts.make_jct_cdf(comparison.combined("jobs"), colors, log_x=False)
    assert fig.layout.xaxis.type == "linear"


def test_gantt_bars_equal_segments(comparison: ComparisonResult) -> None:
    result = comparison.results[0]
    colors = charts.worker_type_colors(["k80", "p100", "v100"])
    fig = charts.make_gantt(result.segments, result.jobs, colors)
    segment_bars = [t for t in fig.data if t.type == "bar" and t.name in colors]
    assert sum(len(t.y) for t in segment_bars) == len(result.segments)
    assert {t.marker.color for t in segment_bars} == set(colors.values())
    preempted = [t for t in fig.data if t.name == "preempted"]
    assert len(preempted[0].x) == (result.segments["end_reason"] == "preempted").sum()


def test_gantt_draws_a_jobs_copies_as_lanes_of_one_row() -> None:
    """A HadarE job with three copies from 0 to 100 s: one row, three lanes of a third of the
    bar width each, stacked without overlap; hover names the copy."""
    segments = pd.DataFrame(
        {
            "job_id": ["a"] * 3, "start_s": [0.0] * 3, "end_s": [100.0] * 3,
            "restore_s": [0.0] * 3, "worker_type": ["v100", "v100", "k80"],
            "num_gpus": [4, 2, 1], "nodes": ["n0", "n1", "n5"], "racks": ["r0"] * 3,
            "level": ["rack"] * 3, "end_reason": ["completed"] * 3, "lane": [0, 1, 2],
            "combine": ["copies"] * 3,
        }
    )  # fmt: skip
    jobs = pd.DataFrame(
        {"job_id": ["a"], "arrival_s": [0.0], "completion_s": [100.0], "job_type": ["x"]}
    )
    fig = charts.make_gantt(segments, jobs, charts.worker_type_colors(["k80", "v100"]))
    bars = [t for t in fig.data if t.name in ("k80", "v100")]
    edges = sorted(
        x for t in bars for o, w in zip(t.offset, t.width, strict=True) for x in (o, o + w)
    )
    third = 0.7 / 3
    assert edges == pytest.approx([-0.35, -0.35 + third, -0.35 + third, 0.35 - third,
                                   0.35 - third, 0.35])  # fmt: skip
    labels = {row[6] for t in bars for row in t.customdata}
    assert labels == {" · copy 1 of 3", " · copy 2 of 3", " · copy 3 of 3"}


def test_gantt_legend_and_time_axis_are_above_the_bars(comparison: ComparisonResult) -> None:
    """A legend column beside the bars took half their width; a time axis at the bottom of 30
    rows (830 px) was out of a 720-px window whenever the first rows were in it."""
    result = comparison.results[0]
    for title, top_px in (("", 4), ("FIFO", 44)):  # below the title, when there is one
        layout = charts.make_gantt(result.segments, result.jobs, {}, title=title).layout
        legend = layout.legend
        assert legend.orientation == "h" and legend.yref == "container"
        assert legend.yanchor == "top" and (1 - legend.y) * layout.height == pytest.approx(top_px)
        assert layout.xaxis.side == "top" and layout.margin.t == top_px + 96  # legend, ticks


def test_gantt_caps_the_number_of_jobs(comparison: ComparisonResult) -> None:
    result = comparison.results[0]
    fig = charts.make_gantt(result.segments, result.jobs, {}, max_jobs=5)
    rows = {y for t in fig.data for y in t.y}
    assert rows == {f"j{i}" for i in range(5)}


def test_gantt_color_by_level(comparison: ComparisonResult) -> None:
    result = comparison.results[0]
    fig = charts.make_gantt(result.segments, result.jobs, {}, color_by="level")
    assert "node" in {t.name for t in fig.data}


def test_utilization_is_stacked_step_function(comparison: ComparisonResult) -> None:
    util = comparison.results[0].utilization
    colors = charts.worker_type_colors(util["worker_type"].unique())
    fig = charts.make_utilization(util, colors, max_points=500)
    assert [t.name for t in fig.data] == ["k80", "p100", "v100"]
    assert all(t.stackgroup == "busy" and t.line.shape == "hv" for t in fig.data)
    assert all(len(t.x) <= 500 for t in fig.data)


def test_step_values() -> None:
    times = np.array([0.0, 10.0, 20.0])
    values = np.array([1.0, 3.0, 0.0])
    grid = np.array([-1.0, 0.0, 5.0, 10.0, 15.0, 25.0])
    assert list(charts.step_values(times, values, grid)) == [0.0, 1.0, 1.0, 3.0, 3.0, 0.0]


def test_ftf_distribution_one_box_per_policy(comparison: ComparisonResult) -> None:
    colors = charts.policy_colors(comparison.policies)
    fig = charts.make_ftf_distribution(comparison.combined("jobs"), colors)
    assert [t.name for t in fig.data] == ["fifo", "las"]
    assert [t.marker.color for t in fig.data] == list(colors.values())
    assert fig.layout.shapes[0].x0 == 1.0


def test_jain_bar(comparison: ComparisonResult) -> None:
    colors = charts.policy_colors(comparison.policies)
    jain = comparison.kpi_table()["jain_index"].to_dict()
    fig = charts.make_jain_bar(jain, colors)
    assert list(fig.data[0].y) == ["fifo", "las"]
    assert list(fig.data[0].marker.color) == list(colors.values())


def test_duration_histogram_counts_every_known_duration() -> None:
    jobs = pd.DataFrame({"duration_s": [30.0, 700.0, 4000.0, 90000.0, np.nan]})
    fig = charts.make_duration_histogram(jobs)
    assert sum(fig.data[0].y) == 4


def test_human_formatting() -> None:
    assert time_unit(5 * 3600) == ("h", 3600.0)
    assert human_duration(90) == "90 s"
    assert human_duration(5400) == "90.0 min"
    assert human_duration(4 * 3600) == "4.0 h"
    assert human_number(0.456, "fraction") == "45.6%"
    assert human_number(float("nan"), "s") == "–"


def test_rho_axis_labels_say_what_they_mean() -> None:
    """Minor ticks on the log ρ axis read "0.2", never a bare "2" beside "1"."""
    narrow = charts._decade_ticks(pd.Series([0.25, 3.0]))
    assert narrow == pytest.approx([0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50])
    assert charts._decade_ticks(pd.Series([0.2, 150.0])) == pytest.approx([0.1, 1, 10, 100, 1000])


def test_utilization_opens_on_the_focus_but_keeps_the_whole_run() -> None:
    """Busy 0..100 s, a straggler to 10,000 s: the axis opens on [0, 200 s]; data reach the end."""
    steps = pd.DataFrame(
        {"time_s": [0.0, 100.0, 10_000.0], "worker_type": ["v100"] * 3, "busy_gpus": [4, 1, 0],
         "capacity_gpus": [4] * 3, "utilization": [1.0, 0.25, 0.0]}
    )  # fmt: skip
    fig = charts.make_utilization(steps, {"v100": "#f00"}, end_s=10_000.0, focus_end_s=200.0)
    trace = fig.data[0]
    unit, scale = charts.time_unit(200.0)
    assert fig.layout.xaxis.range == (0, 200.0 / scale)
    assert trace.x[-1] * scale == pytest.approx(10_000.0)
    inside = np.asarray(trace.x) * scale <= 200.0
    assert inside.mean() >= 0.7  # most samples where the action is
    assert np.asarray(trace.y)[np.asarray(trace.x) * scale < 100.0].min() == 4


def test_twenty_four_policies_get_twenty_four_distinct_colors() -> None:
    colors = charts.policy_colors([f"p{i}" for i in range(24)])
    assert len(set(colors.values())) == 24


def test_many_policies_grow_the_charts_and_keep_every_label() -> None:
    from tests.dashboard.fakes import fake_comparison

    names = tuple(f"policy {i}" for i in range(20))
    many = fake_comparison(names, n_jobs=12)
    colors = charts.policy_colors(many.policies)
    cdf = charts.make_jct_cdf(many.combined("jobs"), colors)
    assert cdf.layout.height >= 20 * 24  # a legend row per policy
    assert cdf.layout.legend.x > 1  # outside the plot, right of it
    jain = charts.make_jain_bar(many.kpi_table()["jain_index"].to_dict(), colors)
    assert list(jain.layout.yaxis.tickvals) == list(names)
    ftf = charts.make_ftf_distribution(many.combined("jobs"), colors)
    assert list(ftf.layout.yaxis.tickvals) == list(names)
    assert ftf.layout.height >= 20 * 34


def test_the_utilization_grid_has_one_panel_per_policy() -> None:
    from dashboard.utilization_grid import make_utilization_grid
    from tests.dashboard.fakes import fake_comparison

    many = fake_comparison(tuple(f"policy {i}" for i in range(9)), n_jobs=12)
    combined = many.combined("utilization")
    end_s = float(combined["time_s"].max())
    fig = make_utilization_grid(combined, charts.policy_colors(many.policies), end_s, end_s)
    assert [t.name for t in fig.data] == many.policies
    assert fig.layout.height <= 3 * 170 + 110  # 3 rows of 4 panels, not 9 full charts

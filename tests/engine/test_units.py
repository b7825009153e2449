"""The one unit rule (engine.units): a column's unit from its magnitude, on a 30-job class trace
(JCTs of a few minutes) and the full Philly trace (queueing of weeks); ties at the shown
precision; the CLI's summary in the same units."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cli import summary_text
from engine.config import PolicySpec, ScenarioConfig, TraceSpec
from engine.metrics import METRIC_GROUPS, METRICS
from engine.scenario import run_scenario
from engine.units import (
    ColumnFormat,
    column_format,
    group_formats,
    group_time_unit,
    metric_formats,
    time_unit,
)

FULL_PHILLY = next(
    (
        p / "shared/traces/philly/philly_pollux_jobs_full_82247.csv"
        for p in Path(__file__).parents
        if (p / "shared/traces/philly").is_dir()
    ),
    Path("/nonexistent"),
)  # /work/shared beside the checkout (a worktree sits one level deeper)


def test_time_unit_thresholds() -> None:
    assert time_unit(119.0) == ("s", 1.0)
    assert time_unit(120.0) == ("min", 60.0)
    assert time_unit(2 * 3600 - 1) == ("min", 60.0)
    assert time_unit(2 * 3600) == ("h", 3600.0)
    assert time_unit(3 * 86400 - 1) == ("h", 3600.0)
    assert time_unit(3 * 86400) == ("d", 86400.0)
    assert time_unit(-5 * 3600) == ("h", 3600.0)  # a difference: its size counts
    assert time_unit(math.nan) == ("s", 1.0)


def test_one_unit_and_decimals_for_the_whole_column() -> None:
    fmt = column_format([1800.0, 36_000.0, math.nan])  # 0.5 h and 10 h: 2 digits of 0.5
    assert (fmt.unit, fmt.scale, fmt.decimals) == ("h", 3600.0, 2)
    assert [fmt.text(v) for v in (1800.0, 36_000.0, math.nan)] == ["0.50", "10.00", "n/a"]
    assert column_format([5 * 3600.0, 36_000.0]).decimals == 1  # 5.0 and 10.0 h
    assert column_format([1.4, 2.1, 369.0], "ratio").text(1.4) == "1.4"  # not "1" beside 369
    assert column_format([60.0, 70.6 * 3600]).text(60.0) == "0.02"  # at most 2 decimals
    assert fmt.header("Mean JCT") == "Mean JCT (h)"
    assert column_format([0.456, 0.9], "fraction") == ColumnFormat("%", 0.01, 1)
    assert column_format([0.456], "fraction").text(0.456, unit=True) == "45.6%"
    assert column_format([3.0, 1200.0], "count").text(1200.0) == "1,200"
    assert column_format([1.234], "ratio").header("Mean ρ") == "Mean ρ"
    signed = column_format([-150.0, 30.0])
    assert signed.text(-150.0, sign=True, unit=True) == "-2.50 min"
    assert signed.text(30.0, sign=True) == "+0.50"
    assert signed.text(-0.1, sign=True) == "0.00"  # no "-0.00"


def test_a_30_job_class_trace_reads_in_minutes_not_zero_hours() -> None:
    """The first 30 Philly jobs on the default 512-GPU cluster: JCTs of about two minutes.
    Fixed hours showed "0.0"; the column picks minutes and every value keeps 3 digits."""
    config = ScenarioConfig(
        trace=TraceSpec(source="sample:philly_2000.csv", max_jobs=30),
        policies=(PolicySpec("fifo"), PolicySpec("las")),
    )
    kpi = run_scenario(config).kpi_table()
    jct = kpi["jct_mean_s"]
    assert 120 <= jct.max() < 7200  # the case: minutes, not hours
    fmt = column_format(jct, "s")
    assert fmt.unit == "min"
    assert all(float(fmt.text(v)) >= 1.0 for v in jct)  # never "0.0"
    p95 = column_format(kpi["jct_p95_s"], "s")
    assert p95.unit == "min" and p95.text(kpi["jct_p95_s"].iloc[0]) != "0.00"
    text = summary_text(run_scenario(config))
    assert "Mean JCT (min)" in text and "Makespan (min)" in text


@pytest.mark.skipif(not FULL_PHILLY.is_file(), reason="shared Philly trace not present")
def test_the_full_philly_trace_reads_its_queueing_in_days() -> None:
    """FIFO on all 82,247 Philly jobs queues jobs for about 27 days on average (the issue's
    "38,397.8 min"): the column picks days, with 1 decimal."""
    config = ScenarioConfig(
        trace=TraceSpec(source=str(FULL_PHILLY)), policies=(PolicySpec("fifo"),)
    )
    kpi = run_scenario(config).kpi_table()
    queueing = float(kpi["queueing_delay_mean_s"].iloc[0])
    assert queueing > 3 * 86400
    fmt = column_format([queueing], "s")
    assert (fmt.unit, fmt.decimals) == ("d", 1)
    assert fmt.text(queueing) == f"{queueing / 86400:.1f}"
    assert len(fmt.text(queueing)) <= 5  # "26.7", not "38,397.8"


def test_values_that_print_alike_are_equal_as_shown() -> None:
    """7.10 h and 7.14 h beside 10 h print "7.1" (1 decimal from 10 up): equal as shown."""
    fmt = column_format([7.10 * 3600, 7.14 * 3600, 10.0 * 3600])
    assert fmt.rounded(7.10 * 3600) == fmt.rounded(7.14 * 3600) == 7.1
    alone = column_format([7.10 * 3600, 7.14 * 3600])  # below 10 h: 2 decimals
    assert alone.rounded(7.10 * 3600) != alone.rounded(7.14 * 3600)


@given(st.lists(st.floats(0, 1e9), min_size=1, max_size=8))
def test_the_largest_value_shows_between_2_and_120_of_its_unit_or_in_days(
    values: list[float],
) -> None:
    fmt = column_format(values)
    largest = max(values) / fmt.scale
    if fmt.unit == "s":
        assert largest < 120
    elif fmt.unit == "d":
        assert largest >= 3
    elif fmt.unit == "min":
        assert 2 <= largest < 120
    else:
        assert 2 <= largest < 72
    assert fmt.unit in ("s", "min", "h", "d") and METRICS["jct_mean_s"].unit == "s"


def test_a_group_of_durations_reads_in_the_unit_of_its_geometric_mean() -> None:
    """Median 0.5 h, mean 5 h, p95 20 h, p99 170 h, makespan 1,000 h: geometric mean 24.3 h,
    so hours for all (the p99 alone picks days, the median alone minutes)."""
    hour = 3600.0
    values = [0.5 * hour, 5 * hour, 20 * hour, 170 * hour, 1000 * hour]
    assert math.exp(sum(math.log(v / hour) for v in values) / 5) == pytest.approx(24.3, abs=0.1)
    assert group_time_unit(values) == ("h", 3600.0)
    assert group_time_unit([0.0, math.nan, 90.0]) == ("s", 1.0)  # zeros and NaN ignored
    assert group_time_unit([]) == ("s", 1.0)
    formats = group_formats(
        {"median": ([0.5 * hour], "s"), "p99": ([170 * hour], "s"), "jobs": ([3.0], "count")}
    )
    assert formats["median"] == ColumnFormat("h", 3600.0, 2)
    assert formats["p99"] == ColumnFormat("h", 3600.0, 0)
    assert formats["jobs"] == ColumnFormat("", 1.0, 0)


@given(
    st.lists(st.lists(st.floats(0, 1e8), min_size=1, max_size=4), min_size=1, max_size=5),
    st.randoms(use_true_random=False),
)
def test_a_groups_unit_is_shared_and_does_not_depend_on_order(
    columns: list[list[float]], rng
) -> None:
    """Every duration column of a group has the group's unit, whatever the order of its
    columns or of the policies' rows (a run shown again reads the same)."""
    formats = metric_formats(dict(zip(METRIC_GROUPS["Job completion"], columns, strict=False)))
    shuffled = [rng.sample(c, len(c)) for c in columns]
    rng.shuffle(shuffled)
    again = metric_formats(dict(zip(METRIC_GROUPS["Job completion"], shuffled, strict=False)))
    units = {f.unit for f in formats.values()}
    assert len(units) == 1 and units == {f.unit for f in again.values()}


def test_the_cli_prints_the_jct_group_in_one_unit() -> None:
    config = ScenarioConfig(
        trace=TraceSpec(source="sample:philly_2000.csv", max_jobs=30),
        policies=(PolicySpec("fifo"), PolicySpec("las")),
    )
    text = summary_text(run_scenario(config))
    labels = [line.split("(")[1].split(")")[0] for line in text.splitlines()
              if "JCT (" in line or line.startswith("Makespan (")]  # fmt: skip
    assert len(labels) == 5 and len(set(labels)) == 1

"""The Gantt's sharing words (issue 35, point 1 of the Gantt's speed): a hand-made group of
shared GPUs, and Hypothesis tables checked against the loop over rows it replaced
(``gantt_sharing_reference.py``)."""

from __future__ import annotations

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.gantt_sharing import sharing_partners, with_sharing
from tests.dashboard.gantt_sharing_reference import with_sharing_by_loop

JOBS = pd.DataFrame({"job_id": ["h", "a", "b", "x", "y"],
                     "slowdown_from_sharing": [1.5, 2.0, 1.25, 1.0, 1.0]})  # fmt: skip


def segments(rows: list[tuple[str, float, float, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["job_id", "start_s", "end_s", "host_job"])


def test_a_host_and_two_guests_name_each_other_by_overlap() -> None:
    # h hosts from 0 to 100 s; a shares 0-50 s, b 40-100 s (a and b overlap 40-50 s); y hosts
    # its own GPUs 0-100 s: same times, other GPUs, so nobody's partner; x runs alone.
    table = segments([
        ("h", 0.0, 100.0, ""), ("a", 0.0, 50.0, "h"), ("b", 40.0, 100.0, "h"),
        ("y", 0.0, 100.0, ""), ("x", 100.0, 200.0, "h"),  # x after h left: shares nothing
    ])  # fmt: skip
    words = with_sharing(table, JOBS)["sharing"].tolist()
    assert words == [
        "shares its GPUs with a, b · slowdown ×1.50",
        "shares its GPUs with b, h · slowdown ×2.00",
        "shares its GPUs with a, h · slowdown ×1.25",
        "",
        "",
    ]


def test_touching_segments_and_a_jobs_own_lanes_are_not_sharing() -> None:
    # a starts when h ends (100 s); h's second lane (same job) is not a partner
    table = segments([("h", 0.0, 100.0, ""), ("h", 0.0, 100.0, ""), ("a", 100.0, 150.0, "h")])
    assert sharing_partners(table).tolist() == ["", "", ""]


def test_a_segment_of_no_length_inside_another_shares() -> None:
    # [10, 10) lies inside [0, 20): both overlap by the rule (start < other's end and end >
    # other's start); the loop over rows named the partner on one side only
    table = segments([("a", 0.0, 20.0, "h"), ("h", 10.0, 10.0, "")])
    assert sharing_partners(table).tolist() == ["h", "a"]
    assert with_sharing_by_loop(table, JOBS)["sharing"].tolist()[1] == ""


def test_a_run_without_sharing_gets_empty_words() -> None:
    table = segments([("h", 0.0, 100.0, ""), ("a", 0.0, 50.0, "")]).drop(columns="host_job")
    assert with_sharing(table, JOBS)["sharing"].tolist() == ["", ""]
    assert with_sharing(table.iloc[:0].assign(host_job=""), JOBS).empty


@st.composite
def shared_tables(draw: st.DrawFn) -> pd.DataFrame:
    """Up to 40 segments (10-80 s long) of jobs "0".."5" hosted by "0".."2" or by themselves,
    on a grid of 10-s times so that starts and ends often coincide. (The loop skipped a
    segment of no length: ``test_a_segment_of_no_length_inside_another_shares``.)"""
    rows = []
    for _ in range(draw(st.integers(0, 40))):
        start = draw(st.integers(0, 20)) * 10.0
        rows.append((str(draw(st.integers(0, 5))), start,
                     start + draw(st.integers(1, 8)) * 10.0,
                     draw(st.sampled_from(["", "", "0", "1", "2"]))))  # fmt: skip
    table = segments(rows)
    return table.set_axis(draw(st.permutations(range(100, 100 + len(table)))))


@settings(max_examples=300, deadline=None)
@given(shared_tables())
def test_the_words_equal_the_loop_over_rows(table: pd.DataFrame) -> None:
    jobs = pd.DataFrame({"job_id": [str(j) for j in range(6)],
                         "slowdown_from_sharing": [1.0, 1.5, 2.25, 1.125, 3.0, 1.0]})  # fmt: skip
    pd.testing.assert_series_equal(
        with_sharing(table, jobs)["sharing"], with_sharing_by_loop(table, jobs)["sharing"],
        check_dtype=False,
    )  # fmt: skip

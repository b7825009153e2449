"""The trace reader's bulk paths (issue 37) against the row-by-row definitions they replaced.

``read_csv_text`` builds its frame column by column and finds blank rows with one join;
``number_column`` parses every value at once and falls back to the row-by-row pass only to name
the first bad row. Both are checked here against the plain definitions on Hypothesis-drawn
input: the same frame, the same numbers, the same error (file, row, column, message).
"""

from __future__ import annotations

import csv
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import TraceError
from engine.traces.reading import number_column, read_csv_text
from engine.traces.validate import sort_jobs

FIELDS = ["1", "2.5", "0", "-3", "1e3", " 7 ", "1_000", "", "  ", "nan", "inf", "-inf", "abc",
          "4.0", "0.1", "3.", "1e-320", "2\t"]  # fmt: skip


def reference_numbers(values: list[str], integer: bool, minimum: str) -> np.ndarray:
    """The row-by-row rule as it was written before the bulk path."""
    out = []
    for row, raw in enumerate(values, start=1):
        text = str(raw).strip()
        if not text:
            raise TraceError("missing value", file="f", row=row, column="c")
        try:
            value = float(text)
        except ValueError:
            raise TraceError(f"{text!r} is not a number", file="f", row=row, column="c") from None
        if not math.isfinite(value):
            raise TraceError(f"{text!r} is not a finite number", file="f", row=row, column="c")
        if integer and not value.is_integer():
            raise TraceError(f"{text!r} is not a whole number", file="f", row=row, column="c")
        if (minimum == ">0" and value <= 0) or (minimum == ">=0" and value < 0):
            raise TraceError(f"must be {minimum}, got {text}", file="f", row=row, column="c")
        out.append(value)
    return np.asarray(out, dtype=np.int64 if integer else np.float64)


def outcome(call):  # type: ignore[no-untyped-def]
    try:
        return call()
    except TraceError as exc:
        return ("error", str(exc), exc.row, exc.column)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(FIELDS), max_size=8),
    st.booleans(),
    st.sampled_from([">0", ">=0", ""]),
)
def test_number_column_matches_the_row_by_row_rule(
    values: list[str], integer: bool, minimum: str
) -> None:
    got = outcome(
        lambda: number_column(
            pd.Series(values, dtype=object), "f", "c", integer=integer, minimum=minimum
        )  # fmt: skip
    )
    want = outcome(lambda: reference_numbers(values, integer, minimum))
    if isinstance(want, tuple):
        assert got == want
    else:
        assert isinstance(got, np.ndarray) and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_number_column_names_the_first_bad_row_behind_good_ones() -> None:
    with pytest.raises(TraceError, match="row 3.*'x' is not a number"):
        number_column(pd.Series(["1", "2", "x", "y"], dtype=object), "f", "c")


def reference_frame(text: str) -> pd.DataFrame:
    """The frame as the reader built it row by row before the bulk path (valid input)."""
    records = [rec for rec in csv.reader(text.splitlines()) if any(f.strip() for f in rec)]
    header = [name.strip() for name in records[0]]
    return pd.DataFrame(
        [[field.strip() for field in rec] for rec in records[1:]], columns=header, dtype=object
    )


CELLS = st.sampled_from(["", " ", "a", " b ", "1", "x y", '"q,r"', "\t"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(CELLS, min_size=3, max_size=3), max_size=6), st.booleans())
def test_read_csv_text_matches_the_row_by_row_frame(rows: list[list[str]], blank: bool) -> None:
    lines = ["a,b,c"] + [",".join(row) for row in rows] + ([" , ,"] if blank else [])
    text = "\n".join(lines)
    pd.testing.assert_frame_equal(read_csv_text(text, "f"), reference_frame(text))


def reference_outcome(text: str):  # type: ignore[no-untyped-def]
    """The row-by-row reader's frame, or its error for a row of another width."""
    records = [rec for rec in csv.reader(text.splitlines()) if any(f.strip() for f in rec)]
    header = [name.strip() for name in records[0]]
    for row, rec in enumerate(records[1:], start=1):
        if len(rec) != len(header):
            want = f"expected {len(header)} fields ({', '.join(header)}), found {len(rec)}"
            return ("error", str(TraceError(want, file="f", row=row)), row, None)
    return reference_frame(text)


PLAIN = st.sampled_from(["", " ", "a", " b ", "1", "x y", "\t", "2\t", " 3.5"])
BREAK = st.sampled_from(["\n", "\r\n", "\r", "\n\n", "\n \n", "\n,,\n", "\n\t,\n"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(PLAIN, min_size=2, max_size=4), max_size=8), BREAK, st.booleans())
def test_pyarrow_read_matches_the_row_by_row_reader(
    rows: list[list[str]], break_: str, final: bool
) -> None:
    """ASCII text without quotes (the pyarrow path): rows of 2 to 4 fields under a 3-field
    header, any line breaks, blank and whitespace-only lines: the same frame or error."""
    text = break_.join(["a, b ,c"] + [",".join(row) for row in rows]) + (break_ if final else "")
    got = outcome(lambda: read_csv_text(text, "f"))
    want = reference_outcome(text)
    if isinstance(want, tuple):
        assert got == want
    else:
        pd.testing.assert_frame_equal(got, want)


def test_a_field_over_the_csv_modules_limit_is_still_refused() -> None:
    text = "a,b\n1," + "x" * (csv.field_size_limit() + 1) + "\n"
    with pytest.raises(TraceError, match="row"):
        read_csv_text(text, "f")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0.0, -0.0, 1.5, 2.0, 1e9]), st.text(min_size=1, max_size=3)),
        max_size=12,
        unique_by=lambda row: row[1],
    )
)
def test_sort_jobs_orders_as_pandas_sort(rows: list[tuple[float, str]]) -> None:
    """pyarrow's sort of (arrival, job id), non-ASCII ids and tied arrivals included, against
    pandas' stable sort it replaced."""
    frame = pd.DataFrame(
        {"job_id": [r[1] for r in rows], "arrival_s": [r[0] for r in rows], "row": range(len(rows))}
    ).astype({"job_id": "str", "arrival_s": "float64"})
    want = frame.sort_values(["arrival_s", "job_id"], kind="mergesort").reset_index(drop=True)
    pd.testing.assert_frame_equal(sort_jobs(frame), want)

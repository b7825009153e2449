"""Spreadsheet encodings and separators, and the CSV field limit, at the trace importer's edge."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.errors import TraceError
from engine.step_time.throughput import load_matrix
from engine.traces import inspect_trace, load_trace

PHILLY = Path(__file__).resolve().parents[2] / "sample_traces" / "philly_2000.csv"
LINES = PHILLY.read_text().splitlines()[:21]  # header + 20 jobs


def _load(raw: bytes, name: str = "t.csv"):
    return load_trace(raw, name, load_matrix(), np.random.default_rng(0))


@pytest.mark.parametrize(
    ("raw", "described"),
    [
        ("\n".join(LINES).encode("utf-8-sig"), "philly, UTF-8 with BOM, comma-separated"),
        ("\n".join(LINES).encode("utf-16"), "philly, UTF-16, comma-separated"),
        ("\r\n".join(x.replace(",", "\t") for x in LINES).encode("utf-16"),
         "philly, UTF-16, tab-separated"),
        ("\n".join(x.replace(",", "\t") for x in LINES).encode("utf-16-le"),
         "philly, UTF-16, tab-separated"),
    ],
)  # fmt: skip
def test_spreadsheet_encodings_give_the_same_jobs(raw: bytes, described: str) -> None:
    plain = _load("\n".join(LINES).encode()).jobs
    assert inspect_trace(raw, "t.csv").describe() == described
    loaded = _load(raw)
    assert loaded.jobs.equals(plain)
    assert loaded.format == "philly"


def test_a_gavel_trace_stays_tab_separated() -> None:
    sample = PHILLY.parent / "gavel_artifact_evaluation.trace"
    assert inspect_trace(sample.read_bytes(), sample.name).format == "gavel"


def test_a_field_over_the_csv_limit_names_the_row() -> None:
    lines = list(LINES)
    lines[5] = '"' + "x" * 200_000 + '"' + lines[5][lines[5].index(",") :]
    with pytest.raises(TraceError, match="field limit") as info:
        _load("\n".join(lines).encode())
    assert info.value.row == 5


def test_a_long_field_in_a_tab_separated_file_names_the_row() -> None:
    lines = [x.replace(",", "\t") for x in LINES]
    lines[2] = '"' + "x" * 200_000 + '"' + lines[2][lines[2].index("\t") :]
    with pytest.raises(TraceError) as info:
        _load("\n".join(lines).encode("utf-16"))
    assert info.value.row == 2

"""The canonical CSV (see ``sample_traces/CANONICAL_FORMAT.md``) and mapping any CSV onto it.

A canonical CSV has a header with the columns of `engine.traces.schema` minus ``source_row``:
``job_id, arrival_s, job_type, scale_factor, total_steps`` (required) and ``priority_weight``
(default 1), ``duration_s`` (blank or absent = unknown), ``queue`` (the team's LocalQueue; blank
= none) and ``priority`` (a whole number, blank = 0) (optional; the last two are added to the
jobs table only when present). Job types must be job types of the throughput matrix. Arrival
times are seconds from the trace start and are kept as they are. Any other column is an error,
so that a typo is not silently ignored.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from engine.errors import TraceError
from engine.step_time.throughput import ThroughputMatrix
from engine.traces.reading import number_column, read_csv_text, require_columns, text_column
from engine.traces.registry import FORMATS, LoadContext, Loaded, TraceFormat, header_columns
from engine.traces.schema import JOB_COLUMNS, OPTIONAL_JOB_COLUMNS
from engine.traces.validate import build_jobs

REQUIRED = ["job_id", "arrival_s", "job_type", "scale_factor", "total_steps"]
OPTIONAL = ["priority_weight", "duration_s", "queue", "priority"]


def required_canonical_columns() -> list[str]:
    """Canonical columns a mapping must provide (the dashboard's mapping form uses this)."""
    return list(REQUIRED)


def optional_canonical_columns() -> list[str]:
    """Canonical columns a mapping may provide (defaults: priority weight 1, duration unknown;
    no team columns)."""
    return list(OPTIONAL)


def _detect(line: str) -> bool:
    return set(REQUIRED) <= header_columns(line)


def load_canonical(text: str, ctx: LoadContext) -> Loaded:
    """Imports a canonical CSV.

    Raises:
        TraceError: for an unknown or missing column, a bad value (file, row, column named), or
            a job type not in the throughput matrix.
    """
    raw = read_csv_text(text, ctx.file)
    unknown = [c for c in raw.columns if c not in REQUIRED + OPTIONAL]
    if unknown:
        raise TraceError(
            f"unknown column(s) {unknown}; the canonical format has the columns {REQUIRED} "
            f"and the optional {OPTIONAL}",
            file=ctx.file,
            column=unknown[0],
        )
    require_columns(raw, REQUIRED, ctx.file, "canonical")
    return Loaded(_from_strings(raw, ctx.file, ctx.matrix, {}))


FORMATS.register(
    "canonical",
    TraceFormat(
        description="Canonical jobs CSV (this project)",
        detect=_detect,
        load=load_canonical,
        uses_assumed_worker_type=False,
        detect_order=90,  # the project's own CSV, tried last: another format's header wins [R]
    ),
)


def apply_column_mapping(
    frame: pd.DataFrame,
    mapping: dict[str, str],
    matrix: ThroughputMatrix,
    *,
    file: str = "uploaded file",
    shift_to_zero: bool = False,
) -> pd.DataFrame:
    """Builds the canonical jobs table from any table, given which column holds what.

    Args:
        frame: the user's table as read (any dtypes); data row i + 1 at position i.
        mapping: canonical column -> the user's column, for every required canonical column and
            any optional ones; unmapped user columns are ignored.
        matrix: the throughput matrix the job types must belong to.
        file: the file name for error messages.
        shift_to_zero: subtract the earliest arrival (for absolute times such as Unix seconds).

    Returns:
        The canonical jobs table (validated exactly like a canonical CSV).

    Raises:
        TraceError: for an unknown canonical name, an unmapped required column, a mapped column
            missing from ``frame``, or any bad value (naming the user's column).
    """
    for canonical, column in mapping.items():
        if canonical not in REQUIRED + OPTIONAL:
            raise TraceError(f"{canonical!r} is not a canonical column", file=file, column=column)
        if column not in frame.columns:
            raise TraceError(
                f"mapped column {column!r} is not in the file", file=file, column=column
            )
    missing = [c for c in REQUIRED if c not in mapping]
    if missing:
        raise TraceError(f"no column chosen for {missing}; required: {REQUIRED}", file=file)
    strings = pd.DataFrame({c: frame[mapping[c]].map(_cell_text) for c in mapping}, dtype=object)
    jobs = _from_strings(strings.reset_index(drop=True), file, matrix, mapping)
    if shift_to_zero:
        jobs["arrival_s"] -= jobs["arrival_s"].min()
    return jobs


def to_canonical_csv(jobs: pd.DataFrame) -> bytes:
    """Writes a canonical jobs table as a canonical CSV (floats in round-trip precision), with
    its team columns when it has them."""
    columns = [c for c in JOB_COLUMNS if c != "source_row"]
    columns += [c for c in OPTIONAL_JOB_COLUMNS if c in jobs]
    return jobs[columns].to_csv(index=False, lineterminator="\n").encode("utf-8")


def _cell_text(value: object) -> str:
    return "" if pd.isna(value) else str(value)  # type: ignore[call-overload]


def _from_strings(
    raw: pd.DataFrame, file: str, matrix: ThroughputMatrix, names: dict[str, str]
) -> pd.DataFrame:
    def col(name: str) -> str:
        return names.get(name, name)

    def number(name: str, integer: bool = False, minimum: str = ">0") -> np.ndarray:
        return number_column(raw[name], file, col(name), integer=integer, minimum=minimum)

    return build_jobs(
        file,
        matrix,
        job_id=text_column(raw["job_id"], file, col("job_id")),
        arrival_s=number("arrival_s", minimum=">=0"),
        job_type=text_column(raw["job_type"], file, col("job_type")),
        scale_factor=number("scale_factor", integer=True),
        total_steps=number("total_steps"),
        priority_weight=number("priority_weight") if "priority_weight" in raw else None,
        duration_s=_optional_duration(raw, file, col("duration_s")),
        queue=[str(v).strip() for v in raw["queue"]] if "queue" in raw else None,
        priority=_optional_priority(raw, file, col("priority")),
        columns=names,
    )


def _optional_priority(raw: pd.DataFrame, file: str, column: str) -> np.ndarray | None:
    """Kueue's workload priority: any whole number (higher first), blank = 0."""
    if "priority" not in raw:
        return None
    values = raw["priority"].map(lambda v: str(v).strip() or "0")
    return number_column(values, file, column, integer=True, minimum="")


def _optional_duration(raw: pd.DataFrame, file: str, column: str) -> np.ndarray | None:
    if "duration_s" not in raw:
        return None
    values = raw["duration_s"].map(lambda v: str(v).strip())
    blank = (values == "").to_numpy()
    parsed = number_column(values.where(~blank, "1"), file, column)
    return np.where(blank, np.nan, parsed)

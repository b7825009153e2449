"""Assembling and checking the canonical jobs table (`engine.traces.schema`).

Importers parse their columns with `engine.traces.reading` (which already rejects blanks, text,
NaN and non-positive values) and hand the arrays to :func:`build_jobs`, which adds the checks
that need the whole table or the throughput matrix: unique ids, known job types, and jobs that
fit on at least one worker type. Nothing is dropped silently.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from engine.errors import TraceError
from engine.step_time.throughput import ThroughputMatrix
from engine.traces.schema import (
    JOB_COLUMNS,
    JOB_DTYPES,
    OPTIONAL_JOB_COLUMNS,
    OPTIONAL_JOB_DTYPES,
)


def build_jobs(
    file: str,
    matrix: ThroughputMatrix,
    *,
    job_id: Sequence[str],
    arrival_s: np.ndarray,
    job_type: Sequence[str],
    scale_factor: np.ndarray,
    total_steps: np.ndarray,
    priority_weight: np.ndarray | None = None,
    duration_s: np.ndarray | None = None,
    source_row: np.ndarray | None = None,
    queue: Sequence[str] | None = None,
    priority: np.ndarray | None = None,
    columns: dict[str, str] | None = None,
) -> pd.DataFrame:
    """Builds the canonical jobs table from per-job arrays of equal length n.

    Args:
        file: file name for error messages.
        columns: canonical column -> the source file's column name, for error messages.
        priority_weight, duration_s, source_row: default 1.0, NaN and 1..n.
        queue, priority: the optional team columns (`engine.traces.schema`), added only when
            given (a priority without queues puts every job in queue "").

    Returns:
        A frame with exactly ``JOB_COLUMNS`` and ``JOB_DTYPES`` (then ``queue`` and
        ``priority`` when given), sorted by arrival_s then job_id, index 0..n-1.

    Raises:
        TraceError: for an empty table, a duplicated id, an unknown job type, a non-positive
            step count, or a job that fits on no worker type of ``matrix``.
    """
    n = len(job_id)
    frame = pd.DataFrame(
        {
            "job_id": list(job_id),
            "arrival_s": arrival_s,
            "job_type": [matrix.canonical(name) for name in job_type],
            "scale_factor": scale_factor,
            "total_steps": total_steps,
            "priority_weight": np.ones(n) if priority_weight is None else priority_weight,
            "duration_s": np.full(n, np.nan) if duration_s is None else duration_s,
            "source_row": np.arange(1, n + 1) if source_row is None else source_row,
        },
        columns=list(JOB_COLUMNS),
    ).astype(JOB_DTYPES)
    if queue is not None or priority is not None:
        frame = with_teams(frame, [""] * n if queue is None else queue, priority)
    _check_table(frame, file, matrix, columns or {})
    return sort_jobs(frame)


def with_teams(
    jobs: pd.DataFrame, queue: Sequence[str], priority: np.ndarray | None = None
) -> pd.DataFrame:
    """``jobs`` with the optional columns ``queue`` and ``priority`` set, last, in the order
    and dtypes of ``OPTIONAL_JOB_COLUMNS``; values aligned with the rows of ``jobs``. A missing
    ``priority`` keeps the table's own, else 0."""
    if priority is None:
        kept = jobs["priority"].to_numpy() if "priority" in jobs else None
        priority = np.zeros(len(jobs), np.int64) if kept is None else kept
    out = jobs.drop(columns=[c for c in OPTIONAL_JOB_COLUMNS if c in jobs])
    out = out.assign(queue=list(queue), priority=priority)
    return out.astype(OPTIONAL_JOB_DTYPES)


def sort_jobs(frame: pd.DataFrame) -> pd.DataFrame:
    """Sorts by arrival_s then job_id (stable) and resets the index."""
    return frame.sort_values(["arrival_s", "job_id"], kind="mergesort").reset_index(drop=True)


def _check_table(
    frame: pd.DataFrame, file: str, matrix: ThroughputMatrix, columns: dict[str, str]
) -> None:
    def fail(message: str, i: int, column: str) -> TraceError:
        row = int(frame["source_row"].iloc[i])
        return TraceError(message, file=file, row=row, column=columns.get(column, column))

    if frame.empty:
        raise TraceError("the trace has no jobs (only a header?)", file=file)
    duplicated = np.flatnonzero(frame["job_id"].duplicated().to_numpy())
    if duplicated.size:
        i = int(duplicated[0])
        raise fail(f"job id {frame['job_id'].iloc[i]!r} appears more than once", i, "job_id")
    known = set(matrix.job_types)
    fitting = {jt for jt in known if any(matrix.fits(jt, wt) for wt in matrix.worker_types)}
    for i, job_type in enumerate(frame["job_type"]):
        if job_type not in known:
            raise fail(
                f"unknown job type {job_type!r}; the throughput matrix has: "
                f"{', '.join(matrix.job_types)}",
                i,
                "job_type",
            )
        if job_type not in fitting:
            raise fail(
                f"job type {job_type!r} fits on no worker type of the throughput matrix "
                f"({', '.join(matrix.worker_types)})",
                i,
                "job_type",
            )
    bad_steps = np.flatnonzero(~(frame["total_steps"].to_numpy() > 0))
    if bad_steps.size:
        i = int(bad_steps[0])
        raise fail(f"total steps must be > 0, got {frame['total_steps'].iloc[i]}", i, "total_steps")

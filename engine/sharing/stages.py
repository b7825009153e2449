"""Each job's stage times, read from a Muri trace table (``resource_time_0..2``, milliseconds).

Source: Muri's loader, github.com/Rivendile/Muri ``cluster_exp/jobs.py`` (``add_job``: the
``resource_time*`` columns in order, divided by 1000 like ``iteration_time``). Muri fills
missing stage times by splitting ``iteration_time`` in fixed ratios; we refuse them instead
(the interleaving model needs measured stages; use ``time_slicing`` without them) [R].
"""

from __future__ import annotations

import math

import pandas as pd

from engine.sharing.config import SharingConfig, SharingError
from engine.sharing.interleave import StageTimes

STAGE_COLUMNS = ("resource_time_0", "resource_time_1", "resource_time_2")
MS_PER_S = 1000.0


def stage_times_ms(frame: pd.DataFrame, file: str) -> dict[str, StageTimes]:
    """``job_id`` (as text) -> stage times (s) of every row of a Muri trace ``frame`` (times in ms).

    Args:
        frame: rows with ``job_id``, ``iteration_time`` and :data:`STAGE_COLUMNS`.
        file: the file's name, for messages.

    Raises:
        SharingError: a column is missing, or a row's stage time is missing, not a number or
            negative (naming the file, row, job and column).
    """
    missing = [c for c in ("job_id", "iteration_time", *STAGE_COLUMNS) if c not in frame.columns]
    if missing:
        raise SharingError(
            f"{file}: the interleaving model needs column(s) {', '.join(missing)}; "
            "use sharing.model = time_slicing for a trace without stage times"
        )
    values = frame[["iteration_time", *STAGE_COLUMNS]].apply(pd.to_numeric, errors="coerce")
    out: dict[str, StageTimes] = {}
    for row, (job_id, *times_ms) in enumerate(
        zip(frame["job_id"], *(values[c] for c in (*STAGE_COLUMNS, "iteration_time")), strict=True)
    ):
        for column, value in zip((*STAGE_COLUMNS, "iteration_time"), times_ms, strict=True):
            if not (math.isfinite(value) and value >= 0):
                raise SharingError(
                    f"{file}: row {row + 1} (job {job_id}), column {column}: a time >= 0 (ms) "
                    f"is needed for the interleaving model, got {frame[column].iloc[row]!r}"
                )
        data_ms, compute_ms, comm_ms, iteration_ms = times_ms
        out[str(job_id)] = StageTimes(
            data_ms / MS_PER_S, compute_ms / MS_PER_S, comm_ms / MS_PER_S, iteration_ms / MS_PER_S
        )
    return out


def trace_stage_times(
    k: int, sharing: SharingConfig, stage_rows: pd.DataFrame | None, file: str
) -> dict[str, StageTimes]:
    """``job_id`` -> stage times (s) for a policy that puts up to ``k`` jobs on the same GPUs
    under the scenario's ``sharing`` model; empty unless ``k`` > 1 under interleaving.

    Args:
        stage_rows: the trace's stage rows (:attr:`engine.traces.registry.Loaded.stage_rows`),
            None when the trace has none.
        file: the trace's name, for messages.

    Raises:
        SharingError: the interleaving model on a trace without stage times, or a bad value
            (:func:`stage_times_ms`).
    """
    if k <= 1 or sharing.model != "interleaving":
        return {}
    if stage_rows is None:
        raise SharingError(
            f"sharing.model = interleaving needs each job's stage times (columns "
            f"{', '.join(STAGE_COLUMNS)}), which {file or 'the trace'} does not have; "
            "use sharing.model = time_slicing"
        )
    return stage_times_ms(stage_rows, file)

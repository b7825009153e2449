"""Microsoft ITP cluster traces (2021), as published with ElasticFlow (Gu et al., ASPLOS '23).

Source: https://github.com/microsoft/elasticflow-traces (MIT). Two layouts of the same jobs:

- raw: ``job_id,submission_time,duration,num_gpu`` - times in seconds since the start of
  collection, durations in seconds. No model: job types and steps follow rules 1 and 3 of
  `engine.traces.rules`.
- ElasticFlow: ``job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,
  duration``. ``model_name`` maps to a Gavel job type (rule 2), steps follow rule 3.
  ``num_iteration``, ``deadline`` and ``batch_size`` were generated at random by the ElasticFlow
  authors and are not used.

Arrivals are shifted so the first submission is at 0 s.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from engine.traces import rules
from engine.traces.reading import number_column, text_column
from engine.traces.registry import FORMATS, LoadContext, Loaded, TraceFormat, header_columns
from engine.traces.validate import build_jobs

RAW_REQUIRED = ["job_id", "submission_time", "duration", "num_gpu"]
ELASTICFLOW_REQUIRED = [*RAW_REQUIRED, "model_name", "num_iteration"]
_COLUMNS = {"arrival_s": "submission_time", "scale_factor": "num_gpu", "duration_s": "duration"}


def _detect_raw(line: str) -> bool:
    columns = header_columns(line)
    return set(RAW_REQUIRED) <= columns and "model_name" not in columns


def _detect_elasticflow(line: str) -> bool:
    return set(ELASTICFLOW_REQUIRED) <= header_columns(line)


def load_itp_raw(text: str, ctx: LoadContext) -> Loaded:
    """Imports an ITP raw CSV: one job per row, job types drawn by rule 1.

    Raises:
        TraceError: naming the file, row and column of the first bad value.
    """
    raw = rules.read_csv_for_assumed_type(
        text, ctx.file, RAW_REQUIRED, "itp_raw", ctx.matrix, ctx.assumed_worker_type
    )
    numbers = _numbers(raw, ctx)
    job_types = rules.draw_job_types(
        numbers[2], ctx.matrix, ctx.assumed_worker_type, ctx.rng, ctx.file
    )
    notes = (
        rules.assumed_type_note("ITP", ctx.assumed_worker_type),
        rules.drawn_types_note("ITP", ctx.matrix, ctx.assumed_worker_type),
    )
    return Loaded(_build(raw, numbers, job_types, ctx, None), notes)


FORMATS.register(
    "itp_raw",
    TraceFormat(
        description="Microsoft ITP raw CSV (ElasticFlow)",
        detect=_detect_raw,
        load=load_itp_raw,
        detect_order=20,  # its detector rejects a header with model_name (the ElasticFlow CSV)
        draws_job_types=True,
    ),
)


def load_itp_elasticflow(text: str, ctx: LoadContext) -> Loaded:
    """Imports an ITP ElasticFlow CSV: model names mapped by rule 2.

    Raises:
        TraceError: naming the file, row and column of the first bad value or unknown model.
    """
    raw = rules.read_csv_for_assumed_type(
        text, ctx.file, ELASTICFLOW_REQUIRED, "itp_elasticflow", ctx.matrix, ctx.assumed_worker_type
    )
    models = text_column(raw["model_name"], ctx.file, "model_name")
    job_types = rules.map_model_names(models, ctx.file, "model_name")
    notes = (
        rules.assumed_type_note("ITP", ctx.assumed_worker_type),
        "ITP ElasticFlow: " + rules.MAPPED_NOTE + "; num_iteration, deadline and batch_size "
        "were generated at random by the ElasticFlow authors and are ignored",
    )
    return Loaded(_build(raw, _numbers(raw, ctx), job_types, ctx, "model_name"), notes)


FORMATS.register(
    "itp_elasticflow",
    TraceFormat(
        description="Microsoft ITP ElasticFlow CSV (with model names)",
        detect=_detect_elasticflow,
        load=load_itp_elasticflow,
        detect_order=30,
    ),
)


def _numbers(raw: pd.DataFrame, ctx: LoadContext) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """submission_time (s), duration (s) and num_gpu columns, parsed and checked."""
    return (
        number_column(raw["submission_time"], ctx.file, "submission_time", minimum=""),
        number_column(raw["duration"], ctx.file, "duration"),
        number_column(raw["num_gpu"], ctx.file, "num_gpu", integer=True),
    )


def _build(
    raw: pd.DataFrame,
    numbers: tuple[np.ndarray, np.ndarray, np.ndarray],
    job_types: list[str],
    ctx: LoadContext,
    type_column: str | None,
) -> pd.DataFrame:
    submit_s, duration_s, scale_factor = numbers
    steps = ctx.steps_from_duration(job_types, scale_factor, duration_s, type_column)
    return build_jobs(
        ctx.file,
        ctx.matrix,
        job_id=text_column(raw["job_id"], ctx.file, "job_id"),
        arrival_s=submit_s - (submit_s.min() if len(submit_s) else 0.0),
        job_type=job_types,
        scale_factor=scale_factor,
        total_steps=steps,
        duration_s=duration_s,
        columns={**_COLUMNS, "job_type": type_column or "job_type"},
    )

"""Muri traces: Tiresias' columns in milliseconds, with each job's measured iteration time.

Source: Zhao et al., "Multi-Resource Interleaving for Deep Learning Training", SIGCOMM 2022
(https://github.com/Rivendile/Muri, Apache-2.0), ``cluster_exp/trace-data/cluster_trace.csv``:
``job_id, num_gpu, submit_time, iterations, model_name, batch_size, duration, interval,
iteration_time, resource_time_0..2, priority``. Muri's loader (``cluster_exp/jobs.py``) divides
``submit_time``, ``duration`` and ``iteration_time`` by 1000: they are milliseconds. So
``arrival_s = submit_time / 1000``, ``total_steps = iterations`` and ``duration_s = duration /
1000`` (reported only; progress is by iterations).

The trace carries its own speeds: ``iteration_time`` is the time one iteration of the whole job
took on its ``num_gpu`` GPUs, measured on the authors' testbed. Each (model, per-GPU batch size)
becomes a job type of this trace, ``"<model> (batch size <b>)"``, whose throughput at ``num_gpu``
GPUs is ``1000 / iteration_time`` steps/s on the GPU type the trace was measured on (the trace
panel's GPU type; Muri's testbed ran V100s). Those job types run on that GPU type only: no speed
on another type is drawn or borrowed [R]. ``interval``, ``resource_time_*`` (Muri's own packing
policy) and ``priority`` are not used.
"""

from __future__ import annotations

import numpy as np

from engine.errors import TraceError
from engine.step_time.throughput import ThroughputMatrix
from engine.traces import rules
from engine.traces.reading import number_column, read_csv_text, require_columns, text_column
from engine.traces.registry import FORMATS, LoadContext, Loaded, TraceFormat, header_columns
from engine.traces.validate import build_jobs

REQUIRED = ["job_id", "num_gpu", "submit_time", "iterations", "model_name", "iteration_time"]
MS_PER_S = 1000.0


def _detect(line: str) -> bool:
    return set(REQUIRED) <= header_columns(line)


def load_muri(text: str, ctx: LoadContext) -> Loaded:
    """Imports a Muri CSV; see the module docstring for the columns, units and rules.

    Raises:
        TraceError: naming the file, row and column of the first bad value, or of a second
            iteration time for a (model, batch size, GPUs) that already has another.
    """
    raw = read_csv_text(text, ctx.file)
    require_columns(raw, REQUIRED, ctx.file, "muri")
    rules.check_worker_type(ctx.matrix, ctx.assumed_worker_type, ctx.file)
    models = text_column(raw["model_name"], ctx.file, "model_name")
    job_types = models
    if "batch_size" in raw.columns:  # per GPU; part of the job type, as in Gavel's names
        batch = number_column(raw["batch_size"], ctx.file, "batch_size", integer=True)
        job_types = [f"{m} (batch size {b})" for m, b in zip(models, batch.tolist(), strict=True)]
    scale_factor = number_column(raw["num_gpu"], ctx.file, "num_gpu", integer=True)
    iteration_s = number_column(raw["iteration_time"], ctx.file, "iteration_time") / MS_PER_S
    measured = measured_speeds(job_types, scale_factor, iteration_s, ctx)
    duration_s = None
    if "duration" in raw.columns:
        duration_s = number_column(raw["duration"], ctx.file, "duration", minimum=">=0") / MS_PER_S
    jobs = build_jobs(
        ctx.file,
        ctx.matrix.merged(measured),
        job_id=text_column(raw["job_id"], ctx.file, "job_id"),
        arrival_s=number_column(raw["submit_time"], ctx.file, "submit_time", minimum=">=0")
        / MS_PER_S,
        job_type=job_types,
        scale_factor=scale_factor,
        total_steps=number_column(raw["iterations"], ctx.file, "iterations"),
        duration_s=duration_s,
        columns={"scale_factor": "num_gpu", "job_type": "model_name", "duration_s": "duration",
                 "arrival_s": "submit_time", "total_steps": "iterations"},
    )  # fmt: skip
    return Loaded(jobs, (speeds_note(measured, ctx.assumed_worker_type),), throughputs=measured)


FORMATS.register(
    "muri",
    TraceFormat(
        description="Muri testbed CSV (times in ms, measured iteration times)",
        detect=_detect,
        load=load_muri,
        measured_speeds=True,
        detect_order=50,
    ),
)


def measured_speeds(
    job_types: list[str], scale_factor: np.ndarray, iteration_s: np.ndarray, ctx: LoadContext
) -> ThroughputMatrix:
    """The trace's own throughput matrix: ``1 / iteration_s`` steps/s per (job type, GPUs) on
    ``ctx.assumed_worker_type``.

    Raises:
        TraceError: when one (job type, GPUs) has two different iteration times (naming the
            second row): one job type runs at one speed per GPU count.
    """
    table: dict[str, dict[str, dict[int, float]]] = {}
    first_row: dict[tuple[str, int], int] = {}
    worker_type = ctx.assumed_worker_type
    for row, (job_type, gpus, seconds) in enumerate(
        zip(job_types, scale_factor, iteration_s, strict=True), start=1
    ):
        speeds = table.setdefault(job_type, {}).setdefault(worker_type, {})
        key = (job_type, int(gpus))
        speed = 1.0 / float(seconds)
        if key in first_row and speeds[int(gpus)] != speed:
            raise TraceError(
                f"{job_type!r} on {int(gpus)} GPUs has iteration time "
                f"{seconds * MS_PER_S:g} ms here but {1000.0 / speeds[int(gpus)]:g} ms in row "
                f"{first_row[key]}; a job type runs at one measured speed per GPU count",
                file=ctx.file, row=row, column="iteration_time",
            )  # fmt: skip
        first_row.setdefault(key, row)
        speeds[int(gpus)] = speed
    return ThroughputMatrix(table)


def speeds_note(measured: ThroughputMatrix, worker_type: str) -> str:
    """Where the speeds came from, for the user: the trace's measured iteration times."""
    models = sorted({job_type.split(" (batch size")[0] for job_type in measured.table})
    pairs = len(measured.to_frame())
    return (
        f"Speeds from the trace: its measured iteration times (iteration_time, ms per "
        f"iteration) give {pairs} (model, GPUs) throughputs for {len(models)} models "
        f"({', '.join(models)}), taken as measured on {worker_type} (the trace setting "
        f'"{rules.SPEEDS_MEASURED_ON}"; Muri\'s testbed measured them on V100s); these jobs run '
        f"on {worker_type} GPUs only and no speed is drawn; submit times and durations read as "
        "milliseconds"
    )

"""Microsoft Philly jobs, Pollux CSV cut: ``timestamp,duration,num_gpus,gpu_time,cluster``.

Source: Jeon et al., "Analysis of Large-Scale Multi-Tenant GPU Clusters for DNN Training
Workloads", ATC '19 (https://github.com/msr-fiddle/philly-traces, CC BY 4.0), as cut by the Pollux
authors (petuum/adaptdl ``simulator/traces/philly.csv``). ``timestamp`` is the submit time
(``YYYY-MM-DD HH:MM:SS``), ``duration`` the run time in seconds summed over attempts, ``num_gpus``
the job's GPU count. ``gpu_time`` and ``cluster`` are not used.

Philly records neither the model nor the GPU type, so job types and step counts follow rules 1
and 3 of `engine.traces.rules`. Arrivals are shifted so the first submit is at 0 s; job ids are
``philly-<data row>``.
"""

from __future__ import annotations

from engine.traces import rules
from engine.traces.reading import number_column, time_column
from engine.traces.registry import FORMATS, LoadContext, Loaded, TraceFormat, header_columns
from engine.traces.validate import build_jobs, numbered_ids

REQUIRED = ["timestamp", "duration", "num_gpus"]


def _detect(line: str) -> bool:
    return set(REQUIRED) <= header_columns(line)


def load_philly(text: str, ctx: LoadContext) -> Loaded:
    """Imports a Philly CSV; see the module docstring for the columns and rules.

    Returns:
        The canonical jobs table (one row per CSV row) and notes on the assumptions.

    Raises:
        TraceError: naming the file, row and column of the first bad value.
    """
    raw = rules.read_csv_for_assumed_type(
        text, ctx.file, REQUIRED, "philly", ctx.matrix, ctx.assumed_worker_type
    )
    arrival_s = time_column(raw["timestamp"], ctx.file, "timestamp")
    duration_s = number_column(raw["duration"], ctx.file, "duration")
    scale_factor = number_column(raw["num_gpus"], ctx.file, "num_gpus", integer=True)
    job_type = rules.draw_job_types(
        scale_factor, ctx.matrix, ctx.assumed_worker_type, ctx.rng, ctx.file
    )
    steps = ctx.steps_from_duration(job_type, scale_factor, duration_s)
    jobs = build_jobs(
        ctx.file,
        ctx.matrix,
        job_id=numbered_ids("philly", len(raw)),
        arrival_s=arrival_s,
        job_type=job_type,
        scale_factor=scale_factor,
        total_steps=steps,
        duration_s=duration_s,
        columns={"scale_factor": "num_gpus", "duration_s": "duration"},
    )
    notes = (
        rules.assumed_type_note("Philly", ctx.assumed_worker_type),
        rules.drawn_types_note("Philly", ctx.matrix, ctx.assumed_worker_type),
    )
    return Loaded(jobs, notes)


FORMATS.register(
    "philly",
    TraceFormat(
        description="Microsoft Philly (Pollux CSV cut)",
        detect=_detect,
        load=load_philly,
        detect_order=60,
        draws_job_types=True,
    ),
)

"""Tiresias traces: ``job_id,num_gpu,submit_time,iterations,model_name,duration,interval``.

Source: Gu et al., "Tiresias: A GPU Cluster Manager for Distributed Deep Learning", NSDI '19
(https://github.com/SymbioticLab/Tiresias, Apache-2.0), ``simulator/*.csv``. ``submit_time`` is
seconds from the trace start (kept as is), ``duration`` seconds. ``model_name`` (vgg19, resnet50,
inception3, ...) maps to a Gavel job type by rule 2 of `engine.traces.rules`, steps follow rule 3;
``iterations`` and ``interval`` are not used.
"""

from __future__ import annotations

from engine.traces import rules
from engine.traces.reading import number_column, text_column
from engine.traces.registry import FORMATS, LoadContext, Loaded, TraceFormat, header_columns
from engine.traces.validate import build_jobs

REQUIRED = ["job_id", "num_gpu", "submit_time", "model_name", "duration"]


def _detect(line: str) -> bool:
    columns = header_columns(line)  # Muri's format adds measured iteration times in ms
    return {*REQUIRED, "iterations"} <= columns and "iteration_time" not in columns


def load_tiresias(text: str, ctx: LoadContext) -> Loaded:
    """Imports a Tiresias CSV; see the module docstring for the columns and rules.

    Raises:
        TraceError: naming the file, row and column of the first bad value or unknown model.
    """
    raw = rules.read_csv_for_assumed_type(
        text, ctx.file, REQUIRED, "tiresias", ctx.matrix, ctx.assumed_worker_type
    )
    models = text_column(raw["model_name"], ctx.file, "model_name")
    job_types = rules.map_model_names(models, ctx.file, "model_name")
    duration_s = number_column(raw["duration"], ctx.file, "duration")
    scale_factor = number_column(raw["num_gpu"], ctx.file, "num_gpu", integer=True)
    jobs = build_jobs(
        ctx.file,
        ctx.matrix,
        job_id=text_column(raw["job_id"], ctx.file, "job_id"),
        arrival_s=number_column(raw["submit_time"], ctx.file, "submit_time", minimum=">=0"),
        job_type=job_types,
        scale_factor=scale_factor,
        total_steps=ctx.steps_from_duration(job_types, scale_factor, duration_s, "model_name"),
        duration_s=duration_s,
        columns={"scale_factor": "num_gpu", "job_type": "model_name", "duration_s": "duration"},
    )
    notes = (
        rules.assumed_type_note("Tiresias", ctx.assumed_worker_type),
        "Tiresias: " + rules.MAPPED_NOTE + "; the iterations column is ignored",
    )
    return Loaded(jobs, notes)


FORMATS.register(
    "tiresias",
    TraceFormat(
        description="Tiresias simulator CSV", detect=_detect, load=load_tiresias, detect_order=80
    ),
)

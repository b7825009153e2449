"""Pollux workloads: ``name,time,application,num_replicas,batch_size``.

Source: Qiao et al., "Pollux: Co-adaptive Cluster Scheduling for Goodput-Optimized Deep
Learning", OSDI '21 (https://github.com/petuum/adaptdl, branch ``osdi21-artifact``, Apache-2.0),
``simulator/workloads/*.csv``; arrival times sampled from Philly (CC BY 4.0). ``time`` is the
arrival in seconds (kept as is), ``num_replicas`` the GPU count at submission; ``batch_size`` is
not used (Pollux adapts it).

The workloads record no duration: each application gets a fixed amount of work (rule 4 of
`engine.traces.rules`), its model maps to a Gavel job type by rule 2, and steps follow rule 3.
"""

from __future__ import annotations

import numpy as np

from engine.errors import TraceError
from engine.traces import rules
from engine.traces.reading import number_column, text_column
from engine.traces.registry import FORMATS, LoadContext, Loaded, TraceFormat, header_columns
from engine.traces.validate import build_jobs

REQUIRED = ["name", "time", "application", "num_replicas"]


def _detect(line: str) -> bool:
    return set(REQUIRED) <= header_columns(line)


def load_pollux(text: str, ctx: LoadContext) -> Loaded:
    """Imports a Pollux workload CSV; see the module docstring for the columns and rules.

    Raises:
        TraceError: naming the file, row and column of the first bad value or unknown application.
    """
    raw = rules.read_csv_for_assumed_type(
        text, ctx.file, REQUIRED, "pollux", ctx.matrix, ctx.assumed_worker_type
    )
    applications = text_column(raw["application"], ctx.file, "application")
    scale_factor = number_column(raw["num_replicas"], ctx.file, "num_replicas", integer=True)
    job_types = rules.map_model_names(applications, ctx.file, "application")
    duration_s = _reference_duration_s(applications, scale_factor, ctx.file)
    jobs = build_jobs(
        ctx.file,
        ctx.matrix,
        job_id=text_column(raw["name"], ctx.file, "name"),
        arrival_s=number_column(raw["time"], ctx.file, "time", minimum=">=0"),
        job_type=job_types,
        scale_factor=scale_factor,
        total_steps=ctx.steps_from_duration(job_types, scale_factor, duration_s, "application"),
        duration_s=np.full(len(raw), np.nan),
        columns={"job_id": "name", "scale_factor": "num_replicas", "job_type": "application"},
    )
    hours = ", ".join(f"{app} {h:g}" for app, h in rules.POLLUX_GPU_HOURS.items())
    notes = (
        rules.assumed_type_note("Pollux", ctx.assumed_worker_type),
        "Pollux workloads have no durations; each application was given a fixed amount of "
        f"work in GPU-hours on {ctx.assumed_worker_type} ({hours}), after the size classes of "
        "the Pollux paper",
        "Pollux: " + rules.MAPPED_NOTE,
    )
    return Loaded(jobs, notes)


FORMATS.register(
    "pollux",
    TraceFormat(
        description="Pollux workload CSV (adaptdl)",
        detect=_detect,
        load=load_pollux,
        detect_order=70,
    ),
)


def _reference_duration_s(
    applications: list[str], scale_factor: np.ndarray, file: str
) -> np.ndarray:
    out = np.empty(len(applications), dtype=np.float64)
    for i, app in enumerate(applications):
        hours = rules.POLLUX_GPU_HOURS.get(app.lower())
        if hours is None:
            raise TraceError(
                f"no amount of work is known for application {app!r}; known: "
                f"{', '.join(rules.POLLUX_GPU_HOURS)}",
                file=file,
                row=i + 1,
                column="application",
            )
        out[i] = hours * 3600.0 / scale_factor[i]
    return out

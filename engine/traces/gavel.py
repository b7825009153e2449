"""Gavel ``.trace`` files: headerless, tab-separated, one job per line.

Source: Narayanan et al., "Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning
Workloads", OSDI 2020 (https://github.com/stanford-futuredata/gavel, MIT), ``scheduler/traces``.
Two layouts (the command-line fields are not used):

- current, 10 fields: job_type, command, working_directory, num_steps_arg, needs_data_dir,
  total_steps, scale_factor, priority_weight, SLO, arrival_time (s).
- legacy, 7 fields (e.g. ``traces/msr/seed=0/*.trace``): job_type, command, num_steps_arg,
  needs_data_dir, total_steps, arrival_time (s), scale_factor; priority weight 1.

Job types are Gavel's own and must be in the throughput matrix. Arrival times are kept as they
are (seconds from the trace start); job ids are ``gavel-<line>``; ``duration_s`` is unknown (NaN).
"""

from __future__ import annotations

import pandas as pd

from engine.errors import TraceError
from engine.traces.reading import check_row_widths, number_column, text_column
from engine.traces.registry import FORMATS, LoadContext, Loaded, TraceFormat
from engine.traces.validate import build_jobs, numbered_ids

CURRENT = ("job_type", "command", "working_directory", "num_steps_arg", "needs_data_dir",
           "total_steps", "scale_factor", "priority_weight", "SLO", "arrival_time")  # fmt: skip
LEGACY = ("job_type", "command", "num_steps_arg", "needs_data_dir", "total_steps",
          "arrival_time", "scale_factor")  # fmt: skip
_LAYOUTS = {len(CURRENT): CURRENT, len(LEGACY): LEGACY}


def _detect(line: str) -> bool:
    fields = line.split("\t")
    layout = _LAYOUTS.get(len(fields))
    return layout is not None and fields[layout.index("total_steps")].strip().isdigit()


def load_gavel(text: str, ctx: LoadContext) -> Loaded:
    """Imports a Gavel ``.trace``; the layout is chosen by the first line's field count.

    Raises:
        TraceError: for a line with a different field count, a bad number, or an unknown job
            type (naming the file, 1-based line and field name).
    """
    raw = _split_lines(text, ctx.file)
    legacy = len(raw.columns) == len(LEGACY)
    priority = None
    if not legacy:
        priority = number_column(raw["priority_weight"], ctx.file, "priority_weight")
    jobs = build_jobs(
        ctx.file,
        ctx.matrix,
        job_id=numbered_ids("gavel", len(raw)),
        arrival_s=number_column(raw["arrival_time"], ctx.file, "arrival_time", minimum=">=0"),
        job_type=text_column(raw["job_type"], ctx.file, "job_type"),
        scale_factor=number_column(raw["scale_factor"], ctx.file, "scale_factor", integer=True),
        total_steps=number_column(raw["total_steps"], ctx.file, "total_steps"),
        priority_weight=priority,
    )
    notes: tuple[str, ...] = (
        ("legacy 7-field Gavel trace: priority weight 1 for every job",) if legacy else ()
    )
    if not legacy and (number_column(raw["SLO"], ctx.file, "SLO", minimum="") > 0).any():
        notes += ("the trace's SLO column is ignored",)
    return Loaded(jobs, notes)


FORMATS.register(
    "gavel",
    TraceFormat(
        description="Gavel .trace (10-field or legacy 7-field)",
        detect=_detect,
        load=load_gavel,
        uses_assumed_worker_type=False,
        has_header=False,
        detect_order=10,  # headerless: its field count, not a header, decides
        suffixes=("trace", "txt"),
    ),
)


def _split_lines(text: str, file: str) -> pd.DataFrame:
    lines = [line.rstrip("\r") for line in text.splitlines() if line.strip()]
    rows = [line.split("\t") for line in lines]
    layout = _LAYOUTS.get(len(rows[0]))
    if layout is None:
        raise TraceError(
            f"expected {len(CURRENT)} (current) or {len(LEGACY)} (legacy) tab-separated "
            f"fields, found {len(rows[0])}",
            file=file,
            row=1,
        )
    check_row_widths(rows, len(layout), file, f"{len(layout)} tab-separated fields like line 1")
    return pd.DataFrame(rows, columns=list(layout), dtype=object)

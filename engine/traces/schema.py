"""The canonical jobs table every importer produces and the simulator consumes.

One row per job, sorted by ``arrival_s`` then ``job_id``:

| column          | dtype   | meaning                                                        |
|-----------------|---------|----------------------------------------------------------------|
| job_id          | str     | unique id                                                      |
| arrival_s       | float   | submit time, seconds from the trace start (>= 0)               |
| job_type        | str     | job type of the throughput matrix, e.g. "ResNet-50 (batch size 64)" |
| scale_factor    | int     | GPUs the gang-scheduled job needs (>= 1)                       |
| total_steps     | float   | training steps to run (> 0), in the throughput matrix's units  |
| priority_weight | float   | weight (> 0), default 1                                        |
| duration_s      | float   | duration observed in the trace, NaN when unknown               |
| source_row      | int     | 1-based data row in the source file, for error messages        |

Two optional columns follow, present only when the trace gives teams (a canonical CSV's ``queue``
or ``priority`` column, or ``TraceSpec.team_column``); without them the table is exactly the
columns above:

| column          | dtype   | meaning                                                        |
|-----------------|---------|----------------------------------------------------------------|
| queue           | str     | the job's team: a Kueue LocalQueue name ("" names none)        |
| priority        | int     | Kueue's workload priority, higher first (default 0)            |
"""

from __future__ import annotations

JOB_COLUMNS: tuple[str, ...] = (
    "job_id",
    "arrival_s",
    "job_type",
    "scale_factor",
    "total_steps",
    "priority_weight",
    "duration_s",
    "source_row",
)

# Dtypes of the canonical table (pandas 3 names; "str" is pandas' default string dtype).
JOB_DTYPES: dict[str, str] = {
    "job_id": "str",
    "arrival_s": "float64",
    "job_type": "str",
    "scale_factor": "int64",
    "total_steps": "float64",
    "priority_weight": "float64",
    "duration_s": "float64",
    "source_row": "int64",
}

# Optional columns (teams and quotas, `engine.quota`): added after the columns above, in this order.
OPTIONAL_JOB_COLUMNS: tuple[str, ...] = ("queue", "priority")
OPTIONAL_JOB_DTYPES: dict[str, str] = {"queue": "str", "priority": "int64"}

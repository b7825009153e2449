"""Which GPU types a plan should not buy: those that run none of the trace's jobs.

A job of type J and S GPUs runs on worker type W only at a positive rate there at S GPUs
(``ThroughputMatrix.steps_per_s``, the rate :func:`engine.jobs.job_states` gives it). A type on
which every job of the trace has rate 0 (for example MI300X on the MLPerf matrix for an LLM
mix whose benchmarks have no MI300X result) adds cost and no capacity any job could use, so
the Planner does not offer it (issue 38 point 3) [R]. The jobs are one seed's draw; for a
format that draws job types from sizes (rule 1) another seed may differ, which this does not
check.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from engine.step_time.throughput import ThroughputMatrix


def idle_types(jobs: pd.DataFrame, matrix: ThroughputMatrix, types: Iterable[str]) -> list[str]:
    """The types of ``types`` (in order) on which no job of ``jobs`` runs.

    Args:
        jobs: a canonical jobs table (columns ``job_type`` and ``scale_factor``, GPUs).
        matrix: the scenario's matrix with the trace's own speeds merged in.
        types: worker type names.

    Returns:
        The worker types with ``steps_per_s == 0`` for every (job type, size) of ``jobs``.
    """
    shapes = set(zip(jobs["job_type"], jobs["scale_factor"].astype(int), strict=True))
    return [wt for wt in types
            if not any(matrix.steps_per_s(jt, wt, sf) > 0 for jt, sf in shapes)]  # fmt: skip

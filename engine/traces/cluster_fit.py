"""Jobs larger than the cluster: rejected, or dropped and counted.

A job is *larger than the cluster* when its scale factor exceeds the GPU count
(``ClusterSpec.capacity()``) of every worker type it can run on (``ThroughputMatrix.fits``), so no
placement could ever start it; this includes a job whose type runs on none of the cluster's worker
types (an MLPerf benchmark with no result on them), and the message then names both.
Such a job would wait forever and distort every metric.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from engine.config import ClusterSpec
from engine.errors import OversizedJobsError
from engine.step_time.throughput import ThroughputMatrix


def largest_fit_gpus(job_type: str, cluster: ClusterSpec, matrix: ThroughputMatrix) -> int:
    """GPUs of the largest worker type pool in ``cluster`` that ``job_type`` runs on (0 if none)."""
    capacity = cluster.capacity()
    return max((gpus for wt, gpus in capacity.items() if matrix.fits(job_type, wt)), default=0)


def check_cluster_fit(
    jobs: pd.DataFrame,
    cluster: ClusterSpec,
    matrix: ThroughputMatrix,
    drop_oversized: bool,
    *,
    file: str = "",
) -> tuple[pd.DataFrame, list[str]]:
    """Finds jobs larger than the cluster; drops them or raises.

    Args:
        jobs: a canonical jobs table.
        drop_oversized: True drops the oversized jobs; False raises if there is any.
        file: the trace's file name, for the error message.

    Returns:
        The jobs that fit (index reset, order kept) and the ids of the dropped jobs.

    Raises:
        OversizedJobsError: if ``drop_oversized`` is False and some job is too large; names the
            first such job by source row, and how many jobs are affected.
    """
    codes, job_types = pd.factorize(jobs["job_type"])  # each job type looked up once
    limits = {jt: largest_fit_gpus(jt, cluster, matrix) for jt in job_types}
    oversized = jobs["scale_factor"] > np.asarray(list(limits.values()))[codes]
    if not oversized.any():
        return jobs, []
    bad = jobs[oversized]
    if not drop_oversized:
        first = bad.sort_values("source_row", kind="mergesort").iloc[0]
        if limits[first["job_type"]] == 0:
            why = (
                f"the first, job {first['job_id']!r}, is of job type {first['job_type']!r}, which "
                f"has no throughput on {', '.join(cluster.capacity())} (the cluster's GPU types): "
                "it does not run there"
            )
        else:
            why = (
                f"the first, job {first['job_id']!r}, needs {first['scale_factor']} GPUs but at "
                f"most {limits[first['job_type']]} are available"
            )
        raise OversizedJobsError(
            f"{len(bad)} job(s) need more GPUs than the cluster has of any GPU type they run on; "
            f"{why}. Drop oversized jobs or add GPUs.",
            file=file,
            job_ids=[str(j) for j in bad["job_id"]],
            row=int(first["source_row"]),
        )
    return jobs[~oversized].reset_index(drop=True), [str(j) for j in bad["job_id"]]

"""The result of a finished run: its job states and books turned into result tables.

Both event loops (:mod:`engine.event_loop`, :mod:`engine.lease_rounds`) end here. The tables and
their columns are :mod:`engine.results`'; the summary metrics :func:`engine.metrics.summarize`'s.
"""

from __future__ import annotations

import numpy as np

from engine.decision_log import DecisionLog
from engine.errors import EngineError
from engine.jobs import isolated_run_s
from engine.metrics import summarize
from engine.metrics_sharing import HOST_COLUMN, SHARING_COLUMN, host_jobs, slowdown_from_sharing
from engine.recorder import Recorder, jobs_table
from engine.results import SimulationResult
from engine.state import JobState


def simulation_result(
    policy: str,
    jobs: list[JobState],
    capacity: dict[str, int],
    recorder: Recorder,
    area_at_end: np.ndarray,
    *,
    node_failures: int | None,
    num_decisions: int,
    decision_time_s: float,
    log: DecisionLog | None,
) -> SimulationResult:
    """The result tables of a run in which every job completed.

    Args:
        policy: the policy's display name.
        jobs: every job of the trace, in trace order, each completed.
        capacity: GPUs per worker type of the whole cluster (failed and spare nodes included):
            the mix each job's isolated run time and finish-time fairness are measured on.
        recorder: the run's segments and utilization.
        area_at_end: per job, the integral of the number of jobs in the system (job-seconds)
            up to its completion.
        node_failures: failures of schedulable nodes (rack failures count each node); None
            when the scenario has failures off (then the summary has no failure metrics).
        num_decisions: times the policy was asked.
        decision_time_s: wall time spent in the policy's ``allocate``.
        log: the decision log, when the run kept one.

    Raises:
        EngineError: a job never completed (naming up to three of them).
    """
    unfinished = [job.job_id for job in jobs if job.completion_s is None]
    if unfinished:
        raise EngineError(
            f"{policy}: {len(unfinished)} job(s) never completed, e.g. {unfinished[:3]}"
        )
    isolated_s = isolated_run_s(jobs, capacity)
    table = jobs_table(jobs, isolated_s, area_at_end, sum(capacity.values()))
    if recorder.shared_s:  # some job shared GPUs (engine.sharing): its slowdown
        table[SHARING_COLUMN] = slowdown_from_sharing(
            len(jobs), recorder.shared_s, recorder.shared_exclusive_s
        )
    segments = recorder.segments_table([job.job_id for job in jobs])
    utilization = recorder.utilization_table()
    if recorder.shared_s:  # whose GPUs each shared segment ran on (a guest's host; "" its own)
        segments[HOST_COLUMN] = host_jobs(segments, jobs, recorder.hosts)
    summary = summarize(table, utilization, failures=node_failures is not None)
    if node_failures is not None:
        summary["node_failures"] = float(node_failures)
    return SimulationResult(
        policy=policy,
        jobs=table,
        segments=segments,
        utilization=utilization,
        summary=summary,
        num_decisions=num_decisions,
        decision_time_s=decision_time_s,
        decisions=log.table() if log else None,
    )

"""The engine's entry point: :func:`simulate` runs one policy over a jobs table.

It picks the loop the policy declares (:attr:`engine.policies.base.Policy.lease_rounds`): the
engine's event loop (:mod:`engine.event_loop`), or, under Gavel's simulator rules, Gavel's round
loop of leases (:mod:`engine.lease_rounds`), which drives the event loop's parts in its own
order. Imports point one way: this module imports both loops, and neither imports it.
"""

from __future__ import annotations

import pandas as pd

from engine.config import PolicySpec, ScenarioConfig
from engine.decision_log import DecisionLog
from engine.errors import ConfigError
from engine.event_loop import CancelFn, ProgressFn, Simulation
from engine.jobs import gc_paused
from engine.lease_rounds import LeaseRounds
from engine.policies.base import get_policy
from engine.quota.gate import QuotaPolicy
from engine.quota.results import annotate
from engine.results import SimulationResult
from engine.step_time.throughput import ThroughputMatrix

__all__ = ["DECISION_LOG_MAX_JOBS", "CancelFn", "ProgressFn", "Simulation", "simulate"]


def simulate(
    jobs: pd.DataFrame,
    config: ScenarioConfig,
    policy: PolicySpec,
    matrix: ThroughputMatrix,
    *,
    on_progress: ProgressFn | None = None,
    should_cancel: CancelFn | None = None,
    record_segments: bool = True,
    decision_log: bool | None = None,
    stage_rows: pd.DataFrame | None = None,
    trace_file: str = "",
) -> SimulationResult:
    """Runs one policy over a validated jobs table (see :mod:`engine.traces.schema`).

    ``record_segments=False`` skips the Gantt rows (the result's ``segments`` table is empty);
    every other table and metric is unchanged. ``decision_log``: record why each job waited
    and what moved it (:mod:`engine.decision_log`, ``SimulationResult.decisions``); False skips
    it; None (the default) records it for traces of at most :data:`DECISION_LOG_MAX_JOBS` jobs.
    ``stage_rows``: the trace's per-stage iteration times and ``trace_file`` its name
    (:attr:`engine.traces.resolve.TraceLoad.stage_rows`), for a policy that shares GPUs under
    the interleaving model (:mod:`engine.sharing`).

    Returns:
        The result tables; identical for identical inputs (the policies' rng is seeded by
        ``config.seed``; failures, when on, draw from a generator of their own). Under
        ``config.rounds.gavel_rules``, a policy that declares ``lease_rounds`` (Gavel's family)
        runs in Gavel's round loop of leases (:mod:`engine.lease_rounds`).

    Raises:
        AllocationError: the policy granted GPUs that do not exist.
        SimulationCancelled: ``should_cancel()`` returned True.
    """
    if config.queues is not None and (config.rounds.gavel_rules or config.failures.enabled):
        raise ConfigError(
            "queues and quotas run in the engine's event loop without failures: turn off "
            "Gavel's simulator rules and failures, or remove the queues"
        )
    lease_rounds = config.rounds.gavel_rules and get_policy(policy.name).lease_rounds
    if decision_log is None:
        decision_log = len(jobs) <= DECISION_LOG_MAX_JOBS
    with gc_paused():  # building, running and tabulating make no reference cycles
        log = DecisionLog() if decision_log else None
        sim = Simulation(jobs, config, policy, matrix, stage_rows, trace_file, log)
        sim.recorder.keep_segments = record_segments
        if lease_rounds:
            result = LeaseRounds(sim).run(on_progress, should_cancel)
        else:
            result = sim.run(on_progress, should_cancel)
    quota = sim.policy
    if isinstance(quota, QuotaPolicy):  # the per-team columns and usage (engine.quota)
        result = annotate(result, quota)
    return result


DECISION_LOG_MAX_JOBS = 5_000
"""Largest trace whose decision log :func:`simulate` records unless asked. A waiting job gets a
row whenever its reason flips between "no room" and "lower priority", so the log grows with the
queue's length times the number of free-GPU changes: 517,021 rows for 6,000 Philly jobs under
FIFO, and past 8 GB of memory two thirds into the full 82,247-job trace (measured on this engine,
November 2026). The bound is our choice [R]: the shipped samples (2,000 jobs) keep their log."""

"""Builders for the Kueue conformance tests: tiny clusters, jobs with queues and priorities,
and a run that reports, right after an instant, which jobs run, wait and were evicted."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from engine.config import PolicySpec, RoundConfig, ScenarioConfig
from engine.quota.model import (
    ClusterQueue,
    Cohort,
    FlavorQuota,
    LocalQueue,
    Preemption,
    QueueConfig,
)
from engine.results import SimulationResult
from engine.simulator import simulate
from engine.step_time.throughput import load_matrix
from tests.engine.helpers import RESNET50, cluster

MATRIX = load_matrix()
RATE = {wt: MATRIX.steps_per_s(RESNET50, wt, 1) for wt in ("v100", "p100", "k80")}
"""ResNet-50 (bs 64) steps/s on one GPU of each type; a job of d x RATE steps runs d seconds."""


@dataclass(frozen=True)
class J:
    """A job: id, arrival (s), GPUs, queue, priority, seconds of work on one V100."""

    job_id: str
    arrival_s: float
    gpus: int
    queue: str
    priority: int = 0
    work_s: float = 1000.0


def jobs_table(*jobs: J) -> pd.DataFrame:
    """A canonical jobs table with ``queue`` and ``priority`` columns. A job's steps are its
    V100 seconds at its size's V100 rate, so it runs ``work_s`` seconds on V100s."""
    return pd.DataFrame({
        "job_id": [j.job_id for j in jobs],
        "arrival_s": [float(j.arrival_s) for j in jobs],
        "job_type": [RESNET50] * len(jobs),
        "scale_factor": [j.gpus for j in jobs],
        "total_steps": [j.work_s * MATRIX.steps_per_s(RESNET50, "v100", j.gpus) for j in jobs],
        "priority_weight": [1.0] * len(jobs),
        "duration_s": [math.nan] * len(jobs),
        "source_row": list(range(1, len(jobs) + 1)),
        "queue": [j.queue for j in jobs],
        "priority": pd.array([j.priority for j in jobs], dtype="int64"),
    })  # fmt: skip


def cq(
    name: str,
    *quotas: tuple[str, int] | tuple[str, int, int | None, int | None],
    cohort: str = "",
    strategy: str = "BestEffortFIFO",
    within: str = "Never",
    reclaim: str = "Never",
    borrow_within: str = "Never",
    threshold: int | None = None,
    when_can_borrow: str = "MayStopSearch",
    when_can_preempt: str = "TryNextFlavor",
) -> ClusterQueue:
    """A ClusterQueue from (flavor, nominal[, borrowingLimit, lendingLimit]) quotas."""
    flavors = tuple(
        FlavorQuota(q[0], q[1], *(q[2:] if len(q) > 2 else (None, None)))  # type: ignore[arg-type]
        for q in quotas
    )
    return ClusterQueue(
        name, flavors, cohort, strategy,
        Preemption(within, reclaim, borrow_within, threshold),
        when_can_borrow, when_can_preempt,
    )  # fmt: skip


def config(*queues: ClusterQueue, cohorts: tuple[Cohort, ...] = ()) -> QueueConfig:
    """The queues, each with a LocalQueue of its own name."""
    return QueueConfig(
        cluster_queues=queues,
        cohorts=cohorts,
        local_queues=tuple(LocalQueue(q.name, q.name) for q in queues),
    )


def run(
    queues: QueueConfig,
    jobs: pd.DataFrame,
    gpus: dict[str, int],
    policy: str = "fifo",
) -> SimulationResult:
    """Runs ``jobs`` under ``queues`` on one node per worker type of ``gpus`` GPUs each
    (ratios of 1 node x n GPUs), no restore cost."""
    spec = cluster(*((wt, 1, n, "r0") for wt, n in gpus.items()))
    scenario = ScenarioConfig(
        cluster=spec, rounds=RoundConfig(checkpoint_restore_s=0.0), queues=queues,
        policies=(PolicySpec(policy),),
    )  # fmt: skip
    return simulate(jobs, scenario, scenario.policies[0], MATRIX)


def running_at(result: SimulationResult, t: float) -> set[str]:
    """Jobs holding GPUs just after instant ``t`` (a segment [start, end) covering t)."""
    seg = result.segments
    on = seg[(seg["start_s"] <= t) & (seg["end_s"] > t)]
    return set(on["job_id"].astype(str))


def evicted_at(result: SimulationResult, t: float) -> dict[str, str]:
    """Job -> Kueue's reason of every eviction at instant ``t`` (an evicted job that Kueue
    admits again at once on another flavor shows as "migrated")."""
    seg = result.segments
    out = seg[(seg["end_s"] == t) & seg["end_reason"].isin(["preempted", "migrated"])]
    assert (out["preemption_reason"] != "").all(), "a preemption without Kueue's reason"
    return dict(zip(out["job_id"].astype(str), out["preemption_reason"], strict=True))


def flavor_at(result: SimulationResult, job_id: str, t: float) -> str:
    """The worker type ``job_id`` holds just after ``t``."""
    seg = result.segments
    on = seg[(seg["job_id"] == job_id) & (seg["start_s"] <= t) & (seg["end_s"] > t)]
    return str(on["worker_type"].iloc[0])

"""Result tables of a simulation: tidy DataFrames plus the spec or config that made them.

:class:`RunResult` is one run of :func:`engine.scenario.run` (one policy, carrying its
:class:`engine.study.spec.RunSpec`); :class:`ComparisonResult` puts a scenario's runs side by side.

Tables of one :class:`SimulationResult` (one policy):

- ``jobs``: one row per job. Columns: job_id, arrival_s, job_type, scale_factor, total_steps,
  priority_weight, first_start_s, completion_s, jct_s, queueing_delay_s, run_time_s,
  num_preemptions, comm_overhead (share of step time spent communicating, 0..1),
  attained_service_gpu_s, attained_service_ref_gpu_s (GPU-seconds weighted by each type's
  one-GPU speed relative to the slowest type that fits the job), gpus_held_per_requested
  (ratio: GPUs held, time-weighted over run_time_s, over the scale factor; above 1 when an
  elastic policy grew the job or forked it into copies, below 1 when it shrank it; 0 for a job
  that never ran), isolated_jct_s, ftf_rho,
  network_sensitivity (iteration time across racks over node-local, see
  :func:`engine.step_time.network.network_sensitivity`), consolidation_wait_s (time waiting while
  the policy
  held the job back for a better consolidated placement), main_worker_type (where it got most
  GPU-seconds), num_failures (times a failed node stopped it), lost_work_gpu_s (GPU-seconds of
  work those failures lost: the time since its last checkpoint x its GPUs), checkpoint_gpu_s
  (GPU-seconds spent writing checkpoints); the last three are 0 without failures
  (:mod:`engine.faults`).
- ``segments``: one row per contiguous stretch a job held the same GPUs (the Gantt bars).
  Columns: job_id, start_s, end_s, worker_type, num_gpus, nodes (e.g. "n3,n4"), racks,
  level ("node" | "rack" | "network"), end_reason ("completed" | "preempted" | "migrated" |
  "relaunched": the job restarted on the same GPUs, ``RoundConfig.relaunch_on_event`` |
  "failed": a node it held failed),
  lane, combine, node_gpus (GPUs on each of ``nodes``, e.g. "8,4"). The first ``restore_s``
  seconds of a segment are checkpoint-restore time (no progress). A job holding several copies
  (HadarE) or several worker types at once has one row per lane (copy or type) for the same
  stretch, numbered from 0; ``combine`` says how the lanes work together (see
  :mod:`engine.step_time.progress`).
- ``utilization``: a step function per worker type: from ``time_s`` until the next row of the
  same worker type, ``busy_gpus`` of ``capacity_gpus`` GPUs were allocated. Columns: time_s,
  worker_type, busy_gpus, capacity_gpus, utilization.
- ``summary``: metric name -> value (see :func:`engine.metrics.summarize`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

from engine.config import ScenarioConfig
from engine.metrics import arrival_utilization

if TYPE_CHECKING:
    from engine.study.spec import RunSpec

JOB_RESULT_COLUMNS = (
    "job_id", "arrival_s", "job_type", "scale_factor", "total_steps", "priority_weight",
    "first_start_s", "completion_s", "jct_s", "queueing_delay_s", "run_time_s",
    "num_preemptions", "comm_overhead", "attained_service_gpu_s", "attained_service_ref_gpu_s",
    "gpus_held_per_requested", "isolated_jct_s", "ftf_rho", "network_sensitivity",
    "consolidation_wait_s", "main_worker_type", "num_failures", "lost_work_gpu_s",
    "checkpoint_gpu_s",
)  # fmt: skip
SEGMENT_COLUMNS = (
    "job_id", "start_s", "end_s", "restore_s", "worker_type", "num_gpus", "nodes", "racks",
    "level", "end_reason", "lane", "combine", "node_gpus",
)  # fmt: skip
UTILIZATION_COLUMNS = ("time_s", "worker_type", "busy_gpus", "capacity_gpus", "utilization")


@dataclass(frozen=True)
class SimulationResult:
    """What one policy did on one scenario.

    Attributes:
        policy: the policy's display name (unique within a comparison).
        jobs, segments, utilization: tables described in the module docstring.
        summary: metric name -> value, e.g. ``{"jct_mean_s": 5021.3, "makespan_s": ...}``.
        num_decisions: scheduling decisions (policy calls) made.
        decision_time_s: wall time spent inside the policy, summed over decisions.
        decisions: the decision log (:mod:`engine.decision_log`), or None when switched off.
        quota_usage: under queues, GPUs in use per ClusterQueue and worker type over time
            (:mod:`engine.quota.results`); None without queues.
    """

    policy: str
    jobs: pd.DataFrame
    segments: pd.DataFrame
    utilization: pd.DataFrame
    summary: dict[str, float]
    num_decisions: int = 0
    decision_time_s: float = 0.0
    decisions: pd.DataFrame | None = None
    quota_usage: pd.DataFrame | None = None


@dataclass(frozen=True)
class RunResult:
    """One finished run: the spec that made it and what it gave.

    Attributes:
        spec: what ran (the scenario with its one policy, the seeds, the trace's SHA-256 and
            what was recorded); the same spec gives the same result, bit for bit, wherever it
            runs (only ``decision_time_s``, a wall time, differs).
        simulation: the policy's tables and KPIs (:class:`SimulationResult`); its segments are
            empty and its decision log None unless ``spec.record == "full"``.
        usage: ``jobs_dropped`` (jobs larger than the cluster, dropped), ``num_decisions`` and,
            per worker type, ``gpu_h:<type>`` (allocated GPU-hours over the run) and
            ``capacity_gpus:<type>`` (the GPU mix), from which `engine.study.cost` prices it.
        notes: trace notes (assumptions, load, drops).
        dropped_job_ids: jobs dropped as larger than the cluster.
    """

    spec: RunSpec
    simulation: SimulationResult
    usage: dict[str, float]
    notes: tuple[str, ...] = ()
    dropped_job_ids: tuple[str, ...] = ()

    @property
    def summary(self) -> dict[str, float]:
        """The KPIs of :func:`engine.metrics.summarize` followed by :attr:`usage`."""
        return {**self.simulation.summary, **self.usage}

    @property
    def jobs(self) -> pd.DataFrame:
        return self.simulation.jobs

    @property
    def segments(self) -> pd.DataFrame | None:
        """The Gantt rows, None unless the spec recorded them (``record == "full"``)."""
        return self.simulation.segments if self.spec.record == "full" else None

    @property
    def utilization(self) -> pd.DataFrame | None:
        """The utilization steps, None unless the spec kept them (``record == "full"``)."""
        return self.simulation.utilization if self.spec.record == "full" else None

    @property
    def decision_time_s(self) -> float:
        """Wall time inside the policy (not part of the summary: it varies)."""
        return self.simulation.decision_time_s


@dataclass(frozen=True)
class ComparisonResult:
    """All policies of one scenario, in the order the scenario lists them.

    Attributes:
        config: the scenario that produced these results.
        results: one SimulationResult per policy.
        trace_notes: assumptions made when loading the trace (shown to the user).
        dropped_job_ids: jobs dropped because they fit on no part of the cluster.
    """

    config: ScenarioConfig
    results: tuple[SimulationResult, ...]
    trace_notes: tuple[str, ...] = ()
    dropped_job_ids: tuple[str, ...] = field(default=())

    @classmethod
    def of(cls, config: ScenarioConfig, runs: Sequence[RunResult]) -> ComparisonResult:
        """The runs of ``config``'s policies (in its order, all on the same trace) side by
        side."""
        first = runs[0] if runs else None
        return cls(
            config,
            tuple(r.simulation for r in runs),
            first.notes if first else (),
            first.dropped_job_ids if first else (),
        )

    @property
    def policies(self) -> list[str]:
        return [r.policy for r in self.results]

    def combined(self, table: str) -> pd.DataFrame:
        """One of "jobs", "segments", "utilization" for all policies, with a ``policy`` column."""
        frames = [getattr(r, table).assign(policy=r.policy) for r in self.results]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def kpi_table(self) -> pd.DataFrame:
        """One row per policy, one column per summary metric, and the utilization while jobs
        arrive (`engine.metrics.arrival_utilization`, not part of the summary) (index:
        policy). Beside a run that shared GPUs, one that did not saved 0 GPU-hours with 0 jobs
        sharing (its mean slowdown from sharing stays empty)."""
        table = pd.DataFrame({r.policy: r.summary for r in self.results}).T
        table["utilization_arrivals"] = [
            arrival_utilization(r.jobs, r.utilization) for r in self.results
        ]
        for metric in ("gpu_hours_saved_sharing", "jobs_shared"):  # 0 beside runs that shared
            if metric in table:
                table[metric] = table[metric].fillna(0.0)
        return table.rename_axis("policy")

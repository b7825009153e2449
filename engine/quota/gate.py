"""The quota layer as the engine sees it: a policy that admits jobs through Kueue's rules.

:func:`quota_policy` wraps a scenario's policy when the scenario carries queues
(:class:`engine.quota.model.QueueConfig`): the wrapper asks :class:`QuotaScheduler` which
pending jobs Kueue admits, on which worker type (the flavor), and whom it evicts; the wrapped
policy gives the order of each ClusterQueue's jobs (:meth:`Policy.quota_order_key`). Admission
and eviction are decided at every arrival and completion (Kueue's scheduler runs on events, not
on rounds). The wrapper is preemptive only when some ClusterQueue may preempt, so a
configuration without preemption costs what a non-preemptive policy costs.

It also keeps what the per-team results need (:func:`engine.quota.results.annotate`): each job's
queue, ClusterQueue, priority and flavor, its wait split into *quota* wait (its ClusterQueue's
head did not fit the quota: Jeon et al., ATC'19, "fair-share delay") and *placement* wait (the
quota fit but the worker type had too few free GPUs: their "fragmentation delay"), every
eviction with Kueue's reason, and each ClusterQueue's GPU usage over time.
"""

from __future__ import annotations

from typing import ClassVar

import pandas as pd

from engine.allocation.grants import Allocation, Grant, gang_grant
from engine.errors import ConfigError
from engine.policies.base import POLICIES, Policy, PolicyContext, SchedulerState
from engine.quota.admission import CycleResult, QuotaScheduler
from engine.quota.ledger import UsageLog, WaitLedger
from engine.quota.model import QueueConfig
from engine.quota.pending import OrderKey
from engine.state import JobState


def quota_policy(
    inner: Policy, queues: QueueConfig, jobs: pd.DataFrame, context: PolicyContext
) -> QuotaPolicy:
    """The scenario's policy under quotas.

    Args:
        inner: the scenario's policy (must declare ``honours_quotas``).
        queues: the queue configuration.
        jobs: the run's jobs table (columns ``queue`` and ``priority`` when the trace has them).
        context: the run's policy context.

    Raises:
        ConfigError: a policy that cannot honour quotas (lists those that can), a queue
            configuration the cluster cannot hold, a job whose queue does not exist, or a job
            no flavor of its ClusterQueue could ever hold (naming the job and its queue).
    """
    if not inner.honours_quotas:
        able = sorted(name for name in POLICIES.names() if POLICIES.get(name).honours_quotas)
        raise ConfigError(
            f"policy {inner.name!r} cannot run under queues and quotas; policies that can: "
            f"{', '.join(able)}"
        )
    queues.check(dict(context.cluster.capacity()))
    preempts = any(
        cq.preemption.within_cluster_queue != "Never"
        or cq.preemption.reclaim_within_cohort != "Never"
        for cq in queues.cluster_queues
    )
    cls = PreemptingQuotaPolicy if preempts else QuotaPolicy
    return cls(inner, queues, jobs, context)


class QuotaPolicy(Policy):
    """Kueue's admission over the wrapped policy's queue order (see the module docstring)."""

    preemptive: ClassVar[bool] = False
    uses_rounds: ClassVar[bool] = False
    needs_sync: ClassVar[bool] = False

    def __init__(
        self, inner: Policy, queues: QueueConfig, jobs: pd.DataFrame, context: PolicyContext
    ) -> None:
        super().__init__(inner.params, context)
        self.inner = inner
        self.switch_cost_s = inner.switch_cost_s
        self.queues = queues
        ordered = jobs.sort_values(["arrival_s", "job_id"], kind="stable")
        self.local_queue, self.cluster_queue = _queues_of(ordered, queues)
        self.priority = _priorities(ordered)
        self.job_ids = ordered["job_id"].astype(str).tolist()
        self._runs_on: dict[int, dict[str, float]] = {}
        self.scheduler = QuotaScheduler(queues, self._job_runs_on, self._order_key)
        self.flavor: dict[int, str] = {}
        self.grants: Allocation = {}
        self.evictions: list[tuple[float, int, str, int]] = []
        self.usage = UsageLog()
        self.waits = WaitLedger(len(ordered))
        self._jobs: dict[int, JobState] = {}
        self._check_sizes(ordered)

    def _job_runs_on(self, index: int, worker_type: str) -> bool:
        rates = self._runs_on.get(index)
        return rates is not None and rates.get(worker_type, 0.0) > 0

    def _check_sizes(self, ordered: pd.DataFrame) -> None:
        """Refuses a job that no flavor of its ClusterQueue could ever hold."""
        tree = self.scheduler.tree
        gpus = ordered["scale_factor"].to_numpy()
        most: dict[str, int] = {}
        for cq in self.queues.cluster_queues:
            node = tree.cluster_queues[cq.name]
            most[cq.name] = max((node.potential_available(q.flavor) for q in cq.flavors),
                                default=0)  # fmt: skip
        for i, queue in enumerate(self.cluster_queue):
            if gpus[i] > most[queue]:
                row = ordered["source_row"].iloc[i] if "source_row" in ordered else i + 1
                raise ConfigError(
                    f"job {self.job_ids[i]!r} (row {row}) needs {gpus[i]} GPUs; ClusterQueue "
                    f"{queue!r} (queue {self.local_queue[i]!r}) can hold at most "
                    f"{most[queue]} of any one flavor, even borrowing"
                )

    def allocate(self, state: SchedulerState) -> Allocation:
        self.waits.advance(state.now_s)
        for job in state.completed:
            if job.index in self.scheduler.admitted_by_index:
                # (the engine may ask no decision between a completion and now)
                finished_s = job.completion_s if job.completion_s is not None else state.now_s
                self.scheduler.release(job.index, finished_s)
                self.grants.pop(job.index, None)
        for job in state.arrived:
            self._jobs[job.index] = job
            self._runs_on[job.index] = job.steps_per_s
            self._submit(job, state.now_s)
            # the engine asks no decision while no GPU is free: its quota was taken [R]
            self.waits.add_quota_wait(job.index, state.now_s - job.arrival_s)
        free = dict(state.free_gpus)
        result = self.scheduler.schedule(state.now_s, free)
        self.waits.block(result.blocked)
        return self._answer(result, state.now_s)

    def _answer(self, result: CycleResult, now_s: float) -> Allocation:
        """New grants only (nothing is ever evicted without preemption)."""
        allocation: Allocation = {}
        for index, worker_type in result.admitted:
            allocation[index] = self._admit(index, worker_type, now_s)
        self.usage.record(now_s, self.scheduler.touched, self.scheduler.tree.cluster_queues)
        return allocation

    def _admit(self, index: int, worker_type: str, now_s: float) -> Grant:
        grant = gang_grant(worker_type, self._jobs[index].scale_factor)
        self.flavor[index] = worker_type
        self.grants[index] = grant
        self.waits.leave(index, self.cluster_queue[index])
        return grant

    def _order_key(self, index: int) -> OrderKey:
        """The job's place in its ClusterQueue: priority, the policy's key, arrival, index."""
        job = self._jobs[index]
        return (-self.priority[index], self.inner.quota_order_key(job), job.arrival_s, index)

    def _submit(self, job: JobState, now_s: float) -> None:
        queue = self.cluster_queue[job.index]
        self.scheduler.submit(job.index, queue, job.scale_factor, self.priority[job.index],
                              self._order_key(job.index), self.local_queue[job.index])  # fmt: skip
        self.waits.enter(job.index, queue)


class PreemptingQuotaPolicy(QuotaPolicy):
    """:class:`QuotaPolicy` where some ClusterQueue may preempt: it returns the whole
    allocation, leaving out the jobs Kueue evicts."""

    preemptive: ClassVar[bool] = True

    def _answer(self, result: CycleResult, now_s: float) -> Allocation:
        for index, reason, preemptor in result.evicted:
            self.grants.pop(index, None)
            self.evictions.append((now_s, index, reason, preemptor))
            self.waits.enter(index, self.cluster_queue[index])
        for index, worker_type in result.admitted:
            self._admit(index, worker_type, now_s)
        self.usage.record(now_s, self.scheduler.touched, self.scheduler.tree.cluster_queues)
        return self.grants


def _queues_of(ordered: pd.DataFrame, queues: QueueConfig) -> tuple[list[str], list[str]]:
    """Each job's LocalQueue and ClusterQueue, from the jobs' ``queue`` column (or the
    configuration's default LocalQueue)."""
    if "queue" in ordered:
        names = ordered["queue"].astype(str).tolist()
    elif queues.default_local_queue:
        names = [queues.default_local_queue] * len(ordered)
    else:
        raise ConfigError(
            "the trace names no queue for its jobs (no 'queue' column, and no team column "
            "chosen) and queues.default_local_queue is empty"
        )
    lookup: dict[str, str | None] = {}
    cluster_queues = []
    for i, name in enumerate(names):
        if not name and queues.default_local_queue:
            name = names[i] = queues.default_local_queue
        if name not in lookup:
            lookup[name] = queues.cluster_queue_of(name)
        cq = lookup[name]
        if cq is None:
            row = ordered["source_row"].iloc[i] if "source_row" in ordered else i + 1
            known = sorted({q.name for q in queues.local_queues}
                           | {q.name for q in queues.cluster_queues})  # fmt: skip
            raise ConfigError(
                f"job {ordered['job_id'].iloc[i]!r} (row {row}, column 'queue'): queue {name!r} "
                f"is neither a LocalQueue nor a ClusterQueue (known: {known[:20]})"
            )
        cluster_queues.append(cq)
    return names, cluster_queues


def _priorities(ordered: pd.DataFrame) -> list[int]:
    if "priority" not in ordered:
        return [0] * len(ordered)
    return [int(p) for p in ordered["priority"].fillna(0).tolist()]


__all__ = ["PreemptingQuotaPolicy", "QuotaPolicy", "quota_policy"]

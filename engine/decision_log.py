"""The decision log: why each job waited, where it ran, and which decision moved it.

The engine writes one row per change in a job's life (arrived; waiting for a new reason;
started; preempted or migrated; completed), so the log stays small and the hot loop cheap: a
waiting job gets a row only when its reason changes. A run can switch the log off
(``simulate(..., decision_log=False)``). Columns of :meth:`DecisionLog.table`:

- time_s: simulated time of the event.
- job_id, event: "arrived", "waiting", "started", "preempted", "migrated", "failed" (a node it
  held failed: which one, and the work lost since its last checkpoint, in ``detail``),
  "completed".
- reason (waiting rows): "no room" (no usable worker type has as many free GPUs as the job asks
  for after the decision), "held for consolidation" (the policy delays it for a better
  placement), "lower priority" (GPUs were free but the policy gave them to other jobs or chose
  to wait) [R: our classification of the policy's decision].
- queue_position (waiting rows): 1-based place among waiting jobs, in the order they entered
  the queue.
- detail: GPUs, nodes and rate for "started"; the decision number otherwise.
- decision: index of the scheduling decision (policy call) that caused the row, 0 before any.

The waiting rows are kept incrementally, so the log's work per event does not grow with the
queue: a job's reason can change only when it joins the queue, when the policy holds or
releases it, or when the free GPUs cross its gang size on its usable worker types. Waiting
jobs are bucketed by that signature (scale factor, usable types) and a bucket is re-read only
when its reason flips; queue positions come from a Fenwick tree over the order jobs joined.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Set

import pandas as pd

from engine.cluster import Placement
from engine.errors import EngineError
from engine.state import JobState

DECISION_COLUMNS = ("time_s", "job_id", "event", "reason", "queue_position", "detail", "decision")
HELD, NO_ROOM, LOWER_PRIORITY = "held for consolidation", "no room", "lower priority"
_JOINS_QUEUE = frozenset({"arrived", "preempted", "migrated", "failed"})

Signature = tuple[int, tuple[str, ...]]
"""What a waiting job's reason depends on: its gang size and the worker types it can use."""


class DecisionLog:
    """Rows of job events, appended by the simulator as the run goes.

    The simulator reports every job that joins its queue (``arrived``, ``preempted``,
    ``migrated``) or leaves it (``started``) through :meth:`event`; :meth:`waiting` then needs
    only the free GPUs and the held jobs.
    """

    def __init__(self) -> None:
        self.rows: list[tuple[object, ...]] = []
        self._queue = QueueOrder()
        self._jobs: dict[int, JobState] = {}  # the waiting jobs
        self._fresh: dict[int, JobState] = {}  # waiting, no waiting row since they joined
        self._held: set[int] = set()  # waiting, last row "held for consolidation"
        self._buckets: dict[Signature, dict[str, dict[int, JobState]]] = {}  # sig -> reason -> jobs
        self._signature: dict[int, Signature] = {}
        # what the last waiting() saw; with no event since, the same inputs give no new row
        self._seen: tuple[tuple[tuple[str, int], ...], frozenset[int]] | None = None

    def event(self, now_s: float, job: JobState, event: str, detail: str, decision: int) -> None:
        """A job arrived, started, was preempted or migrated, or completed."""
        index = job.index
        if index in self._jobs:  # leaves the queue or re-joins it; its reason is forgotten
            self._forget(index)
            del self._jobs[index]
            self._queue.remove(index)
        if event in _JOINS_QUEUE:
            self._jobs[index] = self._fresh[index] = job
            self._queue.push(index)
        self._seen = None
        self.rows.append((now_s, job.job_id, event, "", 0, detail, decision))

    def started(self, now_s: float, job: JobState, placement: Placement, decision: int) -> None:
        """The job got GPUs: how many of which type, on which nodes, at what rate."""
        nodes = ",".join(f"n{n}" for n in placement.nodes)
        detail = (
            f"{placement.num_gpus} × {placement.worker_type} on {nodes} "
            f"({placement.level}-local), {job.rate:,.2f} steps/s"
        )
        self.event(now_s, job, "started", detail, decision)

    def waiting(
        self,
        now_s: float,
        waiting: Collection[JobState],
        free_gpus: Mapping[str, int],
        held: Set[int],
        decision: int,
    ) -> None:
        """After a decision: a row for each waiting job whose reason changed, in queue order
        (``queue_position`` is 1-based among ``waiting``, in the order jobs joined the queue).

        Raises:
            EngineError: ``waiting`` is not the set of jobs reported as queued by :meth:`event`.
        """
        seen = (tuple(free_gpus.items()), frozenset(held))
        if seen == self._seen:
            return  # no job joined or left, the same free GPUs and held jobs: no reason changed
        self._seen = seen
        if len(waiting) != len(self._jobs):
            raise EngineError("decision log: the engine's queue and the log's disagree")
        changed = self._changes(free_gpus, held)
        for index, reason in changed.items():
            self._forget(index)
            self._record(self._jobs[index], reason)
        for index in sorted(changed, key=self._queue.joined):
            self.rows.append(
                (now_s, self._jobs[index].job_id, "waiting", changed[index],
                 self._queue.position(index), f"decision {decision}", decision)
            )  # fmt: skip

    def _changes(self, free_gpus: Mapping[str, int], held: Set[int]) -> dict[int, str]:
        """Waiting jobs whose reason differs from their last row -> their reason now."""
        changed = {i: HELD if i in held else _reason(j, free_gpus) for i, j in self._fresh.items()}
        for index in self._held - held:
            changed[index] = _reason(self._jobs[index], free_gpus)
        for index in held:
            if index in self._jobs and index not in self._held:
                changed[index] = HELD
        for (scale_factor, types), buckets in self._buckets.items():
            now = _signature_reason(scale_factor, types, free_gpus)
            for reason, jobs in buckets.items():
                if reason != now and jobs:
                    changed.update(dict.fromkeys((i for i in jobs if i not in changed), now))
        return changed

    def _record(self, job: JobState, reason: str) -> None:
        if reason == HELD:
            self._held.add(job.index)
            return
        signature = self._signature.get(job.index)
        if signature is None:
            signature = self._signature[job.index] = _signature(job)
        self._buckets.setdefault(signature, {}).setdefault(reason, {})[job.index] = job

    def _forget(self, index: int) -> None:
        """Drops the job's recorded reason (it has none until its next waiting row)."""
        if self._fresh.pop(index, None) is not None:
            return
        if index in self._held:
            self._held.discard(index)
            return
        for jobs in self._buckets[self._signature[index]].values():
            jobs.pop(index, None)

    def table(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=list(DECISION_COLUMNS))


def _signature(job: JobState) -> Signature:
    return job.scale_factor, tuple(wt for wt, rate in job.steps_per_s.items() if rate > 0)


def _signature_reason(scale_factor: int, types: tuple[str, ...], free: Mapping[str, int]) -> str:
    """A waiting job's reason from its signature: "no room" when no usable worker type has as
    many free GPUs as the gang, else "lower priority" (GPUs were free, the policy gave them to
    others or chose to wait)."""
    if all(free.get(wt, 0) < scale_factor for wt in types):
        return NO_ROOM
    return LOWER_PRIORITY


def _reason(job: JobState, free: Mapping[str, int]) -> str:
    return _signature_reason(*_signature(job), free)


class QueueOrder:
    """Positions in a queue that jobs join at the back and leave from anywhere: a Fenwick tree
    (binary indexed tree) over join order, so a position costs O(log joins)."""

    def __init__(self) -> None:
        self._tree = [0] * 1024  # 1-based; slot 0 unused
        self._joined: dict[int, int] = {}  # job index -> join number (1, 2, ...)
        self._joins = 0

    def push(self, index: int) -> None:
        self._joins += 1
        if self._joins >= len(self._tree):
            self._tree = [0] * (2 * len(self._tree))
            for joined in self._joined.values():
                self._add(joined, 1)
        self._joined[index] = self._joins
        self._add(self._joins, 1)

    def remove(self, index: int) -> None:
        self._add(self._joined.pop(index), -1)

    def joined(self, index: int) -> int:
        return self._joined[index]

    def position(self, index: int) -> int:
        """1-based place of a queued job among the queued jobs."""
        at, total = self._joined[index], 0
        while at > 0:
            total += self._tree[at]
            at &= at - 1
        return total

    def _add(self, at: int, delta: int) -> None:
        tree = self._tree
        while at < len(tree):
            tree[at] += delta
            at += at & -at

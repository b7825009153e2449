"""The decision log: why each job waited, where it ran, and which decision moved it.

The engine writes one row per change in a job's life (arrived; waiting for a new reason;
started; preempted or migrated; completed), so the log stays small and the hot loop cheap: a
waiting job gets a row only when its reason changes. A run can switch the log off
(``simulate(..., decision_log=False)``). Columns of :meth:`DecisionLog.table`:

- time_s: simulated time of the event.
- job_id, event: "arrived", "waiting", "started", "preempted", "migrated", "completed".
- reason (waiting rows): "no room" (no usable worker type has as many free GPUs as the job asks
  for after the decision), "held for consolidation" (the policy delays it for a better
  placement), "lower priority" (GPUs were free but the policy gave them to other jobs or chose
  to wait) [R: our classification of the policy's decision].
- queue_position (waiting rows): 1-based place among waiting jobs, in the order they entered
  the queue.
- detail: GPUs, nodes and rate for "started"; the decision number otherwise.
- decision: index of the scheduling decision (policy call) that caused the row, 0 before any.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set

import pandas as pd

from engine.cluster import Placement
from engine.state import JobState

DECISION_COLUMNS = ("time_s", "job_id", "event", "reason", "queue_position", "detail", "decision")


class DecisionLog:
    """Rows of job events, appended by the simulator as the run goes."""

    def __init__(self) -> None:
        self.rows: list[tuple[object, ...]] = []
        self._reason: dict[int, str] = {}

    def event(self, now_s: float, job: JobState, event: str, detail: str, decision: int) -> None:
        """A job arrived, started, was preempted or migrated, or completed."""
        self._reason.pop(job.index, None)
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
        waiting: Iterable[JobState],
        free_gpus: Mapping[str, int],
        held: Set[int],
        decision: int,
    ) -> None:
        """After a decision: a row for each waiting job whose reason changed."""
        for position, job in enumerate(waiting, start=1):
            if job.index in held:
                reason = "held for consolidation"
            elif all(
                free_gpus.get(wt, 0) < job.scale_factor
                for wt, rate in job.steps_per_s.items()
                if rate > 0
            ):
                reason = "no room"
            else:
                reason = "lower priority"
            if self._reason.get(job.index) != reason:
                self._reason[job.index] = reason
                self.rows.append(
                    (now_s, job.job_id, "waiting", reason, position, f"decision {decision}",
                     decision)
                )  # fmt: skip

    def table(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=list(DECISION_COLUMNS))

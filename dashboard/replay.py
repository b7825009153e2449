"""One policy's run replayed moment by moment, for the Step-through page.

At a moment ``t`` (simulated seconds; the state just after every event at ``t``):

- **GPU owners**: which job holds each GPU of each node. Segments say how many GPUs a job holds
  on a node (``node_gpus``), not which ones; each node-row takes the lowest free GPU slots of
  its node when it starts and keeps them to its end, so a running job never jumps [R: our
  drawing rule].
- **Queue**: the jobs in the system and not running, in the order they joined the queue (the
  decision log's ``queue_position`` order: arrival, preemption or migration), each with its
  latest reason from the decision log (:mod:`engine.decision_log`).
- **Events**: arrivals, starts, preemptions, migrations, completions and the round boundaries
  where a job starts or stops (a round that changes nothing on screen is no moment to step
  to) [R]; the decision made at the latest event time, in words
  (:mod:`dashboard.decision_words`).

Everything is indexed once per run (numpy arrays, per-job lists), so a moment costs a few
array masks and a loop over the queue: a redraw of 50 jobs x 4 policies stays far below the
200 ms a projector needs (``benchmarks/bench_replay.py`` prints it).
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dashboard.network_data import node_rows
from engine.allocation.layout import NodeLayout
from engine.metrics_sharing import HOST_COLUMN, SHARING_COLUMN
from engine.results import SimulationResult

EVENT_KINDS = ("arrival", "start", "preemption", "migration", "completion", "round boundary")
_JOINS = ("arrived", "preempted", "migrated")


@dataclass(frozen=True)
class QueueEntry:
    """A waiting job at a moment: 1-based ``position`` in join order, GPUs asked for, when it
    joined the queue (s), and its reason from the decision log (``""`` before its first)."""

    position: int
    job_id: str
    scale_factor: int
    since_s: float
    reason: str


Owner = str | tuple[str, ...] | None
"""What holds a GPU at a moment: one job's id, the ids of the jobs sharing it, or nothing."""


def _ids(held: str | tuple[str, ...]) -> tuple[str, ...]:
    return held if isinstance(held, tuple) else (held,)


class Replay:
    """A policy's run indexed for lookups at any moment.

    Args:
        sim: the policy's result (its ``decisions`` log may be None: then the queue has no
            reasons and no decision is described).
        layout: the run's nodes (:meth:`NodeLayout.of` the scenario's cluster).
        round_s: the round length (s), for round boundaries; 0 when the policy has none.
    """

    def __init__(self, sim: SimulationResult, layout: NodeLayout, round_s: float = 0.0) -> None:
        self.sim, self.layout, self.round_s = sim, layout, round_s
        self.end_s = _end_s(sim)
        rows = node_rows(sim.segments, layout.node_rack) if len(sim.segments) else None
        self._job = np.array([] if rows is None else rows["job_id"].astype(str), dtype=object)
        self._start = np.array([] if rows is None else rows["start_s"], dtype=float)
        self._end = np.array([] if rows is None else rows["end_s"], dtype=float)
        node = [] if rows is None else rows["node"].str[1:].astype(int)
        self._node = np.array(node, dtype=np.int64)
        self._gpus = np.array([] if rows is None else rows["gpus"], dtype=np.int64)
        hosts = _host_rows(rows, sim.segments) if rows is not None else []
        self.slowdowns = _slowdowns(sim.jobs)
        self._slot = _slots(self._node, self._start, self._end, self._gpus, layout.node_gpus, hosts)
        self._guest = np.asarray(hosts, dtype=np.int64) >= 0 if hosts else None
        jobs = sim.jobs
        self.arrival_s = dict(zip(jobs["job_id"].astype(str), jobs["arrival_s"], strict=True))
        done = jobs["completion_s"].fillna(np.inf)
        self.completion_s = dict(zip(jobs["job_id"].astype(str), done, strict=True))
        self.scale_factor = dict(zip(jobs["job_id"].astype(str), jobs["scale_factor"], strict=True))
        self._by_job: dict[str, list[tuple[float, str, str]]] = {}
        log = sim.decisions
        self.log = log if log is not None else pd.DataFrame()
        self._log_times = np.array([] if log is None else log["time_s"], dtype=float)
        if log is not None:
            for job, time_s, event, reason in zip(
                log["job_id"].astype(str), log["time_s"], log["event"], log["reason"], strict=True
            ):
                self._by_job.setdefault(job, []).append((float(time_s), str(event), str(reason)))
        self.events = self._events()

    def _events(self) -> pd.DataFrame:
        """Every event time with its kinds: columns time_s, kind (one of :data:`EVENT_KINDS`)."""
        seg = self.sim.segments
        parts = [
            pd.DataFrame({"time_s": self.sim.jobs["arrival_s"], "kind": "arrival"}),
            pd.DataFrame({"time_s": seg["start_s"], "kind": "start"}),
        ]
        for reason, kind in (("preempted", "preemption"), ("migrated", "migration"),
                             ("completed", "completion")):  # fmt: skip
            parts.append(pd.DataFrame({"time_s": seg.loc[seg["end_reason"] == reason, "end_s"],
                                       "kind": kind}))  # fmt: skip
        if self.round_s > 0 and np.isfinite(self.end_s):
            count = int(self.end_s // self.round_s)
            rounds = np.arange(1, count + 1) * self.round_s
            changes = np.unique(np.concatenate([seg["start_s"], seg["end_s"]]).astype(float))
            parts.append(pd.DataFrame({"time_s": rounds[_near(rounds, changes)],
                                       "kind": "round boundary"}))  # fmt: skip
        events = pd.concat(parts, ignore_index=True).drop_duplicates()
        return events.sort_values(["time_s", "kind"], kind="stable").reset_index(drop=True)

    def owners(self, time_s: float) -> list[list[Owner]]:
        """Per node (layout order), per GPU slot: the job id holding it at ``time_s``, the ids
        of the jobs sharing it (a tuple, first the host whose GPUs they are;
        :mod:`engine.sharing`), or None."""
        grid: list[list[Owner]] = [[None] * g for g in self.layout.node_gpus]
        active = np.flatnonzero((self._start <= time_s) & (time_s < self._end))
        if self._guest is not None:  # a shared GPU names its host first
            active = active[np.argsort(self._guest[active], kind="stable")]
        for i in active.tolist():
            row, job = grid[self._node[i]], self._job[i]
            for slot in self._slot[i]:
                held = row[slot]
                row[slot] = job if held is None else (*_ids(held), job)
        return grid

    def running(self, time_s: float) -> set[str]:
        """Ids of the jobs holding GPUs at ``time_s``."""
        active = (self._start <= time_s) & (time_s < self._end)
        return set(self._job[active].tolist())

    def queue(self, time_s: float) -> list[QueueEntry]:
        """The waiting jobs at ``time_s`` in join order (see the module docstring)."""
        running = self.running(time_s)
        waiting = []
        for job, arrival in self.arrival_s.items():
            if arrival <= time_s < self.completion_s[job] and job not in running:
                since, order, reason = self._queue_state(job, time_s, arrival)
                waiting.append((since, order, job, reason))
        waiting.sort()
        return [
            QueueEntry(i + 1, job, int(self.scale_factor[job]), since, reason)
            for i, (since, _, job, reason) in enumerate(waiting)
        ]

    def _queue_state(self, job: str, time_s: float, arrival: float) -> tuple[float, int, str]:
        """(when the job last joined the queue, its log row order then, its reason now)."""
        since, order, reason = arrival, -1, ""
        for i, (row_time, event, why) in enumerate(self._by_job.get(job, ())):
            if row_time > time_s:
                break
            if event in _JOINS:
                since, order, reason = row_time, i, ""
            elif event == "waiting":
                reason = why
        return since, order, reason

    def decision_time(self, time_s: float) -> float | None:
        """The latest decision-log time at or before ``time_s`` (None before the first)."""
        at = bisect.bisect_right(self._log_times, time_s)
        return float(self._log_times[at - 1]) if at else None

    def rows_at(self, time_s: float) -> pd.DataFrame:
        """The decision log's rows at exactly ``time_s``."""
        lo = bisect.bisect_left(self._log_times, time_s)
        hi = bisect.bisect_right(self._log_times, time_s)
        return self.log.iloc[lo:hi]

    def free_gpus(self, time_s: float) -> dict[str, int]:
        """Free GPUs per worker type at ``time_s``."""
        free = dict(self.layout.capacity)
        active = (self._start <= time_s) & (time_s < self._end)
        for node, gpus in zip(self._node[active].tolist(), self._gpus[active].tolist(),
                              strict=True):  # fmt: skip
            free[self.layout.node_type[node]] -= gpus
        return free


def next_event(replays: list[Replay], time_s: float, kinds: set[str] | None = None) -> float:
    """The first event time after ``time_s`` over ``replays`` (of ``kinds``; all by default);
    ``time_s`` itself when none is left."""
    later = [_after(r.events, time_s, kinds) for r in replays]
    later = [t for t in later if t is not None]
    return min(later) if later else time_s


def previous_event(replays: list[Replay], time_s: float, kinds: set[str] | None = None) -> float:
    """The last event time before ``time_s`` over ``replays`` (0 when none)."""
    earlier = []
    for replay in replays:
        events = replay.events
        if kinds is not None:
            events = events[events["kind"].isin(kinds)]
        times = events["time_s"].to_numpy()
        at = np.searchsorted(times, time_s - 1e-9, side="left")
        if at:
            earlier.append(float(times[at - 1]))
    return max(earlier) if earlier else 0.0


def _after(events: pd.DataFrame, time_s: float, kinds: set[str] | None) -> float | None:
    if kinds is not None:
        events = events[events["kind"].isin(kinds)]
    times = events["time_s"].to_numpy()
    at = np.searchsorted(times, time_s + 1e-9, side="right")
    return float(times[at]) if at < len(times) else None


def _near(times: np.ndarray, sorted_times: np.ndarray, tolerance: float = 1e-6) -> np.ndarray:
    """Whether each of ``times`` is within ``tolerance`` of one of ``sorted_times``."""
    if not sorted_times.size:
        return np.zeros(times.size, dtype=bool)
    at = np.clip(np.searchsorted(sorted_times, times), 1, sorted_times.size - 1)
    gap = np.minimum(np.abs(sorted_times[at] - times), np.abs(sorted_times[at - 1] - times))
    return (gap <= tolerance) | (np.abs(sorted_times[0] - times) <= tolerance)


def _end_s(sim: SimulationResult) -> float:
    ends = [sim.segments["end_s"].max() if len(sim.segments) else 0.0,
            sim.jobs["completion_s"].max() if len(sim.jobs) else 0.0]  # fmt: skip
    ends = [float(e) for e in ends if pd.notna(e)]
    return max(ends) if ends else 0.0


def _slots(
    node: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    gpus: np.ndarray,
    node_gpus: tuple,
    hosts: list[int] | None = None,
) -> list[tuple[int, ...]]:
    """The GPU slots of each node-row: the lowest free slots of its node when it starts (rows
    ending at a time free their slots before rows starting then take theirs). A guest row of a
    shared group (``hosts[i]`` >= 0: its host's row, :func:`_host_rows`) takes its host's
    slots, and a slot is free again when the last row on it ends (a guest may outlast its
    host)."""
    nodes, counts = node.tolist(), gpus.tolist()
    host_of = hosts or [-1] * len(nodes)
    slot: list[tuple[int, ...]] = [()] * len(nodes)
    free = [list(range(g)) for g in node_gpus]  # each a heap of free slots
    holders = [[0] * g for g in node_gpus]  # rows on each slot
    kind = np.r_[np.where(np.asarray(host_of) >= 0, 2, 1), np.zeros(len(nodes))]
    order = np.lexsort((kind, np.r_[start, end]))  # at a time: ends, hosts' starts, guests'
    for at in order.tolist():
        i, starting = at % len(nodes), at < len(nodes)
        heap, held = free[nodes[i]], holders[nodes[i]]
        if starting:
            host = host_of[i]
            if host >= 0 and slot[host]:
                slot[i] = slot[host]
            else:
                slot[i] = tuple(heapq.heappop(heap) for _ in range(min(counts[i], len(heap))))
            for taken in slot[i]:
                held[taken] += 1
        else:
            for taken in slot[i]:
                held[taken] -= 1
                if not held[taken]:
                    heapq.heappush(heap, taken)
    return slot


def _slowdowns(jobs: pd.DataFrame) -> dict[str, float]:
    """Job id -> its slowdown from sharing (:mod:`engine.metrics_sharing`), for the jobs that
    shared GPUs; empty without sharing."""
    if SHARING_COLUMN not in jobs:
        return {}
    shared = jobs[jobs[SHARING_COLUMN].notna()]
    return dict(zip(shared["job_id"].astype(str), shared[SHARING_COLUMN], strict=True))


def _host_rows(rows: pd.DataFrame, segments: pd.DataFrame) -> list[int]:
    """Per node-row (:func:`dashboard.network_data.node_rows`), the node-row of the job whose
    GPUs it shares at its start (the segments' ``host_job``, present with sharing), else -1."""
    if HOST_COLUMN not in segments:
        return [-1] * len(rows)
    host_job = segments[HOST_COLUMN].astype(str).to_numpy()[rows["row"].to_numpy(dtype=int)]
    job, node = rows["job_id"].astype(str).to_numpy(), rows["node"].to_numpy()
    start, end = rows["start_s"].to_numpy(float), rows["end_s"].to_numpy(float)
    found = []
    for i, host in enumerate(host_job):
        match = np.flatnonzero(
            (job == host) & (node == node[i]) & (start <= start[i]) & (start[i] < end)
        )
        found.append(int(match[-1]) if host and match.size else -1)
    return found

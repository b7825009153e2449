"""The auto-tuner's cheap model of a window (Dally, Sharma et al., arXiv 2401.16492, 2024) [R].

The cluster as it was at the window's start (the jobs running then hold their GPUs until their
expected finish, as estimated then); the jobs waiting then and those that arrived during the
window are placed by delay scheduling with a candidate ``gamma`` (same levels, placement-layer
search and LAS queue order as the policy), each running for its node-local runtime times its
level's slowdown under the congestion in force when the window is replayed. No preemption, no
link sharing, no restore costs. :func:`replay` returns the window's total JCT.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import NamedTuple

from engine.policies.dally.levels import NETWORK, NODE, RACK, Board, DallyLayout, Option


class ReplayJob(NamedTuple):
    """One job of the replayed window, with everything the model needs precomputed."""

    priority: tuple[int, float, int]
    arrival_s: float
    enter_s: float
    num_gpus: int
    best: int
    timers_s: tuple[float, float]  # (T_node, T_rack) at gamma = 1
    runtimes_s: tuple[tuple[str, tuple[float, ...]], ...]  # worker type -> runtime per level


class Window(NamedTuple):
    """The state at a window's start: free GPUs per node and the running jobs' GPUs."""

    start_s: float
    free: tuple[int, ...]
    busy: tuple[tuple[float, str, tuple[int, ...], tuple[int, ...]], ...]


def replay(
    topology: DallyLayout,
    window: Window,
    jobs: Sequence[ReplayJob],
    gamma: float,
    placement: str = "consolidated",
) -> float:
    """Total JCT (s) of ``jobs`` under delay scheduling with ``gamma`` in the cheap model,
    nodes chosen within a level by the ``placement`` strategy.

    Events are releases of GPUs (jobs finishing), arrivals, and timer expiries; at each event
    time the waiting jobs are tried in LAS order. A job never started counts 1e12 s.
    """
    board = Board(topology, window.free, placement)
    events: list[tuple[float, int, str, tuple[int, ...], tuple[int, ...]]] = [
        (finish_s, seq, wt, nodes, counts)
        for seq, (finish_s, wt, nodes, counts) in enumerate(window.busy)
    ]
    heapq.heapify(events)
    seq = len(events)
    arrivals = sorted(jobs, key=lambda j: (j.enter_s, j.priority))
    waiting: list[ReplayJob] = []
    total_s, next_arrival = 0.0, 0
    while events or next_arrival < len(arrivals):
        now = events[0][0] if events else float("inf")
        if next_arrival < len(arrivals):
            now = min(now, arrivals[next_arrival].enter_s)
        while events and events[0][0] <= now:
            _, _, wt, nodes, counts = heapq.heappop(events)
            if wt:
                board.give(wt, nodes, counts)
        while next_arrival < len(arrivals) and arrivals[next_arrival].enter_s <= now:
            job = arrivals[next_arrival]
            waiting.append(job)
            next_arrival += 1
            for wake_s in _wakeups(job, gamma):
                if wake_s > now:
                    seq += 1
                    heapq.heappush(events, (wake_s, seq, "", (), ()))
        waiting.sort(key=lambda j: j.priority)
        still: list[ReplayJob] = []
        for job in waiting:
            started = _start(board, job, now, gamma) if any(board.type_free.values()) else None
            if started is None:
                still.append(job)
                continue
            runtime_s, option = started
            seq += 1
            nodes = tuple(node for node, _ in option.parts)
            counts = tuple(count for _, count in option.parts)
            heapq.heappush(events, (now + runtime_s, seq, option.worker_type, nodes, counts))
            total_s += now + runtime_s - job.arrival_s
        waiting = still
    return total_s + 1e12 * len(waiting)


def _wakeups(job: ReplayJob, gamma: float) -> tuple[float, float]:
    """When the job starts to accept rack level, then any level."""
    rack_after = gamma * job.timers_s[0] if job.best == NODE else 0.0
    return job.arrival_s + rack_after, job.arrival_s + rack_after + gamma * job.timers_s[1]


def _start(board: Board, job: ReplayJob, now_s: float, gamma: float) -> tuple[float, Option] | None:
    """Takes the fastest placement at the job's allowed level: (runtime, option), or None."""
    if job.best == NETWORK:
        allowed = NETWORK
    else:
        rack_at, net_at = _wakeups(job, gamma)
        allowed = NETWORK if now_s >= net_at else RACK if now_s >= rack_at else NODE
    best_s, best_option = float("inf"), None
    for wt, runtimes in job.runtimes_s:
        option = board.find(wt, job.num_gpus, allowed)
        if option is not None and runtimes[option.level] < best_s:
            best_s, best_option = runtimes[option.level], option
    if best_option is None:
        return None
    board.take(best_option)
    return best_s, best_option

"""The completion heap (engine.completions) against a reference: the latest filing of each running
job, in time order, however many stale entries the heap dropped on the way."""

from __future__ import annotations

import math
import random

import pytest

from engine.cluster import Placement
from engine.completions import COMPACT_AT, CompletionHeap
from engine.state import JobState

PLACEMENT = Placement("v100", (0,), (2,), ("r",), "node", 2)


def _jobs(count: int) -> list[JobState]:
    return [
        JobState(i, f"j{i}", 0.0, "resnet50", 2, 10.0, 1.0, {"v100": 1.0}, 0.0)
        for i in range(count)
    ]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_heap_gives_each_running_jobs_latest_completion_in_time_order(seed: int) -> None:
    """Jobs are filed again (re-rated), stopped (preempted) and filed anew thousands of times:
    the heap stays bounded (it compacted), its next time is the earliest live one, and the jobs
    it pops are the running ones, by (time, filing order) of their latest filing."""
    rng = random.Random(seed)
    jobs = _jobs(8)
    heap = CompletionHeap(jobs)
    latest: dict[int, tuple[float, int]] = {}  # running job -> (time, filing number)
    filings = 0
    for _ in range(3 * COMPACT_AT):
        job = jobs[rng.randrange(len(jobs))]
        job.version += 1  # what the event loop does on every re-rate and release
        if rng.random() < 0.2:
            job.placement = None
            latest.pop(job.index, None)
            continue
        job.placement = PLACEMENT
        at_s = float(rng.randrange(50))  # ties: the earlier filing comes first
        filings += 1
        latest[job.index] = (at_s, filings)
        heap.file(job, at_s, len(latest))
        assert len(heap.entries) <= COMPACT_AT + 4 * len(latest)
        live = {
            index: at_s
            for at_s, _, index, version in heap.entries
            if version == jobs[index].version and jobs[index].placement is not None
        }
        assert live == {index: at_s for index, (at_s, _) in latest.items()}  # none dropped
    assert filings > COMPACT_AT + 4 * len(jobs)  # so the heap had to drop stale entries
    order = sorted(latest, key=latest.__getitem__)
    assert heap.next_s() == (latest[order[0]][0] if order else math.inf)
    popped = []
    while (job := heap.pop_due(math.inf)) is not None:
        popped.append(job.index)
    assert popped == order
    assert heap.next_s() == math.inf


def test_only_completions_due_by_now_pop() -> None:
    jobs = _jobs(3)
    heap = CompletionHeap(jobs)
    for job, at_s in zip(jobs, (30.0, 10.0, 20.0), strict=True):
        job.placement = PLACEMENT
        heap.file(job, at_s, 3)
    jobs[2].version += 1  # re-rated: its entry at 20 s is stale
    heap.file(jobs[2], 25.0, 3)
    assert heap.next_s() == 10.0
    due = heap.pop_due(22.0)
    assert due is not None and due.index == 1
    assert heap.pop_due(22.0) is None  # the stale entry at 20 s is skipped, not popped as due
    assert heap.next_s() == 25.0


@pytest.mark.parametrize("seed", range(6))
def test_filings_and_pops_interleaved_follow_time_then_filing_order(seed: int) -> None:
    """Filings (some at the time being popped, some earlier), re-rates, stops and pops by a
    rising clock, against a plain list sorted by (time, filing number): the same jobs pop in
    the same order, and the next time is always the earliest live one."""
    rng = random.Random(seed)
    jobs = _jobs(12)
    heap = CompletionHeap(jobs)
    reference: list[tuple[float, int, int, int]] = []  # (time, filing, job, version)
    now_s, filings = 0.0, 0

    def live(entry: tuple[float, int, int, int]) -> bool:
        job = jobs[entry[2]]
        return job.placement is not None and job.version == entry[3]

    for _ in range(4 * COMPACT_AT):
        job = jobs[rng.randrange(len(jobs))]
        action = rng.random()
        if action < 0.45:
            job.version += 1
            job.placement = PLACEMENT
            at_s = now_s + rng.choice([0.0, 0.0, 1.0, 2.0, float(rng.randrange(8))])
            if rng.random() < 0.05:
                at_s = now_s - 1.0  # earlier than the front being read
            filings += 1
            reference.append((at_s, filings, job.index, job.version))
            heap.file(job, at_s, sum(j.placement is not None for j in jobs))
        elif action < 0.55:
            job.version += 1
            job.placement = None
        else:
            now_s += rng.choice([0.0, 1.0])
            due = sorted(e for e in reference if live(e) and e[0] <= now_s)
            want = due[0][2] if due else None
            got = heap.pop_due(now_s)
            assert (got.index if got is not None else None) == want
            if due:
                reference.remove(due[0])
        pending = sorted(e for e in reference if live(e))
        assert heap.next_s() == (pending[0][0] if pending else math.inf)

"""The incremental decision log writes exactly the rows of a full scan of the queue after every
event (the log's definition, :mod:`engine.decision_log`), whatever joins, leaves, frees or holds."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.decision_log import DecisionLog, QueueOrder
from engine.state import JobState

TYPES = ("v100", "p100", "k80")


class FullScanLog:
    """The definition: after each decision, every waiting job in queue order, a row when its
    reason differs from its last one (what the engine's log did before it was incremental)."""

    def __init__(self) -> None:
        self.rows: list[tuple[object, ...]] = []
        self._reason: dict[int, str] = {}

    def event(self, now_s: float, job: JobState, event: str) -> None:
        self._reason.pop(job.index, None)
        self.rows.append((now_s, job.job_id, event, "", 0, "", 0))

    def waiting(
        self, now_s: float, waiting: Iterable[JobState], free: Mapping[str, int], held: set[int]
    ) -> None:
        for position, job in enumerate(waiting, start=1):
            if job.index in held:
                reason = "held for consolidation"
            elif all(free.get(wt, 0) < job.scale_factor
                     for wt, rate in job.steps_per_s.items() if rate > 0):  # fmt: skip
                reason = "no room"
            else:
                reason = "lower priority"
            if self._reason.get(job.index) != reason:
                self._reason[job.index] = reason
                self.rows.append((now_s, job.job_id, "waiting", reason, position, "decision 0", 0))


def _job(index: int, scale_factor: int, usable: tuple[bool, ...]) -> JobState:
    rates = {wt: 1.0 if ok else 0.0 for wt, ok in zip(TYPES, usable, strict=True)}
    return JobState(index, f"j{index}", 0.0, "t", scale_factor, 10.0, 1.0, rates, 1.0)


job_specs = st.tuples(st.sampled_from([1, 2, 4, 8]), st.tuples(st.booleans(), st.booleans(),
                                                                st.booleans()))  # fmt: skip
steps = st.lists(
    st.tuples(
        st.sampled_from(["arrive", "start", "preempt", "decide"]),
        job_specs,
        st.integers(0, 1000),  # which job
        st.tuples(*(st.integers(0, 9) for _ in TYPES)),  # free GPUs
        st.sets(st.integers(0, 30), max_size=4),  # held
    ),
    max_size=60,
)


@settings(max_examples=100, deadline=None)
@given(steps=steps)
def test_incremental_log_equals_the_full_scan(steps: list) -> None:
    log, reference = DecisionLog(), FullScanLog()
    jobs: list[JobState] = []
    waiting: dict[int, JobState] = {}
    running: dict[int, JobState] = {}
    for now_s, (kind, spec, pick, free_counts, held) in enumerate(steps):
        if kind == "arrive":
            job = _job(len(jobs), *spec)
            jobs.append(job)
            waiting[job.index] = job
            moved = "arrived"
        elif kind == "start" and waiting:
            job = list(waiting.values())[pick % len(waiting)]
            del waiting[job.index]
            running[job.index] = job
            moved = "started"
        elif kind == "preempt" and running:
            job = list(running.values())[pick % len(running)]
            del running[job.index]
            waiting[job.index] = job
            moved = "preempted" if pick % 2 else "migrated"
        else:
            free = dict(zip(TYPES, free_counts, strict=True))
            log.waiting(float(now_s), waiting.values(), free, held, 0)
            reference.waiting(float(now_s), waiting.values(), free, held)
            continue
        log.event(float(now_s), job, moved, "", 0)
        reference.event(float(now_s), job, moved)
    assert log.rows == reference.rows


def test_queue_positions_follow_join_order_past_the_tree_growth() -> None:
    """3,000 joins (the tree starts at 1,024 slots), every third job leaving: each position is
    the job's place in a plain list kept in join order."""
    queue, plain = QueueOrder(), []
    for index in range(3000):
        queue.push(index)
        plain.append(index)
        if index % 3 == 2:
            queue.remove(index - 1)
            plain.remove(index - 1)
    queue.push(1)  # a job that left joins again, at the back
    plain.append(1)
    assert [queue.position(i) for i in plain] == list(range(1, len(plain) + 1))

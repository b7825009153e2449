"""Tiresias LAS's incremental bookkeeping against recomputing everything afresh.

Issue 11's speed work keeps three things from one decision to the next (see
:mod:`engine.policies.las.running`): each running job's key with a time before which its service
cannot cross the next threshold (:func:`engine.policies.las.keys.running_key`), the running jobs'
key order, and the promotion checks of preempted jobs in buckets by due time. With small thresholds
and a small promotion knob, random scenarios cross thresholds, preempt and promote often,
mid-run and between rounds; the schedule must be the one where every key is computed, every
running job looked up and sorted, and every pending promotion checked at every round boundary,
to the last bit. The from-scratch variants come from :mod:`engine.policies.las.policy`'s module
globals, read when a policy is made (a patch reaches the mypyc-compiled module too; a compiled
class's methods cannot be patched): an infinite key margin, no carried order, one bucket of
infinite width (and, to exercise many buckets, a narrow one).
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cluster import Placement
from engine.config import PolicySpec, RoundConfig, ScenarioConfig
from engine.policies.las import books as las_books
from engine.policies.las import keys as las_keys
from engine.policies.las import policy as las
from engine.policies.las.books import book_key
from engine.policies.las.promotion import PromotionChecks
from engine.policies.las.queues import WaitingQueues
from engine.policies.las.running import RunningBooks, merged_by_key
from engine.simulator import simulate
from engine.state import JobState
from engine.step_time.throughput import load_matrix
from tests.engine.test_properties import scenarios

MATRIX = load_matrix()
SPECS = [
    PolicySpec("las", {"queue_thresholds_gpu_s": "60, 600"}),
    PolicySpec("las", {"queue_thresholds_gpu_s": "200", "promote_knob": 0.5}),
]
FROM_SCRATCH = {  # module global -> value that recomputes at every look
    "cached-keys": {"_KEY_MARGIN_GPU_S": math.inf},
    "running-order": {"_KEEP_RUNNING_ORDER": False},
    "one-bucket": {"_BUCKET_ROUNDS": math.inf},
    "narrow-buckets": {"_BUCKET_ROUNDS": 0.001},
}


def _segments(jobs: pd.DataFrame, config: ScenarioConfig, spec: PolicySpec) -> pd.DataFrame:
    result = simulate(jobs, config, spec, MATRIX, decision_log=False)
    return result.segments.reset_index(drop=True)


@given(scenario=scenarios())
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@pytest.mark.parametrize("spec", SPECS, ids=["two-thresholds", "promote-fast"])
@pytest.mark.parametrize("variant", list(FROM_SCRATCH))
def test_incremental_bookkeeping_gives_the_schedule_of_recomputing(
    scenario: tuple[pd.DataFrame, ScenarioConfig],
    spec: PolicySpec,
    variant: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    jobs, config = scenario
    incremental = _segments(jobs, config, spec)
    with monkeypatch.context() as patch:
        for name, value in FROM_SCRATCH[variant].items():
            patch.setattr(las, name, value)
        fresh = _segments(jobs, config, spec)
    pd.testing.assert_frame_equal(incremental, fresh)


def _running_job(
    attained_gpu_s: float, num_gpus: int, updated_s: float, index: int = 7
) -> JobState:
    job = JobState(index, f"j{index}", 0.0, "A3C", num_gpus, 1e6, 1.0, {"v100": 1.0}, 1e8)
    job.attained_service_gpu_s = attained_gpu_s
    job.last_update_s = updated_s
    job.placement = Placement("v100", (0,), (num_gpus,), ("r0",), "node", num_gpus)
    return job


def _fresh_key(thresholds: tuple[float, ...], job: JobState, now_s: float) -> int:
    """The job's key computed afresh (never promoted: offset 0; ordered by its index)."""
    return las_keys.queue_key(thresholds, job, 0.0, now_s, job.index)


@given(
    attained_gpu_s=st.floats(0, 20_000),
    num_gpus=st.sampled_from([1, 2, 4, 8]),
    updated_s=st.floats(0, 5_000),
    looked_s=st.floats(0, 5_000),
    later=st.lists(st.floats(0, 1), min_size=1, max_size=5),
)
def test_a_cached_key_holds_until_its_time(
    attained_gpu_s: float, num_gpus: int, updated_s: float, looked_s: float, later: list[float]
) -> None:
    """The key computed afresh at any time before the cached key's time is the cached key."""
    thresholds = (600.0, 3600.0, 7200.0)
    job = _running_job(attained_gpu_s, num_gpus, updated_s)
    now_s = max(looked_s, updated_s)  # the engine looks at a job after its last update
    key, until_s = las_keys.running_key(
        thresholds, job, 0.0, now_s, las._KEY_MARGIN_GPU_S, job.index
    )
    assert key == _fresh_key(thresholds, job, now_s)
    horizon_s = min(until_s, now_s + 20_000.0)
    for fraction in later:
        at_s = now_s + fraction * (horizon_s - now_s)
        if at_s < until_s:
            assert _fresh_key(thresholds, job, at_s) == key


@given(
    jobs=st.lists(
        st.tuples(st.floats(0, 5_000), st.sampled_from([1, 2, 4]), st.booleans()), max_size=12
    ),
    order=st.randoms(use_true_random=False),
    later_s=st.floats(0, 3_000),
    num_started=st.integers(0, 12),
)
def test_running_books_in_any_carried_order_come_out_sorted_by_fresh_keys(
    jobs: list[tuple[float, int, bool]], order: random.Random, later_s: float, num_started: int
) -> None:
    """Whatever order the last decision left the running books in, with some keys cached at
    time 0 (some of which cross a threshold by ``later_s``) and some still to compute (jobs
    started mid-round, some told through ``add_started`` in any order),
    ``RunningBooks.in_order`` returns them sorted by the keys computed afresh."""
    thresholds = (600.0, 3600.0)
    margin_gpu_s = las._KEY_MARGIN_GPU_S
    books = []
    for index, (attained_gpu_s, num_gpus, cached) in enumerate(jobs):
        job = _running_job(attained_gpu_s, num_gpus, 0.0, index)
        book = las_books.Book(job)
        if cached:
            book.key, book.until_s = las_keys.running_key(
                thresholds, job, 0.0, 0.0, margin_gpu_s, job.index
            )
        books.append(book)
    order.shuffle(books)
    queues = WaitingQueues(thresholds, requeue=False)
    running_books = RunningBooks({b.index: b for b in books}, queues, True, margin_gpu_s)
    running_books.books = books[num_started:]
    running_books.add_started(books[:num_started])
    running = [book.job for book in books]
    in_order = running_books.in_order(running, later_s, {})
    assert running_books.started == []
    fresh = sorted(running, key=lambda job: _fresh_key(thresholds, job, later_s))
    assert [book.job for book in in_order] == fresh
    assert [book.key for book in in_order] == [_fresh_key(thresholds, j, later_s) for j in fresh]


@given(keys=st.lists(st.integers(0, 10**6), unique=True, max_size=40), data=st.data())
def test_two_lists_sorted_by_key_merge_into_the_sorted_list(
    keys: list[int], data: st.DataObject
) -> None:
    books = [las_books.Book(_running_job(0.0, 1, 0.0, index)) for index in range(len(keys))]
    for book, key in zip(books, keys, strict=True):
        book.key = key
    first = data.draw(st.lists(st.sampled_from(books), unique=True)) if books else []
    second = [book for book in books if book not in first]
    merged = merged_by_key(sorted(first, key=book_key), sorted(second, key=book_key))
    assert merged == sorted(books, key=book_key)


def test_a_promotion_check_filed_behind_the_sweep_is_still_made() -> None:
    """A check whose due time falls in a bucket the sweep has already passed (a run shorter
    than the due-time slack, preempted just before a bucket boundary) is filed in the next
    bucket to sweep, so the starved job is still sent back to queue 0 at the next boundary."""
    bucket_s = RoundConfig().round_duration_s
    checks = PromotionChecks(bucket_s)
    queues = WaitingQueues((3600.0,), requeue=False)
    job = JobState(3, "j3", 0.0, "A3C", 1, 1e6, 1.0, {"v100": 1.0}, 1e8)
    job.attained_service_gpu_s = 5_000.0  # past the threshold: waits in queue 1
    book = las_books.Book(job)
    queues.arrive(book, 0.0)
    assert book.key == (1 << las_keys.KEY_BITS) | job.index
    book.since_s, book.last_run_s = 0.0, 1.0  # due at 2 s (knob 2): long before the sweep
    checks.next_bucket = 5  # the sweep has passed buckets 0-4
    checks.file(book, 0.0, 3.5 * bucket_s)
    for starved in checks.starved(5.2 * bucket_s, knob=2.0):
        queues.promote(starved)
    assert book.key == job.index
    assert [list(waiting) for waiting in queues.lists] == [[book]]  # its shape's, one waiting
    assert queues.requeued


@given(
    thresholds=st.lists(st.floats(0.5, 1e7), max_size=4, unique=True).map(sorted),
    service=st.floats(allow_nan=True),
    on_threshold=st.integers(-1, 3),
)
def test_the_queue_of_a_service_is_bisect_rights_answer(
    thresholds: list[float], service: float, on_threshold: int
) -> None:
    """The loop over the thresholds counts those at or below the service, as ``bisect_right``
    does on increasing thresholds (a service on a threshold is past it; NaN passes all)."""
    if 0 <= on_threshold < len(thresholds):
        service = thresholds[on_threshold]
    assert las_keys.queue_of(tuple(thresholds), service) == bisect_right(thresholds, service)

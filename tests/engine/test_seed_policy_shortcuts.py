"""The seed policies' speed shortcuts against the rules they stand for (issue 11).

Hadar's L/U bounds and gang offers, HadarE's bounds, single-copy offers and extra-copy rates,
and doubling's per-decision saving function are written for speed (inlined, cached, sorted
once). Each test runs small random scenarios with the fast code checked, at every call, against
a direct transcription of the rule (the code as it stood before the speed work): the two must
agree to the last bit, since the tables must not move.
"""

from __future__ import annotations

import copy
import heapq
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.config import (
    CongestionEpisode,
    NetworkConfig,
    PolicySpec,
    RoundConfig,
    ScenarioConfig,
)
from engine.policies.base import Grant, Part, PolicyContext
from engine.policies.doubling.policy import Doubling
from engine.policies.doubling.speed import RingSpeed
from engine.policies.hadar.copies import CopyRates
from engine.policies.hadar.hadar import Hadar
from engine.policies.hadar.hadare import HadarE
from engine.policies.hadar.prices import Offer, PriceBook
from engine.policies.hadar.rounds import PricedRounds
from engine.simulator import simulate
from engine.state import JobState
from engine.step_time.network import congestion_factor
from engine.step_time.throughput import gradient_bytes, load_matrix
from tests.engine.helpers import RESNET50, cluster, jobs_frame
from tests.engine.test_properties import scenarios

MATRIX = load_matrix()
CHECKED = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def reference_bounds(policy: PricedRounds, jobs: list[JobState]) -> tuple[float, float] | None:
    """L and U as written: every positive utility per GPU of every job and type."""
    per_gpu = [
        u
        for job in jobs
        for u in policy._utility_per_gpu(job, policy._seconds(job, keep=False)).values()
        if u > 0
    ]
    return (min(per_gpu), max(per_gpu)) if per_gpu else None


def reference_gang_offer(policy: Hadar, job: JobState, book: PriceBook, seconds: float) -> Any:
    """Hadar's gang offer as written: one ranked search per slowest allowed type."""
    speeds = policy.speeds(job)
    best = None
    for threshold in sorted(set(speeds.values()), reverse=True):

        def rank(wt: str, price: float, free: int, t: float = threshold) -> Any:
            speed = speeds.get(wt, 0.0)
            return (price, -free, -speed) if speed >= t else None

        pick = book.cheapest(job.scale_factor, rank)
        if pick is None:
            continue
        parts, price = pick
        offer = Offer(parts, policy._utility(job, policy._rate(job, parts), seconds), price)
        if best is None or offer.net > best.net:
            best = offer
    return best


def reference_copy_offer(policy: HadarE, job: JobState, book: PriceBook, seconds: float) -> Any:
    """HadarE's single-copy offer as written."""
    speeds = policy.speeds(job)
    best, best_key = None, None
    for worker_type, free, price, members in book.levels():
        speed = speeds.get(worker_type)
        if speed is None:
            continue
        gpus = policy.copies.gpus(job, free)
        utility = policy._utility(job, policy.copies.single(job, worker_type, gpus), seconds)
        cost = gpus * price
        key = (utility - cost, gpus, speed, -members[0])
        if best_key is None or key > best_key:
            best, best_key = (Part(worker_type, gpus, members[0]), utility, cost), key
    return None if best is None else Offer((best[0],), best[1], best[2])


def reference_copy_density(policy: HadarE, job: JobState) -> float:
    """HadarE's density as written: the greatest utility per GPU of one copy on an empty node."""
    seconds = policy._seconds(job, keep=job.placement is not None)
    return max(policy._utility_per_gpu(job, seconds).values(), default=0.0)


def checked(cls: type, name: str, reference: Callable[..., Any], monkeypatch: Any) -> None:
    """Replaces ``cls.name`` by a wrapper asserting it returns what ``reference`` does."""
    fast = getattr(cls, name)

    def wrapper(self: Any, *args: Any) -> Any:
        got = fast(self, *args)
        assert got == reference(self, *args)
        return got

    monkeypatch.setattr(cls, name, wrapper)


def weighted(frame: Any, weights: list[float]) -> Any:
    frame = frame.copy()
    frame["priority_weight"] = [weights[i % len(weights)] for i in range(len(frame))]
    return frame


@CHECKED
@given(scenarios(), st.lists(st.sampled_from([0.5, 1.0, 3.0]), min_size=1, max_size=4))
def test_hadar_bounds_and_gang_offers_equal_the_rules(
    monkeypatch: pytest.MonkeyPatch, scenario: Any, weights: list[float]
) -> None:
    jobs, config = scenario
    checked(Hadar, "_price_bounds", reference_bounds, monkeypatch)
    checked(Hadar, "_gang_offer", reference_gang_offer, monkeypatch)
    simulate(weighted(jobs, weights), config, PolicySpec("hadar"), MATRIX)


@CHECKED
@given(scenarios(), st.lists(st.sampled_from([0.5, 1.0, 3.0]), min_size=1, max_size=4))
def test_hadare_bounds_offers_and_copy_rates_equal_the_rules(
    monkeypatch: pytest.MonkeyPatch, scenario: Any, weights: list[float]
) -> None:
    jobs, config = scenario
    checked(HadarE, "_price_bounds", reference_bounds, monkeypatch)
    checked(HadarE, "_best_offer", reference_copy_offer, monkeypatch)
    checked(HadarE, "_density", reference_copy_density, monkeypatch)
    adding = CopyRates.adding

    def checked_adding(self: CopyRates, job: JobState, parts: Any, now_s: float) -> Any:
        fast = adding(self, job, parts, now_s)

        def rate(worker_type: str, num_gpus: int, node: int) -> float:
            got = fast(worker_type, num_gpus, node)
            assert got == self.rate(job, (*parts, Part(worker_type, num_gpus, node)), now_s)
            return got

        return rate

    monkeypatch.setattr(CopyRates, "adding", checked_adding)
    spec = PolicySpec("hadare", {"max_copies": 3})
    simulate(weighted(jobs, weights), config, spec, MATRIX)


def reference_grant(policy: PricedRounds, job: JobState, book: PriceBook, full: bool) -> Any:
    """A job's grant as written before the move ceiling: the best offer is searched every time,
    then compared with keeping."""
    offer = policy._best_offer(job, book, policy._seconds(job, keep=False))
    current = job.grant if full and policy.params.keep_running else None
    grant = None
    if current is not None and book.fits(current.pieces()):
        parts = current.pieces()
        kept = Offer(parts, policy._utility(job, policy._rate(job, parts), policy.round_s),
                     book.cost(parts))  # fmt: skip
        admitted = kept.utility >= kept.price * (1 - 1e-9)
        if admitted and (offer is None or policy._prefer_kept(kept, offer)):
            offer, grant = kept, current
    if offer is None or not offer.utility >= offer.price * (1 - 1e-9):
        return None
    book.take(offer.parts)
    return grant or Grant.of_parts(offer.parts, policy.combine)


def checked_grants(cls: type, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Checks ``cls._grant`` against :func:`reference_grant` on a copy of the price book (the
    grant and the GPUs it takes); returns a counter of searches the ceiling skipped."""
    fast, best_offer = cls._grant, cls._best_offer
    skipped = [0]

    def wrapper(self: Any, job: JobState, book: PriceBook, full: bool) -> Any:
        before = copy.deepcopy(book)
        expected = reference_grant(self, job, before, full)
        searches = len(searched)
        got = fast(self, job, book, full)
        skipped[0] += len(searched) == searches
        assert got == expected and book.used == before.used
        return got

    searched: list[int] = []

    def counted(self: Any, job: JobState, *args: Any) -> Any:
        searched.append(job.index)
        return best_offer(self, job, *args)

    monkeypatch.setattr(cls, "_grant", wrapper)
    monkeypatch.setattr(cls, "_best_offer", counted)
    return skipped


@CHECKED
@given(scenarios(), st.sampled_from(["gang", "proportional"]))
def test_hadar_grants_without_searching_equal_the_searched_ones(
    monkeypatch: pytest.MonkeyPatch, scenario: Any, combine: str
) -> None:
    jobs, config = scenario
    checked_grants(Hadar, monkeypatch)
    simulate(jobs, config, PolicySpec("hadar", {"combine": combine}), MATRIX)


@CHECKED
@given(scenarios())
def test_hadare_grants_without_searching_equal_the_searched_ones(
    monkeypatch: pytest.MonkeyPatch, scenario: Any
) -> None:
    jobs, config = scenario
    checked_grants(HadarE, monkeypatch)
    simulate(jobs, config, PolicySpec("hadare", {"max_copies": 3}), MATRIX)


@pytest.mark.parametrize("name", ["hadar", "hadare"])
def test_running_jobs_keep_their_grants_without_a_search(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Two long ResNet-50 jobs on two 4-GPU V100 nodes run alone for many rounds: from the
    second round on, each keeps its GPUs without a search (the ceiling is used, not only
    correct: Hadar's kept gang pays the empty-cluster price and earns a whole round, a move
    would pay the same and lose the restore)."""
    config = ScenarioConfig(
        cluster=cluster(("v100", 2, 4, "r0")),
        rounds=RoundConfig(round_duration_s=360.0, checkpoint_restore_s=20.0),
    )
    jobs = jobs_frame(("a", 0.0, RESNET50, 4, 2e5), ("b", 0.0, RESNET50, 4, 2e5))
    skipped = checked_grants(Hadar if name == "hadar" else HadarE, monkeypatch)
    result = simulate(jobs, config, PolicySpec(name), MATRIX)
    rounds_run = result.num_decisions
    assert rounds_run > 5
    assert skipped[0] >= 2 * (rounds_run - 2)


@CHECKED
@given(
    st.lists(st.integers(0, 4), min_size=6, max_size=6),
    st.lists(
        st.tuples(st.integers(0, 2), st.sampled_from([1, 2, 4]), st.floats(0.0, 0.99)),
        min_size=1,
        max_size=6,
    ),
    st.floats(1.0, 50.0),
    st.sampled_from(["gang", "proportional"]),
)
def test_hadar_move_ceiling_bounds_every_offer(
    used: list[int], specs: list[tuple[int, int, float]], ratio: float, combine: str
) -> None:
    """Whatever the nodes' use and the job, no offer (gang or proportional, moved or not)
    nets more than :meth:`Hadar._move_ceiling`."""
    spec = cluster(("v100", 2, 4, "r0"), ("p100", 2, 4, "r0"), ("k80", 2, 4, "r1"))
    context = PolicyContext(spec, RoundConfig(), np.random.default_rng(0), NetworkConfig(), MATRIX)
    policy = Hadar(Hadar.Params(combine=combine), context)
    free = [gpus - u for gpus, u in zip(policy.node_gpus, used, strict=True)]
    book = PriceBook(policy.node_types, policy.node_gpus, free, 0.01, 0.01 * ratio)
    for index, (kind, sf, done) in enumerate(specs):
        job_type = ("A3C", RESNET50, "Transformer (batch size 32)")[kind]
        rates = {wt: MATRIX.steps_per_s(job_type, wt, sf) for wt in ("v100", "p100", "k80")}
        job = JobState(index, f"j{index}", 0.0, job_type, sf, 1e5, 1.0, rates, 1.0)
        job.steps_done = done * 1e5
        for seconds in (policy.round_s, policy._seconds_moved):
            offer = policy._best_offer(job, book, seconds)
            if offer is not None:
                assert offer.net <= policy._move_ceiling(job, book, seconds)


def test_hadar_move_ceiling_by_hand() -> None:
    """One free 4-GPU V100 node at L = 0.01 and a half-used one at 0.01 * 4^(1/2) = 0.02; a
    2-GPU job with 1,000 of 1e5 steps left, 2 steps/s on V100, 360 s: it earns at most
    min(1000, 720) / 1000 = 0.72, and pays at least 2 x 0.01."""
    spec = cluster(("v100", 2, 4, "r0"))
    context = PolicyContext(spec, RoundConfig(), np.random.default_rng(0), NetworkConfig(), MATRIX)
    policy = Hadar(Hadar.Params(), context)
    book = PriceBook(policy.node_types, policy.node_gpus, [4, 2], 0.01, 0.04)
    job = JobState(0, "a", 0.0, RESNET50, 2, 1e5, 1.0, {"v100": 2.0, "k80": 0.5}, 1.0)
    job.steps_done = 1e5 - 1000
    assert policy._move_ceiling(job, book, 360.0) == pytest.approx(0.72 - 0.02, rel=1e-11)
    assert policy._move_ceiling(job, book, 360.0) > 0.72 - 0.02  # the rounding margin
    offer = policy._best_offer(job, book, 360.0)
    assert offer is not None and offer.net == pytest.approx(0.72 - 0.02, rel=1e-11)


def reference_saving(policy: Doubling, job: JobState, wt: str, n: int, now_s: float) -> float:
    """Doubling's saving per extra GPU as written, with :meth:`Doubling._restart_s`."""
    bigger = policy.speed.steps_per_s(job, wt, 2 * n, now_s)
    if bigger <= 0:
        return 0.0
    current = policy.speed.steps_per_s(job, wt, n, now_s)
    if current <= 0:
        return 0.0
    remaining = job.remaining_steps
    time_now_s = policy._restart_s(job, wt, n, now_s) + remaining / current
    time_doubled_s = policy._restart_s(job, wt, 2 * n, now_s) + remaining / bigger
    return (time_now_s - time_doubled_s) / n


@CHECKED
@given(scenarios(), st.sampled_from([-1.0, 0.0, 45.0]))
def test_doubling_savings_equal_the_rule(
    monkeypatch: pytest.MonkeyPatch, scenario: Any, restart_cost_s: float
) -> None:
    jobs, config = scenario
    savings_at = Doubling._savings_at

    def checked_savings(self: Doubling, now_s: float) -> Callable[[JobState, str, int], float]:
        fast = savings_at(self, now_s)

        def saving(job: JobState, wt: str, n: int) -> float:
            got = fast(job, wt, n)
            assert got == reference_saving(self, job, wt, n, now_s)
            return got

        return saving

    cache_at = RingSpeed.cache_at

    def checked_cache(self: RingSpeed, now_s: float) -> Any:
        cache, factors = cache_at(self, now_s)
        congestion = self.step_time.network.congestion
        assert factors == (
            congestion_factor(congestion, now_s, "rack", ()),
            congestion_factor(congestion, now_s, "cross_rack", ()),
        )
        return cache, factors

    monkeypatch.setattr(Doubling, "_savings_at", checked_savings)
    monkeypatch.setattr(RingSpeed, "cache_at", checked_cache)
    spec = PolicySpec("doubling", {"restart_cost_s": restart_cost_s})
    simulate(jobs, config, spec, MATRIX)


def reference_double(
    policy: Doubling, by_index: dict[int, JobState], sizes: dict[int, tuple[str, int]],
    free: dict[str, int], now_s: float,
) -> None:  # fmt: skip
    """Doubling's greedy loop as written before the pruning: every job's saving enters the
    heap, and the heap is emptied."""
    heap = []
    for index, (worker_type, num_gpus) in sizes.items():
        job = by_index[index]
        if 2 * num_gpus <= policy.max_gpus(job, worker_type):
            gain = reference_saving(policy, job, worker_type, num_gpus, now_s)
            if gain > 0:
                heap.append((-gain, index))
    heapq.heapify(heap)
    while heap:
        _, index = heapq.heappop(heap)
        worker_type, num_gpus = sizes[index]
        if free[worker_type] < num_gpus:
            continue
        free[worker_type] -= num_gpus
        sizes[index] = (worker_type, 2 * num_gpus)
        num_gpus *= 2
        if 2 * num_gpus <= policy.max_gpus(by_index[index], worker_type):
            gain = reference_saving(policy, by_index[index], worker_type, num_gpus, now_s)
            if gain > 0:
                heapq.heappush(heap, (-gain, index))


@CHECKED
@given(scenarios(), st.sampled_from([-1.0, 0.0, 45.0]), st.sampled_from([0, 2, 4]))
def test_doubling_pruned_loop_doubles_as_the_full_one(
    monkeypatch: pytest.MonkeyPatch, scenario: Any, restart_cost_s: float, max_gpus: int
) -> None:
    """Skipping jobs whose type has too few free GPUs, and stopping when none is free, leaves
    the sizes and free GPUs of the full greedy loop."""
    jobs, config = scenario
    double = Doubling._double

    def checked_double(self: Doubling, by_index: Any, sizes: Any, free: Any, now_s: float) -> None:
        expected_sizes, expected_free = dict(sizes), dict(free)
        reference_double(self, by_index, expected_sizes, expected_free, now_s)
        double(self, by_index, sizes, free, now_s)
        assert sizes == expected_sizes and free == expected_free

    monkeypatch.setattr(Doubling, "_double", checked_double)
    spec = PolicySpec("doubling", {"restart_cost_s": restart_cost_s, "max_gpus_per_job": max_gpus})
    simulate(jobs, config, spec, MATRIX)


def test_price_book_lists_new_prices_after_every_take() -> None:
    """Two 2-GPU V100 nodes, L = 1, U = 4: an empty node costs 1 per GPU, a half-used one
    4^(1/2) = 2. The listing is cached between takes and must follow every take."""
    book = PriceBook(("v100", "v100"), (2, 2), [2, 2], 1.0, 4.0)
    assert book.levels() == [("v100", 2, 1.0, [0, 1])]
    assert book.min_price() == 1.0
    book.take((Part("v100", 1, 0),))
    assert sorted(book.levels()) == [("v100", 1, 2.0, [0]), ("v100", 2, 1.0, [1])]
    book.take((Part("v100", 2, 1),))
    assert book.levels() == [("v100", 1, 2.0, [0])]
    assert book.min_price() == 2.0
    assert book.total_free == 1
    book.take((Part("v100", 1, 0),))
    assert book.levels() == []
    assert book.min_price() == float("inf")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([1, 2, 4, 8]), min_size=1, max_size=8),
    st.floats(1.0, 1e6),
    st.lists(st.tuples(st.integers(0, 7), st.integers(1, 8)), max_size=20),
)
def test_price_book_keeps_the_least_price_across_takes(
    gpus: list[int], ratio: float, takes: list[tuple[int, int]]
) -> None:
    """After any takes, the kept least price equals the least price of a fresh listing, and a
    repriced copy of an unused book lists what a new book does (the copy left unchanged)."""
    types = [("v100", "k80")[n % 2] for n in range(len(gpus))]
    template = PriceBook(types, gpus, gpus, 1.0, 1.0)
    book = template.repriced(0.5, 0.5 * ratio)
    fresh = PriceBook(types, gpus, gpus, 0.5, 0.5 * ratio)
    for node, want in takes:
        node %= len(gpus)
        take = min(want, book.free(node))
        if take:
            book.min_price()  # the kept value is what a take must correct
            book.take((Part(types[node], take, node),))
            fresh.take((Part(types[node], take, node),))
        listed = [price for _, _, price, _ in book.levels()]
        assert book.min_price() == min(listed, default=float("inf"))
        assert book.levels() == fresh.levels() and book.used == fresh.used
    assert template.used == [0] * len(gpus) and template.total_free == sum(gpus)
    assert sum(len(members) for _, _, _, members in template.levels()) == len(gpus)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 4), min_size=3, max_size=3),
    st.lists(st.tuples(st.integers(-1, 2), st.integers(1, 4)), min_size=1, max_size=3),
)
def test_price_book_cost_if_fits_is_cost_when_it_fits(
    used: list[int], pieces: list[tuple[int, int]]
) -> None:
    """One part or several (on one node twice, or unpinned): the price if the parts fit."""
    book = PriceBook(("v100", "v100", "k80"), (4, 4, 4), [4 - u for u in used], 0.5, 8.0)
    parts = tuple(Part("v100", gpus, node) for node, gpus in pieces)
    expected = book.cost(parts) if book.fits(parts) else None
    assert book.cost_if_fits(parts) == expected


def test_extra_copy_rates_follow_racks_order_and_congestion() -> None:
    """HadarE's extra-copy rates (CopyRates.adding) equal a fresh CopyRates' rate of all the
    copies, whichever node the new copy takes (its rack, its place in node order) and
    whenever: the cache filled at t=0 must not answer for the congested t=150."""
    spec = cluster(("v100", 2, 2, "r0"), ("k80", 1, 2, "r0"), ("v100", 2, 2, "r1"))
    network = NetworkConfig(congestion=(CongestionEpisode(100.0, 200.0, 4.0, "inter_node"),))
    context = PolicyContext(spec, RoundConfig(), np.random.default_rng(0), network, MATRIX)
    rates = {wt: MATRIX.steps_per_s(RESNET50, wt, 2) for wt in ("v100", "k80")}
    job = JobState(0, "A", 0.0, RESNET50, 2, 1e6, 1.0, rates, gradient_bytes(RESNET50))
    copies = CopyRates(context, 0, 1.0, 10.0)
    types = ("v100", "v100", "k80", "v100", "v100")
    for now_s in (0.0, 150.0, 300.0):
        for fixed in ((0,), (2,), (1, 3), (0, 4)):
            parts = tuple(Part(types[n], 2, n) for n in fixed)
            rate_with = copies.adding(job, parts, now_s)
            for node in sorted(set(range(5)) - set(fixed)):
                part = Part(types[node], 2 if node != 2 else 1, node)
                fresh = CopyRates(context, 0, 1.0, 10.0).rate(job, (*parts, part), now_s)
                assert rate_with(*part) == fresh
    pair = (Part("v100", 2, 0), Part("v100", 2, 3))
    congested = CopyRates(context, 0, 1.0, 10.0).rate(job, pair, 150.0)
    calm = CopyRates(context, 0, 1.0, 10.0).rate(job, pair, 0.0)
    assert congested < calm  # the case above does depend on the time

"""Sampling-based multi-job placement (Liu et al., TPDS 2024): hand-computed schedules, brute-force
checks of the matching market and of exact enumeration, agreement with the engine's step-time
model, and determinism of sampled mode."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from engine.cluster import Placement
from engine.config import (
    ClusterSpec,
    CongestionEpisode,
    NetworkConfig,
    PolicySpec,
    RoundConfig,
    ScenarioConfig,
    TraceSpec,
    WorkerTypeSpec,
)
from engine.errors import ConfigError
from engine.jobs import reference_speeds
from engine.policies.base import PolicyContext, SchedulerState, get_policy
from engine.policies.sampling.categories import equal_split, fit_budget, sample_categories
from engine.policies.sampling.matching import lsa_market, market, ssp_market
from engine.policies.sampling.model import (
    bandwidths,
    job_row,
    link_model,
)
from engine.policies.sampling.policy import SamplingPlacement
from engine.scenario import run_scenario
from engine.simulator import simulate
from engine.state import JobState
from engine.step_time.network import bottleneck_gbps, step_model_at
from engine.step_time.progress import JobModel, progress_rate
from engine.step_time.throughput import gradient_bytes, load_matrix
from tests.engine.helpers import cluster, jobs_frame
from tests.engine.reference.sampling_model import stack_rows, step_rates

MATRIX = load_matrix()
A3C = "A3C"  # measured on one GPU only: m workers scale linearly, so no measured sync
R_V = MATRIX.steps_per_s(A3C, "v100", 1)
R_K = MATRIX.steps_per_s(A3C, "k80", 1)


def jcts(result: object) -> dict[str, float]:
    jobs = result.jobs  # type: ignore[attr-defined]
    return dict(zip(jobs["job_id"], jobs["jct_s"], strict=True))


def test_hand_computed_sizing_split_and_restart() -> None:
    """One K80 and one V100 in one rack, no network model, restore 30 s; A3C runs r_V = 7.18
    and r_K = 3.44 steps/s on one GPU, and a proportional split of its batch over both runs at
    r_V + r_K (A3C has no measured sync).

    - t=0: a (scale factor 2, 100 (r_V + r_K) steps) is alone. Category n=1 gets the V100
      (the market's best worker): 100 (r_V + r_K) / r_V = 148 s; n=2 gets both: 100 s. a takes
      both GPUs (a proportional grant of one K80 and one V100).
    - t=50: b (scale factor 1, 100 r_V steps) arrives. With two jobs on two GPUs the only
      category is (1, 1); the market gives the A3C class one V100 and one K80, and the class's
      bigger job (b: 100 s of work on a V100 vs a's 50 s) gets the faster type. So b runs on the
      V100 from 50 to 150: JCT_b = 100. a moves to the K80, restores until 80, then runs at r_K.
    - t=150: b done. a has 50 (r_V + r_K) - 70 r_K steps left; growing back to both GPUs costs a
      restore but beats staying: a restores until 180 and finishes at
      180 + 50 - 70 r_K / (r_V + r_K) = 207.3 s = JCT_a.
    """
    config = ScenarioConfig(
        cluster=cluster(("k80", 1, 1, "r0"), ("v100", 1, 1, "r0")),
        network=NetworkConfig(enabled=False),
        rounds=RoundConfig(checkpoint_restore_s=30.0),
    )
    jobs = jobs_frame(("a", 0, A3C, 2, 100 * (R_V + R_K)), ("b", 50, A3C, 1, 100 * R_V))
    result = simulate(jobs, config, PolicySpec("sampling_placement"), MATRIX)
    assert jcts(result) == pytest.approx({"a": 230 - 70 * R_K / (R_V + R_K), "b": 100.0})
    bars = result.segments.sort_values(["start_s", "job_id", "lane"])
    assert list(
        zip(bars["job_id"], bars["start_s"].round(6), bars["worker_type"], strict=True)
    ) == [
        ("a", 0.0, "k80"),
        ("a", 0.0, "v100"),
        ("a", 50.0, "k80"),
        ("b", 50.0, "v100"),
        ("a", 150.0, "k80"),
        ("a", 150.0, "v100"),
    ]
    assert set(bars[bars["job_id"] == "a"]["combine"]) == {"proportional"}


def test_more_jobs_than_gpus_the_shortest_run() -> None:
    """Three one-GPU jobs of 300, 100 and 200 s on one V100: shortest first, no sharing."""
    config = ScenarioConfig(cluster=cluster(("v100", 1, 1, "r0")))
    jobs = jobs_frame(
        ("long", 0, A3C, 1, 300 * R_V),
        ("short", 0, A3C, 1, 100 * R_V),
        ("mid", 0, A3C, 1, 200 * R_V),
    )
    result = simulate(jobs, config, PolicySpec("sampling_placement"), MATRIX)
    assert jcts(result) == pytest.approx({"short": 100.0, "mid": 300.0, "long": 600.0})


# --- the matching market -------------------------------------------------------------------


def brute_force_value(
    values: np.ndarray, usable: np.ndarray, slots: np.ndarray, cap: np.ndarray
) -> tuple[int, float]:
    """(matched slots, value) of the best assignment: most slots on usable types, then value."""
    n_cls, n_types = values.shape
    best = (-1, -np.inf)
    per_class = [
        [c for c in itertools.product(range(s + 1), repeat=n_types) if sum(c) <= s] for s in slots
    ]
    for combo in itertools.product(*per_class):
        used = np.array(combo).reshape(n_cls, n_types)
        if (used.sum(axis=0) > cap).any() or (used * ~usable).any():
            continue
        best = max(best, (int(used.sum()), float((used * values).sum())))
    return best


@pytest.mark.parametrize("seed", range(40))
def test_market_is_a_maximum_weight_assignment(seed: int) -> None:
    """Both solvers against brute force on tiny instances, some with unusable types."""
    rng = np.random.default_rng(seed)
    n_cls, n_types = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    cap = rng.integers(1, 4, n_types)
    values = np.round(rng.uniform(0.1, 5, (n_cls, n_types)), 2)
    usable = rng.random((n_cls, n_types)) > 0.2
    slots = rng.integers(0, 3, (2, n_cls))
    for row in slots:  # at most as many slots as workers
        while row.sum() > cap.sum():
            row[row.argmax()] -= 1
    expected = [brute_force_value(values, usable, row, cap) for row in slots]
    priced = np.where(usable, values, -1e6)  # what market() hands the solvers
    for solve in (lsa_market, ssp_market):
        counts = solve(priced, slots, cap)
        assert (counts.sum(axis=2) == slots).all() and (counts.sum(axis=1) <= cap).all()
        matched = counts * usable
        assert matched.sum(axis=(1, 2)).tolist() == [count for count, _ in expected]
        assert (matched * values).sum(axis=(1, 2)) == pytest.approx([v for _, v in expected])
    assert not (market(values, usable, slots, cap) * ~usable).any()


def test_the_two_solvers_agree_on_large_markets() -> None:
    """Same maximum value from scipy's assignment and the class-level shortest paths."""
    rng = np.random.default_rng(7)
    values = rng.uniform(0, 100, (20, 4))
    cap = np.array([40, 30, 20, 10])
    slots = fit_budget(rng.integers(1, 10, (6, 20)), int(cap.sum()))
    by_lsa, by_ssp = lsa_market(values, slots, cap), ssp_market(values, slots, cap)
    assert (by_lsa * values).sum(axis=(1, 2)) == pytest.approx((by_ssp * values).sum(axis=(1, 2)))


# --- categories --------------------------------------------------------------------------------


def test_categories_respect_bounds_and_budget() -> None:
    rng = np.random.default_rng(0)
    upper = np.array([1, 8, 4, 2, 8])
    drawn = sample_categories(rng, upper, np.array([5.0, 1.0, 3.0, 2.0, 9.0]), 12, 64)
    assert (drawn >= 1).all() and (drawn <= upper).all() and (drawn.sum(axis=1) <= 12).all()
    assert len(np.unique(drawn, axis=0)) == len(drawn)
    assert equal_split(np.array([4, 4]), 4).tolist() == [[2, 2]]
    assert equal_split(np.array([1, 4, 4]), 8).tolist() == [[1, 4, 3]]


# --- exact enumeration -----------------------------------------------------------------------

SMALL = cluster(("v100", 1, 3, "r0"), ("k80", 1, 3, "r0"))
TYPES = ["k80", "v100"]
EXACT_JOBS = [
    ("ResNet-18 (batch size 32)", 4, 4000.0),
    ("Transformer (batch size 32)", 2, 1500.0),
    ("LM (batch size 20)", 2, 30000.0),
    (A3C, 1, 700.0),
]


def job_state(index: int, job_type: str, scale_factor: int, steps: float) -> JobState:
    rates = {wt: MATRIX.steps_per_s(job_type, wt, scale_factor) for wt in TYPES}
    speeds = reference_speeds(MATRIX, job_type, TYPES)
    grad = gradient_bytes(job_type)
    return JobState(
        index, f"j{index}", 0.0, job_type, scale_factor, steps, 1.0, rates, grad, speeds
    )


def policy(mode: str, seed: int = 0, spec: ClusterSpec = SMALL) -> SamplingPlacement:
    params = SamplingPlacement.Params(mode=mode)
    context = PolicyContext(spec, RoundConfig(), np.random.default_rng(seed), NetworkConfig())
    return SamplingPlacement(params, context)


def waiting_state(jobs: list[JobState], spec: ClusterSpec = SMALL) -> SchedulerState:
    capacity = spec.capacity()
    return SchedulerState(0.0, jobs, [], capacity, dict(capacity), 0)


def engine_rate(job: JobState, counts: dict[str, int]) -> float:
    """The engine's steps/s for ``counts`` GPUs per type on SMALL (one node per type, one rack)."""
    present = {wt: n for wt, n in counts.items() if n}
    net = NetworkConfig()
    if len(present) == 1 and sum(present.values()) == job.scale_factor:
        ((wt, n),) = present.items()
        return step_model_at(
            job.steps_per_s[wt],
            n,
            job.gradient_bytes,
            bottleneck_gbps(net, "node", ("r0",), 0.0),
            net,
        )[0]
    nodes = {"v100": 0, "k80": 1}
    order = sorted(present, key=nodes.__getitem__)
    placement = Placement(
        order[0], tuple(nodes[wt] for wt in order), tuple(present[wt] for wt in order), ("r0",),
        "node" if len(order) == 1 else "rack", sum(present.values()), tuple(order), "proportional",
    )  # fmt: skip
    model = JobModel(job.job_type, job.scale_factor, job.gradient_bytes)
    return progress_rate(model, placement, MATRIX, net, 0.0, 360.0)[0]


def brute_force_best(jobs: list[JobState]) -> tuple[float, list[dict[str, int]]]:
    """Min mean JCT over every category, each placed by a brute-force maximum-value market."""
    cap = SMALL.capacity()
    one_gpu = [{wt: MATRIX.steps_per_s(j.job_type, wt, 1) for wt in TYPES} for j in jobs]
    best: tuple[float, list[dict[str, int]]] = (np.inf, [])
    for sizes in itertools.product(*(range(1, j.scale_factor + 1) for j in jobs)):
        if sum(sizes) > sum(cap.values()):
            continue
        splits = [[{"k80": k, "v100": n - k} for k in range(n + 1)] for n in sizes]
        valid = [
            s for s in itertools.product(*splits)
            if all(sum(c[wt] for c in s) <= cap[wt] for wt in TYPES)
        ]  # fmt: skip
        value = [
            sum(c[wt] * r[wt] for c, r in zip(s, one_gpu, strict=True) for wt in TYPES)
            for s in valid
        ]
        chosen = valid[int(np.argmax(value))]
        mean = np.mean(
            [j.total_steps / engine_rate(j, c) for j, c in zip(jobs, chosen, strict=True)]
        )
        best = min(best, (float(mean), list(chosen)), key=lambda b: b[0])
    return best


@pytest.mark.parametrize("mode", ["exact", "auto"])
def test_exact_mode_finds_the_best_category(mode: str) -> None:
    """Four jobs on 3 V100 + 3 K80: exact enumeration picks the category a brute force over
    every category and every worker split finds best (distinct valuations, so no market ties)."""
    jobs = [job_state(i, *spec) for i, spec in enumerate(EXACT_JOBS)]
    allocation = policy(mode).allocate(waiting_state(jobs))
    granted = [
        {
            wt: sum(p.num_gpus for p in allocation[j.index].pieces() if p.worker_type == wt)
            for wt in TYPES
        }
        for j in jobs
    ]
    mean_jct, expected = brute_force_best(jobs)
    assert granted == expected
    assert np.mean(
        [j.total_steps / engine_rate(j, c) for j, c in zip(jobs, granted, strict=True)]
    ) == pytest.approx(mean_jct)


def test_sampled_mode_is_deterministic_for_a_seed() -> None:
    rng = np.random.default_rng(3)
    spec = cluster(("v100", 4, 4, "r0"), ("p100", 4, 4, "r1"), ("k80", 4, 4, "r2"))
    types = ["k80", "p100", "v100"]
    names = [jt for jt in MATRIX.job_types if MATRIX.steps_per_s(jt, "k80", 4) > 0]
    jobs = []
    for i in range(20):
        jt = names[int(rng.integers(len(names)))]
        sf = int(rng.choice([1, 2, 4]))
        rates = {wt: MATRIX.steps_per_s(jt, wt, sf) for wt in types}
        jobs.append(JobState(i, f"j{i}", 0.0, jt, sf, float(rng.uniform(1e3, 1e5)), 1.0, rates,
                             gradient_bytes(jt), reference_speeds(MATRIX, jt, types)))  # fmt: skip
    first, second = policy("sampled", 11, spec), policy("sampled", 11, spec)
    assert first.allocate(waiting_state(jobs, spec)) == second.allocate(waiting_state(jobs, spec))
    assert first.last_categories > 1


def test_same_seed_gives_identical_tables() -> None:
    config = ScenarioConfig(
        trace=TraceSpec(max_jobs=60),
        policies=(PolicySpec("sampling_placement", {"mode": "sampled", "num_samples": 16}),),
        seed=5,
    )
    first, second = run_scenario(config).results[0], run_scenario(config).results[0]
    for table in ("jobs", "segments"):
        pd.testing.assert_frame_equal(getattr(first, table), getattr(second, table))


# --- the step-time model agrees with the engine ----------------------------------------------

LINKED = cluster(("v100", 2, 4, "r0"), ("v100", 1, 4, "r1"), ("k80", 2, 4, "r1"))
"""Nodes n0, n1: V100 in r0; n2: V100 in r1; n3, n4: K80 in r1; four GPUs each."""
CASES = [  # (job type, scale factor, GPUs per type, nodes, the level the policy estimates)
    ("ResNet-50 (batch size 64)", 4, {"v100": 4}, (0,), "node"),
    ("ResNet-50 (batch size 64)", 8, {"v100": 3}, (0,), "node"),
    ("ResNet-50 (batch size 64)", 8, {"v100": 6}, (0, 1), "rack"),
    ("ResNet-50 (batch size 64)", 16, {"v100": 12}, (0, 1, 2), "network"),
    ("ResNet-50 (batch size 64)", 8, {"v100": 2, "k80": 3}, (2, 3), "rack"),
    ("ResNet-50 (batch size 128)", 4, {"k80": 2}, (3,), "node"),  # no k80 measurement at 2: ring
    ("LM (batch size 20)", 8, {"v100": 8}, (0, 1), "rack"),
    ("LM (batch size 20)", 12, {"v100": 12}, (0, 1, 2), "network"),
    ("LM (batch size 20)", 8, {"k80": 5, "v100": 3}, (2, 3, 4), "rack"),
    ("Transformer (batch size 32)", 4, {"k80": 4}, (3,), "node"),
    (A3C, 2, {"k80": 1, "v100": 1}, (2, 3), "rack"),
]


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[2]}")
def test_vectorized_step_time_agrees_with_the_engine(case: tuple, enabled: bool) -> None:
    """step_rates == engine.step_time.progress for placements at the level the policy estimates,
    with a
    congestion episode on the inter-node links."""
    job_type, sf, counts, nodes, level = case
    net = NetworkConfig(enabled=enabled, congestion=(CongestionEpisode(0.0, 10.0, 3.0),))
    types = ["k80", "v100"]
    rates = {wt: MATRIX.steps_per_s(job_type, wt, sf) for wt in types}
    job = JobState(0, "j", 0.0, job_type, sf, 1.0, 1.0, rates, gradient_bytes(job_type),
                   reference_speeds(MATRIX, job_type, types))  # fmt: skip
    inputs = stack_rows([job_row(job, types, net, MATRIX)], [job])
    links = link_model(LINKED, types)
    grid = np.array([[[counts.get(wt, 0) for wt in types]]])
    ours = step_rates(grid, inputs, links, bandwidths(links, net, 5.0), net)[0, 0]
    racks = tuple(sorted({"r0" if n < 2 else "r1" for n in nodes}))
    if len(counts) == 1 and sum(counts.values()) == sf:
        ((wt, n),) = counts.items()
        expected = step_model_at(
            rates[wt], n, job.gradient_bytes, bottleneck_gbps(net, level, racks, 5.0), net
        )[0]
    else:
        node_types = tuple("v100" if n < 3 else "k80" for n in nodes)
        per_node = _spread(counts, node_types)
        placement = Placement(
            max(counts, key=counts.__getitem__), nodes, per_node, racks, level, sum(per_node),
            node_types if len(counts) > 1 else (), "proportional",
        )  # fmt: skip
        model = JobModel(job_type, sf, job.gradient_bytes)
        expected = progress_rate(model, placement, MATRIX, net, 5.0, 360.0)[0]
    assert ours == pytest.approx(expected, rel=1e-9)


PLACED = [  # (job type, scale factor, GPUs per type the policy grants)
    ("ResNet-50 (batch size 64)", 4, {"v100": 4}),  # a gang: one node
    ("ResNet-50 (batch size 64)", 8, {"v100": 2}),  # proportional, one type, one node
    ("LM (batch size 20)", 8, {"v100": 8}),  # a gang over two nodes of rack r0
    ("LM (batch size 20)", 16, {"v100": 12}),  # every V100: both racks
    ("LM (batch size 20)", 8, {"k80": 5}),  # two K80 nodes of rack r1
    ("Transformer (batch size 32)", 8, {"k80": 3, "v100": 3}),  # mixed: see below
    (A3C, 2, {"k80": 1, "v100": 1}),
]
"""The mixed grants are where the estimate and the engine part: the policy assumes rack r1
(the only rack holding both types), while the strategy places each part on its own, the V100s
first in r0, so the engine runs them across racks."""


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("case", PLACED, ids=lambda c: f"{c[0]}-{c[2]}")
def test_rates_of_granted_placements_equal_the_engines(case: tuple, enabled: bool) -> None:
    """The policy's own grant, placed by the engine's consolidated strategy on an empty
    cluster, runs at the rate step_rates estimated (engine.step_time.progress with the engine's link
    model), under an inter-node congestion episode: the vectorized model and the engine's
    step model cannot drift apart. Mixed grants: the same, at the link the policy estimates."""
    from engine.allocation import NodeLayout
    from engine.cluster import ClusterState
    from engine.placement import get_placement

    job_type, sf, counts = case
    net = NetworkConfig(enabled=enabled, congestion=(CongestionEpisode(0.0, 10.0, 3.0),))
    context = PolicyContext(LINKED, RoundConfig(), np.random.default_rng(0), net)
    policy = SamplingPlacement(SamplingPlacement.Params(), context)
    rates = {wt: MATRIX.steps_per_s(job_type, wt, sf) for wt in policy.types}
    job = JobState(0, "j", 0.0, job_type, sf, 1.0, 1.0, rates, gradient_bytes(job_type),
                   reference_speeds(MATRIX, job_type, policy.types))  # fmt: skip
    row = [counts.get(wt, 0) for wt in policy.types]
    grant = policy._grant(job, row)
    placement = ClusterState(NodeLayout.of(LINKED), get_placement("consolidated")).place_parts(
        grant.pieces(), grant.combine
    )
    assert placement is not None
    model = JobModel(job_type, sf, job.gradient_bytes)
    mixed = len(counts) > 1
    assert (placement.level == "network") == (mixed or sum(row) > 8)
    estimated_gbps = bottleneck_gbps(net, "rack", ("r1",), 5.0) if mixed else None
    engine_rate = progress_rate(model, placement, MATRIX, net, 5.0, 360.0, 0.0, estimated_gbps)[0]
    inputs = stack_rows([job_row(job, policy.types, net, MATRIX)], [job])
    bw = bandwidths(policy.links, net, 5.0)
    ours = step_rates(np.array([[row]]), inputs, policy.links, bw, net)[0, 0]
    assert ours == pytest.approx(engine_rate, rel=1e-9)


def _spread(counts: dict[str, int], node_types: tuple[str, ...]) -> tuple[int, ...]:
    """GPUs per node: each type's count over its nodes, up to 4 a node."""
    left = dict(counts)
    out = []
    for wt in node_types:
        take = min(4, left[wt])
        out.append(take)
        left[wt] -= take
    return tuple(out)


def test_extra_worker_types_come_from_the_scenario_matrix() -> None:
    """An a100 added at twice a V100's speed: the policy reads it from the scenario's matrix,
    and a whole scenario on a100 + v100 completes."""
    types = ["a100", "v100"]
    matrix = MATRIX.with_worker_type("a100", "v100", 2.0)
    job_type = "ResNet-50 (batch size 64)"
    rates = {wt: matrix.steps_per_s(job_type, wt, 4) for wt in types}
    job = JobState(0, "j", 0.0, job_type, 4, 1.0, 1.0, rates, gradient_bytes(job_type),
                   reference_speeds(matrix, job_type, types))  # fmt: skip
    row = job_row(job, types, NetworkConfig(), matrix)
    assert row.one_gpu.tolist() == pytest.approx(
        [2 * row.one_gpu[1], MATRIX.steps_per_s(job_type, "v100", 1)]
    )
    config = ScenarioConfig(
        trace=TraceSpec(max_jobs=30),
        cluster=cluster(("a100", 2, 4, "r0"), ("v100", 2, 4, "r1")),
        extra_worker_types=(WorkerTypeSpec("a100", "v100", 2.0),),
        policies=(PolicySpec("sampling_placement"),),
    )
    assert run_scenario(config).results[0].summary["jobs_completed"] == 30


def test_the_modes_have_their_own_names() -> None:
    """The dashboard holds one entry per policy name, so the preset's modes are registered apart."""
    assert get_policy("sampling_placement").Params().mode == "auto"
    assert get_policy("sampling_placement_exact").Params().mode == "exact"
    assert get_policy("sampling_placement_equal_split").Params().mode == "equal_split"


def test_bad_parameters_are_rejected() -> None:
    with pytest.raises(ConfigError, match="mode"):
        policy("fastest")
    with pytest.raises(ConfigError, match="beta"):
        SamplingPlacement(
            SamplingPlacement.Params(beta=2.0),
            PolicyContext(SMALL, RoundConfig(), np.random.default_rng(0), NetworkConfig()),
        )

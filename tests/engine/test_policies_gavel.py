"""Gavel max-min fairness: the LP against hand-derived optima, and the round mechanism."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linprog

from engine.config import PolicySpec, RoundConfig, ScenarioConfig
from engine.policies.base import PolicyContext, get_policy
from engine.policies.gavel import book as _gavel_book
from engine.policies.gavel.lp import max_min_coefficients
from engine.presets import gavel_compatible
from engine.simulator import simulate
from engine.state import JobState
from engine.step_time.throughput import load_matrix
from tests.engine.helpers import RESNET50, cluster, jobs_frame, spy_gavel_maxmin
from tests.engine.reference.gavel_rounds import solve_max_min

MATRIX = load_matrix()
RATE = MATRIX.steps_per_s(RESNET50, "v100", 1)

# Two jobs of type A (10 steps/s on the V100, 1 on the K80) and two of type B (2 and 1), on one
# V100 and one K80. Equal-share throughputs: A (10 + 1) / 2 = 5.5, B (2 + 1) / 2 = 1.5.
TPUT = np.array([[10.0, 1.0], [10.0, 1.0], [2.0, 1.0], [2.0, 1.0]])
ONES = np.ones(4)
CAPACITY = np.array([1.0, 1.0])
TYPES = ("v100", "k80", "p100")


def _policy_shares(
    tput: np.ndarray,
    sfs: np.ndarray,
    weights: np.ndarray,
    capacity: np.ndarray,
    aware: bool,
    epsilon: float = 1e-3,
) -> np.ndarray:
    """(n, K) the shares the registered max-min policy stores for jobs of these throughputs
    (rows; columns: ``TYPES`` in order), GPUs and weights at its first solve on a cluster of
    ``capacity`` one-GPU nodes per type: the policy's own path (book, class table, class LP)."""
    types = TYPES[: tput.shape[1]]
    spec = cluster(*((wt, 1, int(gpus), "r0") for wt, gpus in zip(types, capacity, strict=True)))
    context = PolicyContext(spec, RoundConfig(), np.random.default_rng(0), matrix=MATRIX)
    policy_class = get_policy("gavel_maxmin" if aware else "gavel_maxmin_agnostic")
    policy = policy_class(policy_class.Params(efficiency_epsilon=epsilon), context)
    jobs = [
        JobState(j, f"j{j}", 0.0, "t", int(sfs[j]), 1e9, float(weights[j]),
                 dict(zip(types, tput[j].tolist(), strict=True)), 0.0)
        for j in range(tput.shape[0])
    ]  # fmt: skip
    indices = [job.index for job in jobs]
    policy.book.register(indices, jobs)
    policy._store_shares(0.0, jobs, indices)  # what the share rounds call at a solve
    return np.array([policy.book.share_rows[j] for j in indices])


def test_aware_lp_gives_each_job_the_type_where_it_is_relatively_faster() -> None:
    """Hand optimum: A is relatively better on the V100 (10x vs 2x), so B takes the whole K80
    (1/2 per B job) and A never uses it. With b = each B job's V100 share and A's = 1/2 - b:
    rho_A = 10 (1/2 - b) / 5.5 = rho_B = (2 b + 1/2) / 1.5  =>  b = 19/104, rho = 15/26.
    """
    coefficients = max_min_coefficients(TPUT, ONES, ONES, CAPACITY, heterogeneity_aware=True)
    shares = _policy_shares(TPUT, ONES, ONES, CAPACITY, aware=True)
    b = 19 / 104
    expected = np.array([[0.5 - b, 0], [0.5 - b, 0], [b, 0.5], [b, 0.5]])
    np.testing.assert_allclose(shares, expected, atol=1e-7)
    np.testing.assert_allclose((coefficients * shares).sum(axis=1), 15 / 26, atol=1e-7)


def test_agnostic_lp_gives_equal_shares() -> None:
    """Speed ignored: 2 GPUs over 4 one-GPU jobs is a 1/2 time share each, all GPUs used."""
    shares = _policy_shares(TPUT, ONES, ONES, CAPACITY, aware=False)
    np.testing.assert_allclose(shares.sum(axis=1), 0.5, atol=1e-7)
    np.testing.assert_allclose(shares.sum(axis=0), 1.0, atol=1e-7)


def test_agnostic_lp_weighs_scale_factor_and_priority() -> None:
    """A 2-GPU job (weight 1) and two 1-GPU jobs (weights 1 and 2) on one worker type.

    The LP equalizes sf * x / w = t: 2 x0 = x1 = x2 / 2 = t. On 2 GPUs, 2 x0 + x1 + x2 = 4 t = 2
    gives t = 1/2: x = (1/4, 1/2, 1). On 4 GPUs, x2 <= 1 caps t at 1/2 and the efficiency
    term hands the spare GPUs out: every job runs all the time.
    """
    tput = np.ones((3, 1))
    sfs = np.array([2.0, 1.0, 1.0])
    weights = np.array([1.0, 1.0, 2.0])
    for gpus, expected in ((2.0, [0.25, 0.5, 1.0]), (4.0, [1.0, 1.0, 1.0])):
        shares = _policy_shares(tput, sfs, weights, np.array([gpus]), aware=False)
        np.testing.assert_allclose(shares[:, 0], expected, atol=1e-7)


@pytest.mark.parametrize("aware", [True, False])
def test_class_lp_reaches_the_per_job_lp_optimum(aware: bool) -> None:
    """Solving over classes of identical jobs (the policy's own path) loses nothing: same
    max-min value as a dense LP with one share row per job."""
    rng = np.random.default_rng(7)
    n, capacity = 40, np.array([8.0, 8.0, 4.0])
    kinds = rng.uniform(0.5, 4.0, (6, 3))
    tput = kinds[rng.integers(0, 6, n)]
    tput[rng.random((n, 3)) < 0.1] = 0.0
    sfs = rng.choice([1.0, 2.0, 4.0], n)
    coefficients = max_min_coefficients(tput, sfs, np.ones(n), capacity, aware)
    shares = _policy_shares(tput, sfs, np.ones(n), capacity, aware, epsilon=0.0)
    value = (coefficients * shares).sum(axis=1)[coefficients.sum(axis=1) > 0].min()
    assert value == pytest.approx(_dense_max_min(coefficients, sfs, capacity), rel=1e-6)
    one_per_job = solve_max_min(coefficients, sfs, capacity, epsilon=0.0, class_ids=np.arange(n))
    live = coefficients.sum(axis=1) > 0
    assert (coefficients * one_per_job).sum(axis=1)[live].min() == pytest.approx(value, rel=1e-6)
    assert np.all(shares.sum(axis=1) <= 1 + 1e-9)
    assert np.all((shares * sfs[:, None]).sum(axis=0) <= capacity + 1e-9)
    assert np.all(shares[coefficients == 0] == 0)


def _dense_max_min(coefficients: np.ndarray, sfs: np.ndarray, capacity: np.ndarray) -> float:
    """Max-min value of the LP with one share row per job (dense, for cross-checking)."""
    n, k = coefficients.shape
    live = coefficients.sum(axis=1) > 0
    fair_rows = np.zeros((n, n * k + 1))
    for j in range(n):
        fair_rows[j, j * k : (j + 1) * k] = -coefficients[j]
        fair_rows[j, -1] = 1.0
    time_rows = np.hstack([np.kron(np.eye(n), np.ones((1, k))), np.zeros((n, 1))])
    cap_rows = np.hstack([np.kron(sfs.reshape(1, n), np.eye(k)), np.zeros((k, 1))])
    a_ub = np.vstack([fair_rows[live], time_rows, cap_rows])
    b_ub = np.concatenate([np.zeros(live.sum()), np.ones(n), capacity])
    bounds = [(0, 0) if c == 0 else (0, 1) for c in coefficients.ravel()] + [(0, None)]
    objective = np.zeros(n * k + 1)
    objective[-1] = -1.0
    result = linprog(objective, A_ub=a_ub, b_ub=b_ub, bounds=bounds, method="highs")
    return float(-result.fun)


def test_round_mechanism_rotates_equal_jobs() -> None:
    """Three equal jobs on one GPU, X = 1/3 each. Round 0: nobody has received anything
    (infinite priority), ties by arrival: a. Round 1: a has 1/3 / 1 = 1/3, b and c infinite:
    b. Round 2: c. Round 3: all at 1/3 / (1/3) = 1, arrival breaks the tie: a again."""
    jobs = jobs_frame(*((name, 0, RESNET50, 1, 10_000 * RATE) for name in "abc"))
    config = ScenarioConfig(
        cluster=cluster(("v100", 1, 1, "r0")),
        rounds=RoundConfig(round_duration_s=100.0, checkpoint_restore_s=0.0),
    )
    result = simulate(jobs, config, PolicySpec("gavel_maxmin"), MATRIX)
    bars = result.segments.sort_values("start_s")
    assert bars["job_id"].tolist()[:6] == ["a", "b", "c", "a", "b", "c"]


def _mixed_jobs(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    types = ["ResNet-50 (batch size 64)", "Transformer (batch size 64)", "LM (batch size 20)"]
    rows = [
        (f"j{i}", float(rng.uniform(0, 4000)), types[i % 3], int(rng.choice([1, 1, 2, 4])), 0.0)
        for i in range(n)
    ]
    frame = jobs_frame(*rows)
    durations = rng.uniform(200, 3000, n)
    frame["total_steps"] = [
        d * MATRIX.steps_per_s(t, "k80", sf)
        for d, t, sf in zip(durations, frame["job_type"], frame["scale_factor"], strict=True)
    ]
    return frame


@pytest.mark.parametrize(
    "name",
    [
        "gavel_maxmin",
        "gavel_maxmin_agnostic",
        "gavel_ftf",
        "gavel_ftf_agnostic",
        "gavel_fifo",
        "gavel_fifo_perf",
        "gavel_min_total_duration",
        "gavel_min_total_duration_agnostic",
    ],
)
@pytest.mark.parametrize("compatible", [False, True])
def test_gavel_completes_every_job_on_a_mixed_cluster(name: str, compatible: bool) -> None:
    config = ScenarioConfig(
        cluster=cluster(("v100", 1, 4, "r0"), ("p100", 1, 4, "r0"), ("k80", 2, 4, "r1"))
    )
    if compatible:
        config = gavel_compatible(config)
    jobs = _mixed_jobs(30, seed=3)
    result = simulate(jobs, config, PolicySpec(name), MATRIX)
    assert result.jobs["completion_s"].notna().all()
    assert (result.jobs["completion_s"] >= result.jobs["arrival_s"]).all()


def test_book_arrays_grow_mid_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """Per-job arrays start tiny here, so late arrivals regrow them inside a mid-round pass."""
    monkeypatch.setattr(_gavel_book, "_INITIAL_ROWS", 2)
    config = ScenarioConfig(cluster=cluster(("v100", 1, 4, "r0"), ("k80", 1, 4, "r0")))
    result = simulate(_mixed_jobs(30, seed=5), config, PolicySpec("gavel_maxmin"), MATRIX)
    assert result.jobs["completion_s"].notna().all()


def test_lp_is_resolved_only_after_the_reallocation_interval(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Jobs arrive every 50 s over 1000 s; with a 1920 s interval the LP is solved once
    before all arrivals are in (at the first round), then at most every 1920 s."""
    calls: list[int] = []

    # Gavel's program: _solve_gavel; the class LP: _class_shares
    spy_gavel_maxmin(monkeypatch, "_solve_gavel", lambda args: calls.append(1))
    jobs = jobs_frame(*((f"j{i}", 50 * i, RESNET50, 1, 3000 * RATE) for i in range(20)))
    base = ScenarioConfig(cluster=cluster(("v100", 1, 4, "r0")))
    simulate(jobs, gavel_compatible(base), PolicySpec("gavel_maxmin"), MATRIX)
    spaced = len(calls)
    calls.clear()
    spy_gavel_maxmin(monkeypatch, "_class_shares", lambda args: calls.append(1))
    simulate(jobs, base, PolicySpec("gavel_maxmin"), MATRIX)
    assert 1 <= spaced < len(calls)

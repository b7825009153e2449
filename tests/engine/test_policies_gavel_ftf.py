"""Gavel finish-time fairness: the bisection against a brute-force grid, and end to end."""

from __future__ import annotations

import numpy as np
import pytest

from engine.policies.gavel.ftf import (
    GavelFinishTimeFairness,
    GavelFinishTimeFairnessAware,
    isolated_throughput,
    solve_finish_time_fairness,
)
from engine.step_time.throughput import load_matrix

MATRIX = load_matrix()

# Job A is 10x faster on the V100 than on a K80 and far from done; job B is only 2x faster
# there and nearly finished. On one V100 and one K80 the equal split is already optimal (rho = 1:
# any other split slows one of them); with a second K80 both can run all the time and the
# optimum (rho < 1) trades the V100 between them by elapsed and remaining time.
TPUT = np.array([[10.0, 1.0], [2.0, 1.0]])
ONES = np.ones(2)
ELAPSED_S = np.array([100.0, 1000.0])
REMAINING = np.array([20_000.0, 300.0])
TIGHT = GavelFinishTimeFairness.Params(rho_tolerance=1e-7, bisection_steps=80)
CAPACITIES = [np.array([1.0, 1.0]), np.array([1.0, 2.0])]


def _rho(shares: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """rho_j of each job under ``shares``, measured with the true (aware) throughputs."""
    iso = isolated_throughput(TPUT, ONES, capacity, 2)
    rate = (shares * TPUT).sum(axis=-1)
    with np.errstate(divide="ignore"):
        return (ELAPSED_S + REMAINING / rate) / (ELAPSED_S + REMAINING / iso)


def _grid_min_max_rho(capacity: np.ndarray, step: float) -> float:
    """Worst rho minimized over a grid of every feasible X (2 one-GPU jobs x 2 types)."""
    axis = np.arange(0.0, 1.0 + 1e-9, step)
    av, ak, bv, bk = np.meshgrid(axis, axis, axis, axis, indexing="ij")
    ok = (av + ak <= 1 + 1e-9) & (bv + bk <= 1 + 1e-9)
    ok &= (av + bv <= capacity[0] + 1e-9) & (ak + bk <= capacity[1] + 1e-9)
    shares = np.stack([np.stack([av, ak], -1), np.stack([bv, bk], -1)], -2)[ok]
    return float(_rho(shares, capacity).max(axis=-1).min())


def _solve(
    capacity: np.ndarray, aware: bool, params: GavelFinishTimeFairness.Params = TIGHT
) -> tuple[np.ndarray, float]:
    return solve_finish_time_fairness(TPUT, ONES, capacity, ELAPSED_S, REMAINING, aware, params)


@pytest.mark.parametrize("capacity", CAPACITIES)
def test_bisection_reaches_the_brute_force_optimum(capacity: np.ndarray) -> None:
    """The grid optimum is feasible, so it bounds the solver's from above; a fine grid comes
    within a few percent of the true optimum, so it bounds it from below too."""
    shares, worst = _solve(capacity, aware=True)
    assert (shares.sum(axis=1) <= 1 + 1e-7).all()
    assert (shares.sum(axis=0) <= capacity + 1e-7).all()
    assert worst == pytest.approx(_rho(shares, capacity).max(), rel=1e-9)
    grid = _grid_min_max_rho(capacity, step=1 / 40)
    assert worst <= grid * (1 + 1e-6)
    assert worst >= grid * 0.98


def test_second_k80_lets_both_jobs_beat_their_isolated_share() -> None:
    _, one_k80 = _solve(CAPACITIES[0], aware=True)
    _, two_k80 = _solve(CAPACITIES[1], aware=True)
    assert one_k80 == pytest.approx(1.0, abs=1e-6)
    assert two_k80 < 0.97  # both at 0.9647: A takes 35% of the V100, B 65%


@pytest.mark.parametrize("capacity", CAPACITIES)
def test_default_tolerance_stays_within_it(capacity: np.ndarray) -> None:
    _, tight = _solve(capacity, aware=True)
    _, default = _solve(capacity, aware=True, params=GavelFinishTimeFairness.Params())
    assert tight <= default <= tight * (1 + 2e-3)


def test_aware_form_beats_agnostic_on_worst_rho_when_types_differ() -> None:
    """Blind to speed, the agnostic form sees every full-time split as equal; its pick leaves
    A mostly on the K80, where A's rho is far above the aware optimum."""
    capacity = CAPACITIES[0]
    aware, _ = _solve(capacity, aware=True)
    agnostic, _ = _solve(capacity, aware=False)
    assert _rho(aware, capacity).max() < 0.95 * _rho(agnostic, capacity).max()


def test_one_job_alone_takes_its_fastest_type() -> None:
    """Alone, the job's best is all the V100's time: rho = (e + r/10) / (e + r/5.5) < 1."""
    tput, e, r = np.array([[10.0, 1.0]]), np.array([50.0]), np.array([1000.0])
    shares, worst = solve_finish_time_fairness(tput, np.ones(1), CAPACITIES[0], e, r, True, TIGHT)
    np.testing.assert_allclose(shares, [[1.0, 0.0]], atol=1e-6)
    assert worst == pytest.approx((50 + 100) / (50 + 1000 / 5.5), rel=1e-6)


def test_finished_or_unfit_jobs_get_no_share() -> None:
    tput = np.array([[10.0, 1.0], [0.0, 0.0], [2.0, 1.0]])
    shares, _ = solve_finish_time_fairness(
        tput, np.ones(3), CAPACITIES[0], np.zeros(3), np.array([0.0, 100.0, 100.0]), True, TIGHT
    )
    np.testing.assert_allclose(shares[:2], 0.0)
    assert shares[2].sum() > 0


def test_reads_progress_so_needs_sync() -> None:
    assert GavelFinishTimeFairnessAware.needs_sync

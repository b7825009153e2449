"""Gavel's FIFO (as its code behaves), fifo_perf, min_total_duration, and Gavel's programs on ECOS.

Hand-derived cases; the type choices follow Gavel's ``fifo.py`` as traced (engine/policies/
gavel_fifo.py docstring): worker types are listed by name (k80 < p100 < v100), a job takes the
last listed type with a free GPU, and the random draw among the types where its gang fits only
decides which type leaves the list when a count reaches 0.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.config import PolicySpec, RoundConfig, ScenarioConfig
from engine.policies.base import PolicyContext
from engine.policies.gavel.ecos import (
    finish_time_fairness_shares,
    max_min_coefficients_all_pairs,
    max_min_shares,
)
from engine.policies.gavel.fifo import GavelFifoFastest, GavelFifoRandom
from engine.policies.gavel.min_total_duration import GavelMinTotalDuration, solve_min_total_duration
from engine.simulator import simulate
from engine.state import JobState
from engine.step_time.throughput import load_matrix
from tests.engine.helpers import RESNET50, cluster, jobs_frame

MATRIX = load_matrix()


class _Draw:
    """Stands in for the run's generator: every draw returns ``pick`` (the last index when
    there are fewer choices)."""

    def __init__(self, pick: int) -> None:
        self.pick = pick

    def integers(self, n: int) -> int:
        return min(self.pick, n - 1)


def _jobs(*scale_factors: int) -> list[JobState]:
    tput = {wt: MATRIX.steps_per_s(RESNET50, wt, 1) for wt in ("v100", "p100", "k80")}
    return [
        JobState(i, f"j{i}", 0.0, RESNET50, sf, 1e6, 1.0, dict(tput), 0.0)
        for i, sf in enumerate(scale_factors)
    ]


def _types(policy: GavelFifoRandom, jobs: list[JobState]) -> dict[str, str]:
    """Job id -> assigned worker type, from one solve."""
    indices = [job.index for job in jobs]
    policy.book.register(indices, jobs)
    shares = policy._solve(0.0, jobs, np.array(indices))
    return {
        job.job_id: policy.worker_types[int(np.argmax(row))]
        for job, row in zip(jobs, shares, strict=True)
        if row.max() > 0
    }


def _fifo(cls: type[GavelFifoRandom], groups: tuple[tuple[str, int], ...], pick: int = 0):  # type: ignore[no-untyped-def]
    spec = cluster(*[(wt, count, 1, "r0") for wt, count in groups])
    context = PolicyContext(spec, RoundConfig(), _Draw(pick), matrix=MATRIX)  # type: ignore[arg-type]
    return cls(cls.Params(), context)


def test_gavel_fifo_draw_decides_which_type_leaves_the_list() -> None:
    """1 V100, 2 K80, three 1-GPU jobs. j0 takes v100 (last listed with a free GPU); v100 hits 0
    and the draw (index into [k80, v100]) removes one entry. Draw 1 removes v100: j1, j2 take
    the K80s. Draw 0 removes k80 by mistake: only v100 (full) is left, so j1 and j2 get none."""
    jobs = _jobs(1, 1, 1)
    right = _fifo(GavelFifoRandom, (("v100", 1), ("k80", 2)), pick=1)
    assert _types(right, jobs) == {"j0": "v100", "j1": "k80", "j2": "k80"}
    wrong = _fifo(GavelFifoRandom, (("v100", 1), ("k80", 2)), pick=0)
    assert _types(wrong, jobs) == {"j0": "v100"}


def test_gavel_fifo_over_assigns_v100_where_the_gang_does_not_fit() -> None:
    """2 V100, 4 K80. j0 takes a V100 (one left). j1's 2-GPU gang fits only the K80s, yet takes
    v100, the last listed type with a free GPU; v100's count goes to -1 and stays listed, so j2
    lands there too: three jobs on two V100s, time-shared by the rounds."""
    policy = _fifo(GavelFifoRandom, (("v100", 2), ("k80", 4)))
    assert _types(policy, _jobs(1, 2, 1)) == {"j0": "v100", "j1": "v100", "j2": "v100"}


def test_gavel_fifo_gang_larger_than_the_type_takes_the_drawn_type() -> None:
    """1 V100, 4 K80: a 2-GPU gang could never run on the single V100 (Gavel would leave it
    waiting forever), so it takes the drawn type among those it fits, k80."""
    policy = _fifo(GavelFifoRandom, (("v100", 1), ("k80", 4)))
    assert _types(policy, _jobs(2)) == {"j0": "k80"}


def test_gavel_fifo_keeps_types_and_hands_a_finished_jobs_type_to_the_head() -> None:
    """After the draw-0 case j0 completes: its V100 goes to the queue head j1; then j2 takes
    the last listed type with a free GPU, now k80."""
    jobs = _jobs(1, 1, 1)
    policy = _fifo(GavelFifoRandom, (("v100", 1), ("k80", 2)), pick=0)
    _types(policy, jobs)
    assert _types(policy, jobs[1:]) == {"j1": "v100", "j2": "k80"}


def test_gavel_fifo_perf_takes_the_fastest_type_with_room_and_restarts_each_solve() -> None:
    """One GPU of each type; ResNet-50 is fastest on v100, then p100, then k80."""
    jobs = _jobs(1, 1, 1)
    policy = _fifo(GavelFifoFastest, (("v100", 1), ("p100", 1), ("k80", 1)))
    assert _types(policy, jobs) == {"j0": "v100", "j1": "p100", "j2": "k80"}
    assert _types(policy, jobs[1:]) == {"j1": "v100", "j2": "p100"}


@pytest.mark.parametrize("ecos", [False, True])
def test_min_total_duration_finds_the_makespan_within_the_bisection_ratio(ecos: bool) -> None:
    """One GPU, jobs of 1000 and 2000 steps at 1 step/s: x0 >= 1000/T, x1 >= 2000/T, x0 + x1
    <= 1, so T* = 3000 s. Bisection from [100, 10^6] stops within 5%: T in [3000, 3150]."""
    params = GavelMinTotalDuration.Params()
    shares, makespan_s = solve_min_total_duration(
        np.ones((2, 1)), np.ones(2), np.array([1.0]), np.array([1000.0, 2000.0]), params, ecos
    )
    assert 3000 <= makespan_s <= 3000 * params.bisection_ratio
    assert shares[0, 0] >= 1000 / makespan_s - 1e-7
    assert shares[1, 0] >= 2000 / makespan_s - 1e-7
    assert shares.sum() <= 1 + 1e-7


def test_ecos_max_min_reaches_the_hand_optimum() -> None:
    """The LP example of test_policies_gavel (A: 10/1 steps/s, B: 2/1, one V100 and one K80):
    Gavel's coefficients are tput sf / (w tput_prop), tput_prop = the capacity-weighted mean
    (A 5.5, B 1.5), and the max-min level is 15/26."""
    tput = np.array([[10.0, 1.0], [10.0, 1.0], [2.0, 1.0], [2.0, 1.0]])
    ones, capacity = np.ones(4), np.array([1.0, 1.0])
    coefficients = max_min_coefficients_all_pairs(tput, ones, ones, capacity, True)
    np.testing.assert_allclose(coefficients[0], [10 / 5.5, 1 / 5.5])
    shares = max_min_shares(coefficients, ones, capacity)
    np.testing.assert_allclose((coefficients * shares).sum(axis=1), 15 / 26, atol=1e-6)


def test_ecos_finish_time_fairness_splits_one_gpu_evenly_between_twins() -> None:
    """Two identical jobs (0 s elapsed, 100 steps left, 1 step/s) on one GPU, each with an
    isolated time of 200 s: shares 1/2 each give rho = 200 / 200 = 1, the optimum."""
    shares = finish_time_fairness_shares(
        np.ones((2, 1)), np.ones(2), np.array([1.0]), np.zeros(2), np.full(2, 100.0),
        np.full(2, 200.0),
    )  # fmt: skip
    assert shares is not None
    np.testing.assert_allclose(shares[:, 0], [0.5, 0.5], atol=1e-6)


@pytest.mark.parametrize("gavel_rules", [False, True])
def test_gavel_fifo_never_idles_the_cluster_waiting_for_the_interval(gavel_rules: bool) -> None:
    """One GPU, two jobs at 0: the first solve types only j0; when j0 completes (well inside
    the 1920 s interval) j1 has no share, so the allocation is re-solved at once (our rule) or
    Gavel's loop forces it; either way j1 starts at the first decision after j0 completes."""
    rounds = RoundConfig(
        round_duration_s=60.0,
        admit_mid_round=False,
        reallocation_interval_s=1920.0,
        checkpoint_restore_s=0.0,
        gavel_rules=gavel_rules,
    )
    config = ScenarioConfig(cluster=cluster(("v100", 1, 1, "r0")), rounds=rounds)
    rate = MATRIX.steps_per_s(RESNET50, "v100", 1)
    jobs = jobs_frame(("j0", 0, RESNET50, 1, 100 * rate), ("j1", 0, RESNET50, 1, 100 * rate))
    result = simulate(jobs, config, PolicySpec("gavel_fifo"), MATRIX).jobs.set_index("job_id")
    j0_end = result.loc["j0", "completion_s"]
    assert j0_end == pytest.approx(100.0, abs=1e-6)
    expected_start = 120.0 if not gavel_rules else pytest.approx(j0_end)  # round grid vs loop
    assert result.loc["j1", "first_start_s"] == expected_start

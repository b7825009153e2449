"""The min-total-duration bisection answered from the smallest makespan T* (one LP) gives what
solving every probe gives (issue 11; the reference in tests/engine/reference/gavel_lp.py)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.policies.gavel import makespan
from engine.policies.gavel.highs import HighsSolver
from engine.policies.gavel.min_total_duration import GavelMinTotalDuration, solve_min_total_duration
from tests.engine.reference.gavel_lp import min_total_duration_every_probe


def test_shortest_makespan_by_hand() -> None:
    """One GPU, jobs of 1000 and 2000 steps at 1 step/s: x0 >= 1000/T, x1 >= 2000/T and
    x0 + x1 <= 1, so T* = 3000 s. Two GPUs: each job alone, T* = 2000 s."""
    one_gpu = makespan.shortest_makespan_s(
        np.ones((2, 1)), np.ones(2), np.array([1.0]), np.array([1000.0, 2000.0]), HighsSolver()
    )
    assert one_gpu == pytest.approx(3000.0, rel=1e-9)
    two_gpus = makespan.shortest_makespan_s(
        np.ones((2, 1)), np.ones(2), np.array([2.0]), np.array([1000.0, 2000.0]), HighsSolver()
    )
    assert two_gpus == pytest.approx(2000.0, rel=1e-9)


def _case(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n, num_types = int(rng.integers(1, 25)), 3
    tput = rng.uniform(0.2, 5.0, (n, num_types)) * (rng.random((n, num_types)) < 0.75)
    sfs = rng.choice([1.0, 2.0, 4.0, 8.0], n)
    capacity = rng.choice([4.0, 8.0, 16.0], num_types)
    remaining = rng.choice([0.0, 1e2, 5e3, 1e5, 3e6], n) * rng.uniform(0.5, 1.5, n)
    return tput, sfs, capacity, remaining


@pytest.mark.parametrize("epsilon", [0.0, 1e-3])
@pytest.mark.parametrize("seed", range(30))
def test_answered_bisection_equals_solving_every_probe(
    seed: int, epsilon: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same shares bit for bit and the same makespan; and every probe answered from T*
    (outside the margin) is the answer its LP gives."""
    tput, sfs, capacity, remaining = _case(seed)
    params = GavelMinTotalDuration.Params(efficiency_epsilon=epsilon)
    answered: list[tuple[float, bool]] = []
    real_answer = makespan.answered_probe

    def checking(probe, shortest_s, margin):  # type: ignore[no-untyped-def]
        inner = real_answer(probe, shortest_s, margin)

        def answer(makespan_s: float):  # type: ignore[no-untyped-def]
            got = inner(makespan_s)
            if (
                got is makespan.FEASIBLE
                or abs(makespan_s - shortest_s) > makespan.MARGIN * shortest_s
            ):
                answered.append((makespan_s, (got is None) == (probe(makespan_s) is None)))
            return got

        return answer

    monkeypatch.setattr(makespan, "answered_probe", checking)
    every = min_total_duration_every_probe(tput, sfs, capacity, remaining, params, epsilon)
    fast = solve_min_total_duration(tput, sfs, capacity, remaining, params)
    assert answered or np.isnan(fast[1])  # the shortcut was taken
    assert np.array_equal(every[0], fast[0])
    assert every[1] == fast[1] or (np.isnan(every[1]) and np.isnan(fast[1]))
    assert all(agree for _, agree in answered)

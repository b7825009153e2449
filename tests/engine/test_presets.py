"""The Gavel-compatible preset changes behaviour, not just settings."""

from __future__ import annotations

import dataclasses

import pytest

from engine.config import PolicySpec, ScenarioConfig
from engine.policies.gavel import GavelMaxMin
from engine.presets import gavel_compatible
from engine.simulator import simulate
from engine.throughput import load_matrix
from tests.engine.helpers import RESNET50, cluster, jobs_frame

MATRIX = load_matrix()


@pytest.mark.parametrize("policy", ["fifo", "las", "gavel_maxmin"])
def test_jobs_start_only_at_round_boundaries(policy: str) -> None:
    """An idle 2-GPU cluster; a job arriving at t=10 waits for the round at t=360 under the
    preset, and starts at once by default."""
    base = ScenarioConfig(cluster=cluster(("v100", 1, 2, "r0")))
    jobs = jobs_frame(("a", 0, RESNET50, 1, 5000), ("b", 10, RESNET50, 1, 100))
    default = simulate(jobs, base, PolicySpec(policy), MATRIX).jobs.set_index("job_id")
    preset = simulate(jobs, gavel_compatible(base), PolicySpec(policy), MATRIX)
    assert default.loc["b", "first_start_s"] == 10.0
    assert preset.jobs.set_index("job_id").loc["b", "first_start_s"] == 360.0
    assert (preset.segments["start_s"] % 360 == 0).all()


def test_allocation_is_recomputed_at_most_every_1920_s(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs arrive every 100 s for an hour; Gavel's LP is solved at most once per 1920 s."""
    solves: list[float] = []
    original = GavelMaxMin._maybe_solve

    def spy(self, now_s, active, rows):  # type: ignore[no-untyped-def]
        before = self._last_solve_s
        original(self, now_s, active, rows)
        if self._last_solve_s != before:
            solves.append(now_s)

    monkeypatch.setattr(GavelMaxMin, "_maybe_solve", spy)
    jobs = jobs_frame(*[(f"j{i}", 100.0 * i, RESNET50, 1, 20000) for i in range(36)])
    config = gavel_compatible(ScenarioConfig(cluster=cluster(("v100", 1, 4, "r0"))))
    simulate(jobs, config, PolicySpec("gavel_maxmin"), MATRIX)
    gaps = [b - a for a, b in zip(solves, solves[1:], strict=False)]
    assert len(solves) >= 2 and min(gaps) >= 1920
    unlimited = dataclasses.replace(
        config, rounds=dataclasses.replace(config.rounds, reallocation_interval_s=0.0)
    )
    solves.clear()
    simulate(jobs, unlimited, PolicySpec("gavel_maxmin"), MATRIX)
    assert min(b - a for a, b in zip(solves, solves[1:], strict=False)) < 1920


def test_the_verdict_weighs_the_size_of_the_effect() -> None:
    from engine.papers.base import Claim

    claim = Claim("1.45x utilization", "utilization_mean", "A", "B", 1.45)
    assert claim.verdict(1.04) == "direction only"  # 0.04 of a claimed 0.45 gain
    assert claim.verdict(1.30) == "shown"  # two thirds of the gain
    assert claim.verdict(0.98) == "not shown"
    assert claim.verdict(float("nan")) == "not shown"
    within = Claim("within 5%", "jct_mean_s", "A", "B", 1.0, tolerance=0.05)
    assert within.verdict(0.97) == "shown" and within.verdict(0.9) == "not shown"

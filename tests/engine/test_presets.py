"""The Gavel-compatible preset changes behaviour, not just settings."""

from __future__ import annotations

import dataclasses
import math

import pytest

from engine.config import PolicySpec, ScenarioConfig
from engine.presets import gavel_compatible
from engine.simulator import simulate
from engine.step_time.throughput import load_matrix
from tests.engine.helpers import RESNET50, cluster, jobs_frame, spy_gavel_maxmin

MATRIX = load_matrix()


@pytest.mark.parametrize("policy", ["fifo", "las"])
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


def test_gavel_rounds_chain_from_the_first_arrival() -> None:
    """Gavel's loop: job a (arriving at 0) runs a micro-task of floor(r x 360) steps, which
    ends at floor(r x 360) / r < 360 s; b (arriving at 10) starts exactly then."""
    rate = MATRIX.steps_per_s(RESNET50, "v100", 1)
    base = ScenarioConfig(cluster=cluster(("v100", 1, 2, "r0")))
    jobs = jobs_frame(("a", 0, RESNET50, 1, 5000), ("b", 10, RESNET50, 1, 100))
    result = simulate(jobs, gavel_compatible(base), PolicySpec("gavel_maxmin"), MATRIX)
    round_end_s = math.floor(rate * 360) / rate
    assert round_end_s < 360
    starts = result.jobs.set_index("job_id")["first_start_s"]
    assert starts["a"] == 0.0
    assert starts["b"] == pytest.approx(round_end_s, abs=1e-9)


def test_gavel_micro_tasks_finish_jobs_mid_round() -> None:
    """A lone job of S steps at r steps/s: whole micro-tasks of floor(r x 360) steps, then a
    last one of the rest; it completes when that last micro-task ends."""
    rate = MATRIX.steps_per_s(RESNET50, "v100", 1)
    per_round = math.floor(rate * 360)
    total = 3 * per_round + 17
    jobs = jobs_frame(("a", 0, RESNET50, 1, total))
    config = gavel_compatible(ScenarioConfig(cluster=cluster(("v100", 1, 1, "r0"))))
    result = simulate(jobs, config, PolicySpec("gavel_maxmin"), MATRIX)
    assert result.jobs["completion_s"].iloc[0] == pytest.approx((3 * per_round + 17) / rate)


def test_allocation_is_recomputed_at_most_every_1920_s(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs arrive every 100 s for an hour; Gavel's LP is solved at most once per 1920 s, except
    right after the solve at t=0 (Gavel reads a last solve at time 0 as "never solved")."""
    solves: list[float] = []
    spy_gavel_maxmin(monkeypatch, "_solve_gavel", lambda args: solves.append(args[0]))  # now_s
    jobs = jobs_frame(*[(f"j{i}", 100.0 * i, RESNET50, 1, 20000) for i in range(36)])
    config = gavel_compatible(ScenarioConfig(cluster=cluster(("v100", 1, 4, "r0"))))
    simulate(jobs, config, PolicySpec("gavel_maxmin"), MATRIX)
    gaps = [b - a for a, b in zip(solves, solves[1:], strict=False)]
    assert solves[0] == 0.0 and 0 < gaps[0] < 360
    assert len(solves) >= 3 and min(gaps[1:]) >= 1920
    unlimited = dataclasses.replace(
        config, rounds=dataclasses.replace(config.rounds, reallocation_interval_s=0.0)
    )
    solves.clear()
    simulate(jobs, unlimited, PolicySpec("gavel_maxmin"), MATRIX)
    assert min(b - a for a, b in zip(solves, solves[1:], strict=False)) < 1920


def test_late_arrival_waits_for_the_next_solve_on_a_free_gpu() -> None:
    """3 GPUs; a arrives at 0, c at 400, d at 800. Solves happen at 0 and (Gavel's time-0
    rule) at the next change, 2 rounds in, then not before 1920 s later. d is in no allocation
    until then, so it waits although the third GPU is free, and starts at the first round
    boundary >= 1920 s after that solve."""
    rate = MATRIX.steps_per_s(RESNET50, "v100", 1)
    round_s = math.floor(rate * 360) / rate
    long_steps = 50 * 360 * rate
    jobs = jobs_frame(
        ("a", 0, RESNET50, 1, long_steps),
        ("c", 400, RESNET50, 1, long_steps),
        ("d", 800, RESNET50, 1, 1000),
    )
    config = gavel_compatible(ScenarioConfig(cluster=cluster(("v100", 1, 3, "r0"))))
    result = simulate(jobs, config, PolicySpec("gavel_maxmin"), MATRIX)
    starts = result.jobs.set_index("job_id")["first_start_s"]
    assert starts["c"] == pytest.approx(2 * round_s)  # solved at 2 rounds (the time-0 rule)
    # d arrives after that solve: its GPU stays idle until a round >= 1920 s after it
    assert starts["d"] == pytest.approx(math.ceil((2 * round_s + 1920) / round_s) * round_s)
    busy = result.utilization.set_index("time_s")["busy_gpus"]
    assert busy[busy.index <= 3 * round_s].iloc[-1] == 2  # d's GPU idle meanwhile


def test_the_verdict_weighs_the_size_of_the_effect() -> None:
    from engine.papers.base import Claim

    claim = Claim("1.45x utilization", "utilization_mean", "A", "B", 1.45)
    assert claim.verdict(1.04) == "direction only"  # 0.04 of a claimed 0.45 gain
    assert claim.verdict(1.30) == "shown"  # two thirds of the gain
    assert claim.verdict(0.98) == "not shown"
    assert claim.verdict(float("nan")) == "not shown"
    within = Claim("within 5%", "jct_mean_s", "A", "B", 1.0, tolerance=0.05)
    assert within.verdict(0.97) == "shown" and within.verdict(0.9) == "not shown"

"""Statistics over seeds, paired differences and cost KPIs, checked against hand computation."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.config import PolicySpec, ScenarioConfig
from engine.results import RunResult, SimulationResult
from engine.study import Study, Variant, expand
from engine.study.cost import DEFAULT_PRICES_USD_PER_GPU_H, cost_kpis
from engine.study.result import StudyResult
from engine.study.stats import mean_bound, mean_ci, paired_test, t_interval

# Student's t with 2 degrees of freedom has the closed-form quantile (2p - 1) / sqrt(2p(1 - p)).
T_975_DF2 = 0.95 / math.sqrt(2 * 0.975 * 0.025)  # 4.3027


def test_mean_ci_by_hand() -> None:
    # (1, 2, 3): mean 2, sd 1, se 1/sqrt(3); on the log scale of the mean the half-width is
    # t * se / mean, so the bounds are 2 * exp(-+ t / (2 sqrt(3))).
    n, mean, low, high = mean_ci([1.0, 2.0, 3.0])
    half = T_975_DF2 / (2 * math.sqrt(3))
    assert (n, mean) == (3, 2.0)
    assert low == pytest.approx(2.0 * math.exp(-half), rel=1e-12)
    assert high == pytest.approx(2.0 * math.exp(half), rel=1e-12)
    one = mean_ci([5.0, math.nan])
    assert one[:2] == (1, 5.0) and math.isnan(one[2]) and math.isnan(one[3])
    assert mean_ci([])[0] == 0
    assert mean_ci([0.0, 0.0, 0.0])[1:] == (0.0, 0.0, 0.0)


def test_two_seeds_far_apart_give_no_negative_bound() -> None:
    # The case: two seeds, a t-interval would reach -972 h; the log scale cannot.
    n, mean, low, high = mean_ci([1000.0, 50_000.0])
    assert n == 2 and 0 < low < mean < high
    plain = t_interval([1000.0, 50_000.0])
    assert plain[2] < 0  # what the plain t-interval gives


def test_t_interval_by_hand() -> None:
    n, mean, low, high = t_interval([1.0, 2.0, 3.0])
    assert low == pytest.approx(2.0 - T_975_DF2 / math.sqrt(3), rel=1e-12)
    assert high == pytest.approx(2.0 + T_975_DF2 / math.sqrt(3), rel=1e-12)


def test_mean_bound_by_hand_and_at_the_edges() -> None:
    # t(0.95, 2) = 2.92 (closed form for 2 degrees of freedom: (2p - 1) / sqrt(2p(1 - p))).
    t95 = 0.9 / math.sqrt(2 * 0.95 * 0.05)
    assert mean_bound([1.0, 2.0, 3.0], 0.95) == pytest.approx(
        2.0 * math.exp(t95 / (2 * math.sqrt(3))), rel=1e-12
    )
    assert mean_bound([1.0, 2.0, 3.0], 0.95, upper=False) == pytest.approx(
        2.0 * math.exp(-t95 / (2 * math.sqrt(3))), rel=1e-12
    )
    assert mean_bound([1.0, 2.0, 3.0], 0.5) == 2.0  # 50% means the mean
    assert mean_bound([4.0], 0.5) == 4.0 and math.isnan(mean_bound([4.0], 0.95))
    assert mean_bound([1.0, 2.0, 3.0], 0.975) == mean_ci([1.0, 2.0, 3.0])[3]
    with pytest.raises(ValueError, match="confidence"):
        mean_bound([1.0, 2.0], 0.4)


@given(st.lists(st.floats(0.0, 1e7), min_size=2, max_size=8))
def test_intervals_of_non_negative_values_stay_non_negative(values: list[float]) -> None:
    n, mean, low, high = mean_ci(values)
    assert 0.0 <= low <= mean * (1 + 1e-12) and mean <= high * (1 + 1e-12)
    assert mean_bound(values, 0.95) >= mean_bound(values, 0.8) >= mean * (1 - 1e-12)


def test_paired_testerence_by_hand() -> None:
    # d = (2, 1, 4): mean 7/3, sd sqrt(7/3), se sqrt(7)/3, t = sqrt(7); with 2 degrees of
    # freedom P(|T| > t) = 1 - t / sqrt(t^2 + 2) = 1 - sqrt(7)/3.
    out = paired_test([10.0, 12.0, 15.0], [8.0, 11.0, 11.0])
    se = math.sqrt(7) / 3
    assert out["n"] == 3 and out["mean_diff"] == pytest.approx(7 / 3)
    assert out["ci_low"] == pytest.approx(7 / 3 - T_975_DF2 * se, rel=1e-12)
    assert out["ci_high"] == pytest.approx(7 / 3 + T_975_DF2 * se, rel=1e-12)
    assert out["p_value"] == pytest.approx(1 - math.sqrt(7) / 3, rel=1e-9)


def test_paired_testerence_conventions_for_constant_differences() -> None:
    assert paired_test([1.0, 2.0], [1.0, 2.0])["p_value"] == 1.0
    assert paired_test([2.0, 3.0], [1.0, 2.0])["p_value"] == 0.0
    assert math.isnan(paired_test([2.0], [1.0])["p_value"])


def _fake_result(values: dict[tuple[str, str, int], float]) -> StudyResult:
    base = ScenarioConfig(
        policies=(PolicySpec("fifo", label="fifo"), PolicySpec("las", label="las"))
    )
    study = Study(base, (Variant("A"), Variant("B", {"seed": 0})), (0, 1, 2))
    results = tuple(
        RunResult(
            s,
            SimulationResult(
                s.policy_label,
                pd.DataFrame(),
                pd.DataFrame(),
                pd.DataFrame(),
                {"jct_mean_s": values[(s.variant, s.policy_label, s.sim_seed)]},
            ),  # fmt: skip
            {},
        )
        for s in expand(study)
    )
    return StudyResult(study, results)


def test_study_result_stats_and_paired_match_the_hand_numbers() -> None:
    values = {}
    for seed, (a, b) in enumerate([(8.0, 10.0), (11.0, 12.0), (11.0, 15.0)]):
        values[("A", "fifo", seed)], values[("B", "fifo", seed)] = a, b
        values[("A", "las", seed)], values[("B", "las", seed)] = 1.0 + seed, 1.0 + seed
    result = _fake_result(values)
    stats = result.stats("jct_mean_s")
    assert stats[["variant", "policy"]].values.tolist() == [
        ["A", "fifo"],
        ["A", "las"],
        ["B", "fifo"],
        ["B", "las"],
    ]
    assert stats["mean"].tolist() == pytest.approx([10.0, 2.0, 37 / 3, 2.0])
    paired = result.paired("jct_mean_s").set_index("policy")
    assert paired.loc["fifo", "mean_diff"] == pytest.approx(7 / 3)
    assert paired.loc["fifo", "p_value"] == pytest.approx(1 - math.sqrt(7) / 3, rel=1e-9)
    assert paired.loc["las", "mean_diff"] == 0.0 and paired.loc["las", "p_value"] == 1.0
    assert (paired["variant"] == "B").all()
    runs = result.runs
    assert runs.columns[:5].tolist() == ["variant", "policy", "seed", "trace_seed", "key"]
    assert len(runs) == 12


def test_cost_kpis_by_hand() -> None:
    summary = {
        "capacity_gpus:v100": 16.0, "capacity_gpus:k80": 8.0, "gpu_h:v100": 10.0,
        "gpu_h:k80": 4.0, "jobs_completed": 4.0, "makespan_s": 7200.0,
    }  # fmt: skip
    kpis = cost_kpis(summary, DEFAULT_PRICES_USD_PER_GPU_H)
    assert kpis["cluster_cost_usd_per_h"] == pytest.approx(16 * 0.74 + 8 * 0.135)
    assert kpis["work_cost_usd"] == pytest.approx(10 * 0.74 + 4 * 0.135)
    assert kpis["cost_per_job_usd"] == pytest.approx((10 * 0.74 + 4 * 0.135) / 4)
    assert kpis["makespan_cost_usd"] == pytest.approx(2 * (16 * 0.74 + 8 * 0.135))
    unpriced = cost_kpis({**summary, "capacity_gpus:a100": 8.0, "gpu_h:a100": 1.0}, {"v100": 1})
    assert math.isnan(unpriced["cluster_cost_usd_per_h"]) and math.isnan(unpriced["work_cost_usd"])

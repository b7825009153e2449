"""Paired comparisons of two policies (or a policy in two variants) on the same seeds: the
statistic by hand and against scipy.stats.ttest_rel, the same jobs per seed in every cell, the
rows and sentences the Compare page and ``paired.csv`` share."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from engine.cli import main
from engine.config import (
    ClusterSpec,
    NodeGroup,
    PolicySpec,
    ScenarioConfig,
    SyntheticSpec,
    TraceSpec,
)
from engine.study import Study, run_study
from engine.study.paired import default_pairs, every_pair, paired_rows, reading
from engine.study.stats import few_seeds_note, holm, paired_test
from tests.engine.test_study_stats import _fake_result

SMALL = ScenarioConfig(
    trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(40, 30.0)),
    cluster=ClusterSpec((NodeGroup("v100", 2, 4, "rack0"), NodeGroup("k80", 2, 4, "rack1"))),
    policies=(PolicySpec("fifo"), PolicySpec("las")),
)


def test_paired_test_by_hand() -> None:
    """d = (1, 0, 2, -1, 3): mean 1, sd sqrt(10/4), se sqrt(10/4)/sqrt(5) = 1/sqrt(2), t = sqrt(2)
    with 4 degrees of freedom; t(0.975, 4) = 2.7764451051977987 (tables); the two-sided p of
    Student's t with 4 degrees of freedom has the closed form 1 - t (t^2 + 6) / (t^2 + 4)^1.5
    = 1 - sqrt(2) * 8 / 6^1.5."""
    out = paired_test([10.0, 12.0, 15.0, 11.0, 14.0], [9.0, 12.0, 13.0, 12.0, 11.0])
    se = 1 / math.sqrt(2)
    assert out["n"] == 5 and out["mean_diff"] == pytest.approx(1.0)
    assert out["ci_low"] == pytest.approx(1 - 2.7764451051977987 * se, rel=1e-12)
    assert out["ci_high"] == pytest.approx(1 + 2.7764451051977987 * se, rel=1e-12)
    assert out["p_value"] == pytest.approx(1 - math.sqrt(2) * 8 / 6**1.5, rel=1e-9)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1e6), st.floats(0, 1e6)), min_size=3, max_size=12))
def test_paired_test_is_scipy_ttest_rel(pairs: list[tuple[float, float]]) -> None:
    a, b = np.array(pairs).T
    d = a - b
    if np.all(d == d[0]) or np.std(d) < 1e-9 * max(1.0, np.abs(d).max()):
        return  # constant differences: our convention (next test)
    out = paired_test(a, b)
    ref = scipy_stats.ttest_rel(a, b)
    assert out["p_value"] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-12)
    low, high = ref.confidence_interval(0.95)
    assert (out["ci_low"], out["ci_high"]) == pytest.approx((low, high), rel=1e-9, abs=1e-9)


def test_constant_differences_uneven_lengths_and_nans() -> None:
    same = paired_test([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    assert (same["ci_low"], same["ci_high"], same["p_value"]) == (0.0, 0.0, 1.0)
    assert paired_test([2.0, 3.0], [1.0, 2.0])["p_value"] == 0.0
    one = paired_test([2.0, math.nan], [1.0, 5.0])
    assert one["n"] == 1 and one["mean_diff"] == 1.0 and math.isnan(one["ci_low"])
    with pytest.raises(ValueError, match="pair them by seed"):
        paired_test([1.0, 2.0], [1.0])


def test_few_seeds_say_why_the_answer_is_weak() -> None:
    assert "4.3 standard errors" in few_seeds_note(3)  # t(0.975, 2) = 4.303
    assert "no interval" in few_seeds_note(1)
    assert few_seeds_note(5) == ""


def test_two_policies_of_one_scenario_replay_the_same_jobs_on_each_seed() -> None:
    """FIFO and LAS on seed s see the very same jobs (arrivals, sizes, work); seed 0 and seed 1
    differ. So their difference on a seed is the policies', not the draw's."""
    result = run_study(Study(SMALL, (), (0, 1)), executor="serial")
    by = {(r.spec.policy_label, r.spec.sim_seed): r for r in result.results}
    columns = ["job_id", "arrival_s", "scale_factor", "job_type"]
    for seed in (0, 1):
        assert by[("FIFO", seed)].spec.trace_seed == by[("Tiresias LAS", seed)].spec.trace_seed
        pd.testing.assert_frame_equal(
            by[("FIFO", seed)].jobs[columns].sort_values("job_id").reset_index(drop=True),
            by[("Tiresias LAS", seed)].jobs[columns].sort_values("job_id").reset_index(drop=True),
        )
    assert not by[("FIFO", 0)].jobs["arrival_s"].equals(by[("FIFO", 1)].jobs["arrival_s"])
    rows = paired_rows(result, [(("base", "Tiresias LAS"), ("base", "FIFO"))], ["jct_mean_s"])
    runs = result.runs.set_index(["policy", "seed"])["jct_mean_s"]
    diffs = [runs[("Tiresias LAS", s)] - runs[("FIFO", s)] for s in (0, 1)]
    assert rows["mean_diff"].iloc[0] == pytest.approx(np.mean(diffs))
    assert rows["n"].iloc[0] == 2


def test_rows_read_as_sentences_in_one_unit_per_metric() -> None:
    values = {}
    for seed, (a, b) in enumerate([(8.0, 10.0), (11.0, 12.0), (11.0, 15.0)]):
        values[("A", "fifo", seed)], values[("B", "fifo", seed)] = a * 3600, b * 3600
        values[("A", "las", seed)], values[("B", "las", seed)] = (1.0 + seed) * 3600, 7200.0
    result = _fake_result(values)
    assert default_pairs(result) == [
        (("A", "las"), ("A", "fifo")), (("B", "las"), ("B", "fifo")),
        (("B", "fifo"), ("A", "fifo")), (("B", "las"), ("A", "las")),
    ]  # fmt: skip
    table = every_pair(result, ["jct_mean_s"])
    assert set(table["unit"]) == {"h"}
    first = table.iloc[0]  # las - fifo in A: (1 - 8, 2 - 11, 3 - 11) = (-7, -9, -8) h
    assert first["A vs B"] == "las vs fifo in A"
    # one decimal: the column's largest value (an interval bound of B's -10.3 h) is above 10
    assert first["A − B"] == "-8.0 h" and first["mean_diff"] == pytest.approx(-8.0)
    # one metric: Holm's p is the p-value; -8 h of fifo's 10 h is 80%
    assert first["p (Holm)"] == first["p"] and first["% of B"] == "-80%"
    assert first["Reading"] == "las 80% better beyond seed noise (weak: 3 seeds)"
    assert first["Sentence"].startswith("las vs fifo in A, mean JCT: -8.0 h [-10.5, -5.5], p = ")
    variant_row = table.iloc[2]  # fifo in B - fifo in A: (2, 1, 4) h, p = 1 - sqrt(7)/3
    assert variant_row["A vs B"] == "B vs A, fifo"
    assert variant_row["p"] == f"{1 - math.sqrt(7) / 3:.2g}"
    assert variant_row["Reading"] == (  # +7/3 h of A's 10 h
        "+23% of A's value, not distinguishable from seed noise (weak: 3 seeds)"
    )


def test_reading_words() -> None:
    """5 h more than B's 50 h is +10%; under 5% it is small whatever the p-value; a Holm p
    of 0.05 or more is seed noise even when the unadjusted interval excludes zero."""
    row = {"n": 6, "mean_diff": 5.0, "ci_low": 1.0, "ci_high": 9.0, "metric": "jct_mean_s",
           "b_mean": 50.0, "p_holm": 0.01}  # fmt: skip
    assert reading(row, "LAS", "FIFO") == "LAS 10% worse beyond seed noise"
    assert reading({**row, "metric": "utilization_mean"}, "LAS", "FIFO") == (
        "LAS 10% better beyond seed noise"
    )
    assert reading({**row, "b_mean": 200.0}, "LAS", "FIFO") == "small: +2.5% of FIFO's value"
    assert reading({**row, "p_holm": 0.05}, "LAS", "FIFO") == (
        "+10% of FIFO's value, not distinguishable from seed noise"
    )
    assert reading({**row, "ci_low": 0.0, "ci_high": 0.0, "mean_diff": 0.0}, "LAS", "FIFO") == (
        "identical on every seed"
    )
    assert reading({**row, "n": 1, "ci_low": math.nan}, "LAS", "FIFO") == "cannot tell from 1 seed"


def test_holm_by_hand() -> None:
    """Holm 1979 on four p-values: sorted 0.01, 0.02, 0.03, 0.04 times 4, 3, 2, 1 gives 0.04,
    0.06, 0.06, 0.06 (each at least the one before); a NaN is no test and does not count."""
    adjusted = holm([0.03, 0.01, math.nan, 0.04, 0.02])
    assert np.isnan(adjusted[2])
    assert adjusted[[1, 4, 0, 3]] == pytest.approx([0.04, 0.06, 0.06, 0.06])
    assert holm([0.9, 0.5]) == pytest.approx([1.0, 1.0])  # 2 x 0.5 = 1.0; 0.9 not below it
    assert holm([0.6]) == pytest.approx([0.6])  # one test: unchanged


def test_holm_corrects_within_a_pair_over_its_metrics() -> None:
    """A pair tested on two metrics (here the same one twice, so both p-values are equal):
    each Holm p is twice the p-value; another pair is its own family."""
    values = {}
    for seed, (a, b) in enumerate([(8.0, 10.0), (11.0, 12.0), (11.0, 15.0)]):
        for variant in ("A", "B"):
            values[(variant, "fifo", seed)], values[(variant, "las", seed)] = b * 3600, a * 3600
    result = _fake_result(values)
    pairs = [(("A", "las"), ("A", "fifo")), (("B", "las"), ("B", "fifo"))]
    raw = paired_rows(result, pairs, ["jct_mean_s", "jct_mean_s"])
    assert len(raw) == 4 and raw["p_value"].nunique() == 1
    assert list(raw["p_holm"]) == pytest.approx([2 * raw["p_value"].iloc[0]] * 4)


def test_sweep_writes_paired_csv_with_policy_pairs_and_prints_seconds_no_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    study = {"base": json.loads(SMALL.to_json()), "seeds": [0, 1, 2],
             "variants": [{"name": "base"}, {"name": "more v100",
                          "overrides": {"cluster.node_groups.0.nodes": 4}}]}  # fmt: skip
    path = tmp_path / "study.json"
    path.write_text(json.dumps(study))
    assert main(["sweep", str(path), "--out", str(tmp_path / "out"), "--executor", "serial"]) == 0
    out, _ = capsys.readouterr()
    paired = pd.read_csv(tmp_path / "out" / "paired.csv")
    jct = paired[paired["metric"] == "jct_mean_s"]
    assert list(jct["A vs B"]) == [
        "Tiresias LAS vs FIFO in base", "Tiresias LAS vs FIFO in more v100",
        "more v100 vs base, FIFO", "more v100 vs base, Tiresias LAS",
    ]  # fmt: skip
    for sentence in jct["Sentence"]:
        assert sentence in out  # the summary prints the same sentences
    unit = jct["unit"].iloc[0]
    assert unit in ("min", "h", "d") and f"Mean JCT ({unit}), mean [95% interval]" in out
    runs = pd.read_csv(tmp_path / "out" / "runs.csv").set_index(["variant", "policy", "seed"])
    scale = {"min": 60, "h": 3600, "d": 86400}[unit]
    diffs = [
        runs.loc[("base", "Tiresias LAS", s), "jct_mean_s"]
        - runs.loc[("base", "FIFO", s), "jct_mean_s"]
        for s in (0, 1, 2)
    ]
    assert jct["mean_diff"].iloc[0] == pytest.approx(np.mean(diffs) / scale)
    assert "weak with 3 seeds" in out

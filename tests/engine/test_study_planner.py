"""The capacity planner on a case whose answer is known by construction, the Pareto front by
hand, and the sweep / plan commands end to end."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cli import main
from engine.config import (
    ClusterSpec,
    FailureConfig,
    NodeGroup,
    PolicySpec,
    ScenarioConfig,
    TraceSpec,
    TypeSpares,
    spares_of,
)
from engine.errors import ConfigError
from engine.power.energy import full_load_kw
from engine.scenario import run
from engine.sources import Origin
from engine.step_time.throughput import load_matrix
from engine.study.planner import Candidate, PlanSpec, pareto_front, plan
from engine.study.planner_power import Ownership
from engine.study.planner_target import Target
from engine.study.spec import RunSpec
from engine.validate import validate_failures

JOB_TYPE = "ResNet-50 (batch size 128)"  # runs on 2 V100s; Gavel measured 0 on 2 K80s
HOUR_S = 3600.0


def _trace(tmp_path: Path, jobs: int) -> Path:
    """``jobs`` 2-GPU jobs, all at time 0, each one hour on 2 V100s."""
    steps = HOUR_S * load_matrix().steps_per_s(JOB_TYPE, "v100", 2)
    path = tmp_path / "k_jobs.csv"
    path.write_text("job_id,arrival_s,job_type,scale_factor,total_steps\n" + "".join(
        f"j{i},0,{JOB_TYPE},2,{steps!r}\n" for i in range(jobs)
    ))  # fmt: skip
    return path


def _spec(tmp_path: Path, jobs: int) -> PlanSpec:
    base = ScenarioConfig(
        trace=TraceSpec(source=str(_trace(tmp_path, jobs))), policies=(PolicySpec("fifo"),)
    )
    candidates = (Candidate("v100", 0.74, 6, 2), Candidate("k80", 0.135, 6, 2))
    return PlanSpec(base, candidates, "jct_mean_s", 1.1 * HOUR_S, (0, 1))


def test_the_planner_finds_exactly_k_v100_nodes_when_the_trace_needs_them(tmp_path: Path) -> None:
    # FIFO: with n < k two-GPU V100 nodes, k - n jobs wait at least an hour, so the mean JCT is
    # at least (1 + (k - n) / k) h > 1.1 h; with k nodes every job finishes in 1 h. The K80s are
    # cheaper but cannot run this job on 2 GPUs, so the cheapest mix is k V100 nodes, no K80.
    for k in (3, 4):
        result = plan(_spec(tmp_path, k), executor="serial")
        assert result.chosen is not None and result.chosen_row is not None
        assert result.chosen.capacity() == {"v100": 2 * k}
        tried = result.tried.set_index("mix")
        chosen = tried.loc[f"{k} V100 nodes"]
        assert chosen["mean"] == pytest.approx(HOUR_S) and chosen["meets"]
        assert not tried.loc[f"{k - 1} V100 nodes", "meets"]
        assert tried.loc["6 K80 nodes", "error"]  # the policy cannot run it
        # every seed of the search, and the answer's 10 fresh seeds (seeds 10-19: the search
        # may use 0-9), deterministic here (1 h on every seed), so the first mix confirmed holds
        runs = tried["seeds"].sum() + 2 * (tried["error"] != "").sum() + tried["fresh_seeds"].sum()
        assert result.num_simulations == runs and tried["fresh_seeds"].sum() == 10
        assert chosen["confirmed"] and chosen["fresh_bound"] == pytest.approx(HOUR_S)
        assert result.spec.fresh_seeds() == tuple(range(10, 20))
        assert "Confirmation on 10 fresh seeds (seeds 10-19" in "\n".join(result.explanation)
        assert result.chosen_scenario is not None
        assert result.chosen_scenario.cluster == result.chosen
        # today's cluster (the scenario's 512 GPUs) is the reference, evaluated and reported
        # (FIFO puts some of these jobs on slower P100s there, so it need not meet 1.1 h)
        assert result.today["today"] and result.today["seeds"] == 2
        assert result.today["mean"] >= HOUR_S
        assert result.today["cost_usd_per_h"] == pytest.approx(241.92)
        assert any(line.startswith("Today's cluster") for line in result.explanation)
        assert not any("_s " in line or "engine." in line for line in result.explanation)


def test_the_target_is_met_at_the_stated_confidence(tmp_path: Path) -> None:
    # Same jobs, V100s only: 6 nodes (a start: the type alone at its bound) give exactly 1 h on
    # every seed, so the bound equals the mean; 0.99 h is missed at any confidence, 1 h met.
    spec = _spec(tmp_path, 3)
    for value, meets in ((0.99 * HOUR_S, False), (HOUR_S, True)):
        for confidence in (0.5, 0.95):
            strict = dataclasses.replace(spec, target_value=value, confidence=confidence,
                                         search_trials=4)  # fmt: skip
            result = plan(strict, executor="serial")
            row = result.tried.set_index("mix").loc["6 V100 nodes"]
            assert row["bound"] == pytest.approx(HOUR_S) and bool(row["meets"]) is meets


def test_pareto_front_by_hand() -> None:
    tried = pd.DataFrame({
        "mix": list("abcde"), "cost_usd_per_h": [1.0, 2.0, 2.0, 3.0, 4.0],
        "mean": [10.0, 8.0, 9.0, 8.0, float("nan")],
    })  # fmt: skip
    assert pareto_front(tried)["mix"].tolist() == ["a", "b"]
    # higher is better (the share of jobs starting within T): b (8) is beaten by a (10)
    assert pareto_front(tried, lower_is_better=False)["mix"].tolist() == ["a"]


def test_plan_spec_errors_name_the_problem(tmp_path: Path) -> None:
    spec = _spec(tmp_path, 1)
    with pytest.raises(ConfigError, match="target_metric"):
        PlanSpec(spec.base, spec.candidates, "makespan", 1.0)
    with pytest.raises(ConfigError, match="exactly one policy"):
        PlanSpec(ScenarioConfig(), spec.candidates, "jct_mean_s", 1.0)
    with pytest.raises(ConfigError, match="unknown key"):
        PlanSpec.from_dict({"base": {}, "candidate": []})
    with pytest.raises(ConfigError, match="confidence"):
        dataclasses.replace(spec, confidence=0.3)
    with pytest.raises(ConfigError, match="share"):
        dataclasses.replace(spec, target_metric="start_within_share", target_value=95)


def _failing_spec(tmp_path: Path, max_spares: int) -> PlanSpec:
    """Four one-hour 2-GPU jobs at time 0 on at most two 2-GPU V100 nodes whose MTBF is 4 h
    (a failure in most runs) and whose repair takes 24 h; p95 JCT at most 5 h, decided on the
    mean of 5 seeds (a candidate's on all 10 search seeds; at 3 h, 2 V100 nodes + 2 spares met
    it on seeds 0-4 and averaged 4.70 h on 0-9, so since the candidate's screen on all search
    seeds, issue 34, no mix met 3 h)."""
    base = ScenarioConfig(
        trace=TraceSpec(source=str(_trace(tmp_path, 4))), policies=(PolicySpec("fifo"),),
        cluster=ClusterSpec((NodeGroup("v100", 2, 2, "rack0"),)),
        failures=FailureConfig(enabled=True, node_mtbf_h=4.0, repair_h=24.0),
    )  # fmt: skip
    return PlanSpec(base, (Candidate("v100", 1.0, 2, 2),), "jct_p95_s", 5 * HOUR_S,
                    (0, 1, 2, 3, 4), confidence=0.5, max_spares=max_spares)  # fmt: skip


def test_with_frequent_failures_only_the_spares_dimension_meets_a_p95_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Without failures the four jobs run two at a time on the two nodes: JCTs 1, 1, 2, 2 h, p95
    # 2 h. A failed node is out for 24 h, so with no spare the jobs it held wait for the other
    # node or the repair: no mix of at most two nodes without spares meets 5 h. A spare swaps
    # in after 600 s, so the jobs lose at most a checkpoint interval and the swap.
    plain = plan(_failing_spec(tmp_path, 0), executor="serial")
    assert plain.chosen is None and not plain.tried.columns.str.startswith("spares").any()
    assert not plain.tried["meets"].any() and set(plain.tried["nodes:v100"]) == {1, 2}
    result = plan(_failing_spec(tmp_path, 2), executor="serial")
    row = result.chosen_row
    spares = row["spares:v100"] if row is not None else 0
    assert row is not None and row["meets"] and row["nodes:v100"] == 2 and spares >= 1
    # spares are bought: (2 nodes + spares) x 2 GPUs x 1 USD per GPU-hour
    assert row["cost_usd_per_h"] == pytest.approx((2 + spares) * 2 * 1.0)
    assert row["mean"] >= 2 * HOUR_S  # never below the failure-free p95
    tried = result.tried
    assert not tried[tried["spares:v100"] == 0]["meets"].any()
    cheaper = tried[tried["cost_usd_per_h"] < row["cost_usd_per_h"]]
    assert not cheaper["meets"].any()
    assert tried["goodput"].between(0, 1, inclusive="right").all()
    assert result.today["spares:v100"] == 0 and 0 < result.today["goodput"] < 1
    chosen = result.chosen_scenario
    assert chosen is not None and spares_of(chosen.failures, "v100") == spares
    assert chosen.cluster.capacity() == {"v100": 2 * (2 + spares)}
    words = "\n".join(result.explanation)
    assert "goodput" in words.split("Today's cluster", 1)[1].split("\n")[0]
    assert f"+ spares {spares} V100" in words.split("Chosen:")[1]
    # the CLI prints the same words, and its tried.csv carries goodput
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(result.spec.to_dict()))
    assert main(["plan", str(path), "--out", str(tmp_path / "out"), "--executor", "serial"]) == 0
    out = capsys.readouterr().out
    assert "Chosen: 2 V100 nodes + " in out and "goodput" in out
    assert "goodput" in pd.read_csv(tmp_path / "out" / "tried.csv").columns


def test_spares_bad_input_names_the_field(tmp_path: Path) -> None:
    spec = _failing_spec(tmp_path, 0)
    assert "max_spares" not in spec.to_dict()  # a plan without spares keeps its key
    with pytest.raises(ConfigError, match="max_spares must be >= 0"):
        dataclasses.replace(spec, max_spares=-1)
    with pytest.raises(ConfigError, match="max_spares: 3 spare nodes .* max_nodes \\(2\\)"):
        dataclasses.replace(spec, max_spares=3)
    off = dataclasses.replace(spec.base, failures=FailureConfig())
    with pytest.raises(ConfigError, match="max_spares: spare nodes .*'v100': 1.* failures on"):
        dataclasses.replace(spec, base=off, max_spares=1)
    gavel = dataclasses.replace(spec.base, policies=(PolicySpec("gavel_maxmin"),))
    with pytest.raises(ConfigError, match="does not model failed nodes"):
        dataclasses.replace(spec, base=gavel)


def test_spares_are_bounded_per_gpu_type_and_the_old_single_number_still_reads(
    tmp_path: Path,
) -> None:
    spec = _failing_spec(tmp_path, 2)
    two = (Candidate("v100", 1.0, 2, 2, max_spares=1), Candidate("k80", 0.1, 3, 2, max_spares=0))
    per_type = dataclasses.replace(spec, candidates=two)
    assert per_type.spare_bounds() == (1, 0) and per_type.spared() == [("v100", 1)]
    # nodes of each type, then one spares count (V100's): the K80s hold none
    mix = (2, 3, 1)
    assert per_type.in_bounds(mix) and not per_type.in_bounds((2, 3, 2))
    assert per_type.spares(mix) == {"v100": 1, "k80": 0}
    assert per_type.bought(mix) == [(two[0], 3), (two[1], 3)]
    assert per_type.cost_usd_per_h(mix) == pytest.approx(3 * 2 * 1.0 + 3 * 2 * 0.1)
    assert per_type.label(mix) == "2 V100 + 3 K80 nodes + spares 1 V100"
    assert not per_type.in_bounds((0, 3, 1))  # no spare of a type the mix holds no node of
    failures = per_type.scenario(mix).failures
    assert spares_of(failures, "v100") == 1 and spares_of(failures, "k80") == 0
    # the old single number is every type's bound; a candidate's own number wins
    data = {**per_type.to_dict(), "max_spares": 2}
    data["candidates"] = [{"worker_type": "v100", "price_usd_per_gpu_h": 1.0, "max_nodes": 2,
                           "gpus_per_node": 2},
                          {"worker_type": "k80", "price_usd_per_gpu_h": 0.1, "max_nodes": 3,
                           "gpus_per_node": 2, "max_spares": 3}]  # fmt: skip
    read = PlanSpec.from_json(json.dumps(data), Origin.LOCAL)
    assert (
        read.spare_bounds() == (2, 3) and PlanSpec.from_dict(read.to_dict(), Origin.LOCAL) == read
    )
    with pytest.raises(ConfigError, match="k80: max_spares: 4 spare nodes of k80 .* max_nodes"):
        data["candidates"][1]["max_spares"] = 4
        PlanSpec.from_dict(data, Origin.LOCAL)


def test_spares_of_one_type_listed_apart_run_as_the_single_number_does(tmp_path: Path) -> None:
    # type_spares naming the only type with 1 spare is the same reserve as spares_per_type=1
    base = _failing_spec(tmp_path, 0).base
    single = dataclasses.replace(base.failures, spares_per_type=1)
    listed = dataclasses.replace(base.failures, type_spares=(TypeSpares("v100", 1),))
    a, b = (run(RunSpec(dataclasses.replace(base, failures=f), "t", 0, 0, "")).jobs
            for f in (single, listed))  # fmt: skip
    pd.testing.assert_frame_equal(a, b)
    assert "type_spares" not in base.to_dict()["failures"]  # a scenario without it hashes as before
    bad = dataclasses.replace(base.failures, type_spares=(TypeSpares("v100", 2),))
    with pytest.raises(ConfigError, match=r"failures\.type_spares\[0\]\.spares: 2 spare"):
        validate_failures(dataclasses.replace(base, failures=bad))
    bad = dataclasses.replace(base.failures, type_spares=(TypeSpares("k80", 1),))
    with pytest.raises(ConfigError, match=r"type_spares\[0\]\.worker_type: 'k80' is not in"):
        validate_failures(dataclasses.replace(base, failures=bad))


def test_sweep_command_writes_tables_and_logs_progress_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ScenarioConfig(trace=TraceSpec(max_jobs=30), policies=(PolicySpec("fifo"),))
    study = {
        "base": json.loads(base.to_json()),
        "variants": [{"name": "a"}, {"name": "slow rounds",
                                     "overrides": {"rounds.admit_mid_round": False}}],
        "seeds": [0, 1],
    }  # fmt: skip
    path = tmp_path / "study.json"
    path.write_text(json.dumps(study))
    assert main(["sweep", str(path), "--out", str(tmp_path / "out"), "--executor", "serial"]) == 0
    out, err = capsys.readouterr()
    assert "\r" not in err and err.count("\n") >= 5
    assert "[4/4]" in err and "slow rounds vs a, FIFO" in out
    runs = pd.read_csv(tmp_path / "out" / "runs.csv")
    assert len(runs) == 4 and {"jct_mean_s", "work_cost_usd"} <= set(runs.columns)
    assert {"stats.csv", "paired.csv", "summary.txt", "study.json"} <= {
        p.name for p in (tmp_path / "out").iterdir()
    }


def test_plan_command_writes_the_chosen_scenario(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _spec(tmp_path, 2)
    data = {
        "base": json.loads(spec.base.to_json()),
        "candidates": [c.__dict__ for c in spec.candidates],
        "target_metric": "jct_mean_s", "target_value": spec.target_value, "seeds": [0],
    }  # fmt: skip
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(data))
    assert main(["plan", str(path), "--out", str(tmp_path / "out"), "--executor", "serial"]) == 0
    out, err = capsys.readouterr()
    assert "Chosen: 2 V100 nodes" in out and "\r" not in err and "sims]" not in out
    written = (tmp_path / "out" / "chosen_scenario.json").read_text()
    chosen = ScenarioConfig.from_json(written, Origin.LOCAL)  # names the local trace file
    assert chosen.cluster.capacity() == {"v100": 4}


@settings(max_examples=40, deadline=None)
@given(v100=st.integers(0, 4), k80=st.integers(0, 4), spare=st.integers(0, 1),
       ownership=st.booleans())  # fmt: skip
def test_a_mix_and_the_same_cluster_as_today_cost_the_same_by_one_rule(
    v100: int, k80: int, spare: int, ownership: bool
) -> None:
    """The search's price of a mix (``cost_usd_per_h``) and the price of the same cluster as
    today's (``objective_usd_per_h``, the tried table's column) agree, by hand: rental is
    (nodes + spares) x GPUs per node x price, spares bought for the types held; ownership is
    the purchase over 5 x 8,760 h plus full-load energy at the electricity price."""
    two = (Candidate("v100", 1.0, 4, 2, max_spares=1), Candidate("k80", 0.1, 4, 4))
    base = ScenarioConfig(
        cluster=ClusterSpec((NodeGroup("v100", 1, 2, "r0"),)),
        policies=(PolicySpec("fifo"),),
        failures=FailureConfig(enabled=True, node_mtbf_h=4.0, repair_h=1.0),
    )
    owning = Ownership((("v100", 8_760.0), ("k80", 876.0)), electricity_usd_per_kwh=0.5)
    spec = PlanSpec(base, two, "jct_mean_s", HOUR_S, (0, 1),
                    ownership=owning if ownership else None)  # fmt: skip
    mix = (v100, k80, spare if v100 else 0)
    bought_v100 = v100 + (spare if v100 else 0)
    if ownership:
        kw = full_load_kw(spec.cluster(mix), spec.power)
        hand = (bought_v100 * 2 * 8_760.0 + k80 * 4 * 876.0) / (5 * 8_760.0) + 0.5 * kw
    else:
        hand = bought_v100 * 2 * 1.0 + k80 * 4 * 0.1
    assert spec.cost_usd_per_h(mix) == pytest.approx(hand)
    today = dataclasses.replace(spec, base=dataclasses.replace(base, cluster=spec.cluster(mix)))
    assert today.objective_usd_per_h(today.base.cluster) == pytest.approx(hand)


def test_a_plan_against_today_judges_each_mix_by_its_difference_on_the_same_seeds(
    tmp_path: Path,
) -> None:
    # Four one-hour 2-GPU jobs at time 0 under FIFO (issue 38: "the cheapest mix not worse than
    # today's"). Today, two 2-GPU V100 nodes: two jobs finish at 1 h, two at 2 h, mean 1.5 h on
    # every seed. One V100 node runs them one after another: 1, 2, 3, 4 h, mean 2.5 h, so 1 h
    # worse than today's on every seed; three nodes: (1 + 1 + 1 + 2) / 4 = 1.25 h. K80s cannot
    # run the job. No spread, so each bound is its mean difference.
    two_nodes = ClusterSpec((NodeGroup("v100", 2, 2, "rack0"),))
    spec = _spec(tmp_path, 4)
    spec = dataclasses.replace(spec, base=dataclasses.replace(spec.base, cluster=two_nodes),
                               versus_today=True, target_value=0.0)  # fmt: skip
    result = plan(spec, executor="serial")
    tried = result.tried.set_index("mix")
    assert result.today["mix"] == "2 V100 nodes" and result.today["meets"]
    assert result.today["mean"] == pytest.approx(0.0, abs=1e-6)
    assert result.today["metric_mean"] == pytest.approx(1.5 * HOUR_S)
    one, three = tried.loc["1 V100 nodes"], tried.loc["3 V100 nodes"]
    assert one["mean"] == pytest.approx(HOUR_S) and one["bound"] == pytest.approx(HOUR_S)
    assert not one["meets"] and three["mean"] == pytest.approx(-0.25 * HOUR_S)
    assert result.chosen_row is not None and result.chosen_row["mix"] == "2 V100 nodes"
    assert result.chosen_row["confirmed"] and result.chosen_row["fresh_seeds"] == 10
    words = "\n".join(result.explanation)
    assert "Target: mean JCT no worse than today's cluster's on the same seeds." in words
    assert result.spec.target.sure_words(one["bound"], 0.95) == (
        "we are 95% sure the mean JCT is at most 1.00 h above today's on the same seeds"
    )
    assert (
        "2 V100 nodes (2.96 USD/h): mean JCT minus today's +0.00 h, we are 97.5% sure the mean "
        "JCT is no worse than today's on the same seeds: confirmed" in words
    ), words
    # the fresh seeds ran today's cluster too: the chosen mix is judged against it there
    assert result.chosen_row["fresh_bound"] == pytest.approx(0.0, abs=1e-6)
    # a stated margin of 1.01 h: one node (1 h worse) is now good enough, at half the cost
    margin = plan(dataclasses.replace(spec, target_value=1.01 * HOUR_S), executor="serial")
    assert margin.chosen_row is not None and margin.chosen_row["mix"] == "1 V100 nodes"
    assert "(by at most 1.01 h)" in margin.explanation[0]


def test_a_target_against_today_is_checked_and_said_in_a_meetings_words() -> None:
    with pytest.raises(ConfigError, match="versus_today: target_value is the margin"):
        Target("jct_mean_s", -1.0, versus_today=True)
    share = Target("start_within_share", 0.02, versus_today=True)
    assert share.meets(-0.02) and not share.meets(-0.03) and share.goal == -0.02
    assert share.sure_words(-0.015, 0.9) == (
        "we are 90% sure the share of jobs starting within 1 h is at most 1.5 points below "
        "today's on the same seeds"
    )
    jct = Target("jct_mean_s", 0.0, versus_today=True)
    assert jct.words(-1800.0) == "-0.50 h" and jct.violation(360.0) == pytest.approx(0.1)
    assert jct.sure_words(-1800.0, 0.95) == (
        "we are 95% sure the mean JCT is at least 0.50 h below today's on the same seeds"
    )
    # the paired bound is Student's t on the differences (which may be negative), by hand
    diffs = [-1.0, 1.0, 3.0]  # mean 1, s 2, t(0.95, 2) = 2.919986
    assert jct.bound(diffs, 0.95) == pytest.approx(1.0 + 2.919986 * 2 / 3**0.5, rel=1e-6)

"""The planner against an exhaustive search on grids small enough to enumerate, on metrics that
are not monotone in the node counts, and on the issue's lowered-target Philly case (issue 23).

The exhaustive search evaluates every mix of the grid by the planner's own rule (the plan's
seeds, more seeds near the target, the one-sided bound), then runs the planner's own
confirmation stage on them (issue 34, `engine.study.planner_confirm`: cheaper mixes that
could still win get more search seeds, the candidate runs on all max_seeds search seeds, then
confirmations on the fresh seeds, the k-th at 1 - 5%/2^k, at most CONFIRM_MIXES). The mix it
accepts is the optimum the planner is measured against: the planner may only answer with a
confirmed mix. LAS and FIFO run on three sets of plan seeds (0-2, 3-5, 6-8; they also seed the
search's sampler): measured, each chose the optimum on all three (LAS 6.88, FIFO 7.96 USD/h).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path

import pytest

from engine.config import ClusterSpec, NodeGroup, PolicySpec, ScenarioConfig, TraceSpec
from engine.scenario import run
from engine.study.planner import Candidate, PlanSpec, plan
from engine.study.planner_confirm import CONFIRM_MIXES, confirm, confirm_confidence
from engine.study.planner_eval import Evaluator
from engine.study.planner_target import percent
from engine.study.spec import RunSpec
from engine.study.stats import mean_bound

ROOT = Path(__file__).resolve().parents[2]
TODAY = ClusterSpec(
    tuple(NodeGroup(t, 2, 4, f"r{i}") for i, t in enumerate(("v100", "p100", "k80")))
)
PRICES = (("v100", 0.74), ("p100", 0.43), ("k80", 0.135))
GAVEL_DEFECT = (
    "measured: the planner answers 1 V100 + 3 P100 + 2 K80 nodes (9.20 USD/h, its 5th "
    "confirmation at 99.84%; 10.44 before the equal-seed comparison) and never tries 1 V100 + "
    "3 P100 nodes (8.12 USD/h); the exhaustive confirmation at the spent levels ends with no "
    "answer (10 refusals: 8.12 USD/h's fresh bound is 2.213 h at 99.375%, target 2.2 h)"
)


def _spec(policy: str, jobs: int, metric: str, value: float, **extra: float) -> PlanSpec:
    base = ScenarioConfig(trace=TraceSpec(max_jobs=jobs), policies=(PolicySpec(policy),),
                          cluster=TODAY)  # fmt: skip
    candidates = tuple(Candidate(t, p, 4, 4) for t, p in PRICES)
    return PlanSpec(base, candidates, metric, value, **extra)  # type: ignore[arg-type]


def _exhaustive(spec: PlanSpec, store: Path) -> tuple[float, Evaluator]:
    """The cost of the mix the planner's confirmation stage (`engine.study.planner_confirm`:
    more seeds for cheaper mixes, the candidate's screen, then confirmations on the fresh seeds
    at the spent levels, at most CONFIRM_MIXES) accepts when every mix of the grid was
    evaluated; inf if none."""
    ev = Evaluator(spec, "serial", None, None, store, None)
    ev.use_trace(None)
    grid = [m for m in itertools.product(*(range(c.max_nodes + 1) for c in spec.candidates))
            if spec.in_bounds(m)]  # fmt: skip
    ev.evaluate(grid, "grid")
    best = confirm(spec, ev, lambda _: None)
    return (float("inf") if best is None else ev.cost(best)), ev


def _not_monotone(spec: PlanSpec, ev: Evaluator) -> bool:
    """Some mix gets worse when one node is added to it."""
    sign = 1 if spec.target.at_most else -1
    means = {k: sign * float(r["mean"]) for k, r in ev.rows.items() if not r["error"]}
    return any(
        means.get(tuple(n + (j == i) for j, n in enumerate(m)), -float("inf")) > means[m]
        for m in means for i in range(len(m))
    )  # fmt: skip


LAS: tuple[object, ...] = ("las", 150, "jct_mean_s", 4 * 3600.0, {})
FIFO: tuple[object, ...] = ("fifo", 150, "start_within_share", 0.9, {"start_within_s": 1800.0})


@pytest.mark.parametrize(
    ("policy", "jobs", "metric", "value", "extra", "seeds"),
    [
        pytest.param(
            "gavel_maxmin",
            100,
            "jct_p95_s",
            2.2 * 3600.0,
            {},
            (0, 1, 2),
            marks=pytest.mark.xfail(strict=True, reason=GAVEL_DEFECT),
        ),
        # other plan seeds (they also seed the search's sampler): not one lucky draw
        *((*case, seeds) for case in (LAS, FIFO) for seeds in ((0, 1, 2), (3, 4, 5), (6, 7, 8))),
    ],
    ids=["gavel-maxmin-p95", "las-mean-jct", "las-mean-jct-seeds-3-5", "las-mean-jct-seeds-6-8",
         "fifo-start-within-30min", "fifo-start-within-30min-seeds-3-5",
         "fifo-start-within-30min-seeds-6-8"],
)  # fmt: skip
def test_planner_is_within_5_percent_of_the_exhaustive_optimum(
    tmp_path: Path,
    policy: str,
    jobs: int,
    metric: str,
    value: float,
    extra: dict[str, float],
    seeds: tuple[int, ...],
) -> None:
    spec = dataclasses.replace(_spec(policy, jobs, metric, value, **extra), seeds=seeds)
    result = plan(spec, executor="serial", results_dir=tmp_path)
    optimum, ev = _exhaustive(spec, tmp_path)
    exhaustive_sims = ev.num_simulations + result.num_simulations  # the store held the planner's
    assert _not_monotone(spec, ev)
    assert result.chosen_row is not None and optimum < float("inf")
    chosen = float(result.chosen_row["cost_usd_per_h"])
    assert optimum - 1e-9 <= chosen <= 1.05 * optimum
    assert result.num_simulations < exhaustive_sims
    assert result.today["today"] and result.today["cost_usd_per_h"] == pytest.approx(
        2 * 4 * sum(p for _, p in PRICES)
    )
    print(
        f"{policy} {metric}: planner {result.num_simulations} simulations, "
        f"exhaustive {exhaustive_sims}; chosen {chosen:.2f} USD/h, optimum {optimum:.2f}"
    )


def test_a_re_plan_resumes_from_the_stored_study(tmp_path: Path) -> None:
    spec = _spec("fifo", 60, "jct_mean_s", 2 * 3600.0, search_trials=8)
    first = plan(spec, executor="serial", results_dir=tmp_path)
    again = plan(spec, executor="serial", results_dir=tmp_path)
    assert first.num_simulations > 0 and again.num_simulations == 0
    assert list((tmp_path / "planner").glob("*.journal"))
    assert again.chosen_row is not None and first.chosen_row is not None
    assert again.chosen_row["mix"] == first.chosen_row["mix"]
    assert set(again.tried["mix"]) == set(first.tried["mix"])


def test_the_philly_4h_answer_holds_on_10_seeds_the_planner_never_used() -> None:
    # Issue 23, point 1 and issue 34: mean JCT <= 4 h on examples/plan.json (today's cluster
    # costs 241.92 USD/h). The answer, re-simulated on seeds 20-29 (the search may use 0-9 and
    # confirms on 10-19), meets the target by the one-sided 95% bound over those 10 seeds.
    data = json.loads((ROOT / "examples" / "plan.json").read_text())
    spec = PlanSpec.from_dict({**data, "target_value": 14_400})
    result = plan(spec, executor="pool", workers=2)
    assert result.today["cost_usd_per_h"] == pytest.approx(241.92)
    assert result.chosen_scenario is not None and result.chosen_row is not None
    assert result.chosen_row["cost_usd_per_h"] <= 241.92
    assert result.chosen_row["confirmed"] and result.chosen_row["fresh_seeds"] == 10
    used = {*spec.search_seeds(), *spec.fresh_seeds()}
    unseen = [s for s in range(20, 30) if s not in used]
    assert len(unseen) == 10
    again = [dataclasses.replace(result.chosen_scenario, seed=s, trace_seed=s) for s in unseen]
    jct = [run(RunSpec(c, "check", c.seed, c.seed, "")).summary["jct_mean_s"] for c in again]
    assert mean_bound(jct, 0.95) <= 14_400, (result.chosen_row["mix"], jct)
    words = "\n".join(result.explanation)
    assert "Confirmation on 10 fresh seeds (seeds 10-19, none used by the search)" in words


@pytest.mark.parametrize(
    ("policy", "jobs"), [("fifo", 80), ("srtf", 120)], ids=["fifo-80-jobs", "srtf-120-jobs"]
)
def test_a_mix_whose_first_seeds_were_lucky_is_caught_by_the_fresh_seeds(
    policy: str, jobs: int
) -> None:
    # p95 JCT <= 3 h on the first jobs of the Philly sample, seeds 0-2 (up to 10). Two P100
    # nodes, a start of the search (P100 alone, bisected), meet it on the search's seeds: the
    # old rule (the cheapest mix that met the target) answered with them. On seeds 10-19 their
    # bound misses 3 h, so they are refused and a dearer mix that holds is the answer.
    spec = _spec(policy, jobs, "jct_p95_s", 3 * 3600.0, seeds=(0, 1, 2), search_trials=16)
    result = plan(spec, executor="serial")
    tried = result.tried.set_index("mix")
    lucky = tried.loc["2 P100 nodes"]
    old_rule = tried[tried["meets"]]["cost_usd_per_h"].idxmin()
    assert old_rule == "2 P100 nodes" and lucky["bound"] <= 3 * 3600.0
    assert lucky["confirmed"] is False and lucky["fresh_seeds"] == 10
    assert lucky["fresh_bound"] > 3 * 3600.0
    chosen = result.chosen_row
    assert chosen is not None and chosen["confirmed"] is True
    assert chosen["fresh_bound"] <= 3 * 3600.0 < lucky["fresh_bound"]
    assert chosen["cost_usd_per_h"] > lucky["cost_usd_per_h"]
    words = "\n".join(result.explanation)
    assert "2 P100 nodes (3.44 USD/h): p95 JCT" in words and "refused, although it met" in words
    # the k-th confirmation at 1 - 5%/2^k, so together they keep 95%; the explanation says so
    step = int((tried["confirmed"] == False).sum()) + 1  # noqa: E712
    assert lucky["fresh_confidence"] == pytest.approx(0.975)
    assert chosen["fresh_confidence"] == pytest.approx(1 - 0.05 / 2**step)
    assert (
        f"confirmed (confirmation {step} of at most 10, at {percent(1 - 0.05 / 2**step)}: "
        "the k-th is judged at 1 - 5%/2^k, so together they keep 95%)" in words
    )


def test_the_confirmations_together_keep_the_plans_confidence() -> None:
    # alpha spending (issue 34): the k-th confirmation's error is (1 - c) / 2^k, so the errors of
    # all CONFIRM_MIXES confirmations sum to less than 1 - c, at 95% and at 80%
    for confidence in (0.95, 0.8):
        levels = [confirm_confidence(confidence, k) for k in range(1, CONFIRM_MIXES + 1)]
        assert levels[0] == pytest.approx(1 - (1 - confidence) / 2)
        assert levels == sorted(levels) and sum(1 - c for c in levels) < 1 - confidence
    assert [percent(confirm_confidence(0.95, k)) for k in (1, 2, 3)] == [
        "97.5%", "98.75%", "99.38%"
    ]  # fmt: skip

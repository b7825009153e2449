"""A mix that cannot run some seed's draw of a trace whose job types are drawn from their sizes
(rule 1) is refused before any simulation (issue 34: the planner confirmed such mixes on seeds
whose draws happened to fit, and they missed on others)."""

from __future__ import annotations

from engine.config import ClusterSpec, NodeGroup, PolicySpec, ScenarioConfig, TraceSpec
from engine.step_time.throughput import load_matrix
from engine.study.planner import Candidate, PlanSpec
from engine.study.planner_eval import Evaluator
from engine.traces import draw_trace
from engine.traces.resolve import draw_misfit
from engine.traces.rules import job_type_options

MATRIX = load_matrix()
PHILLY_80 = TraceSpec(source="sample:philly_2000.csv", max_jobs=80)
GAVEL = TraceSpec(source="sample:gavel_artifact_evaluation.trace")


def nodes(*groups: tuple[str, int]) -> ClusterSpec:
    return ClusterSpec(tuple(NodeGroup(t, n, 4, f"r{i}") for i, (t, n) in enumerate(groups)))


def test_one_p100_node_and_two_k80_nodes_cannot_run_every_draw() -> None:
    """An 8-GPU Philly job may be drawn as ResNet-50 (batch 128), which Gavel measured on 8
    P100s but not on 8 K80s: 4 P100 GPUs and 8 K80 GPUs cannot start it, whatever the seed."""
    drawn = draw_trace(PHILLY_80, MATRIX, 0)
    assert 8 in set(drawn.jobs["scale_factor"])
    resnet = "ResNet-50 (batch size 128)"
    assert resnet in job_type_options(MATRIX, "p100", 8)
    assert MATRIX.steps_per_s(resnet, "k80", 8) == 0 < MATRIX.steps_per_s(resnet, "p100", 8)
    why = draw_misfit(drawn, PHILLY_80, nodes(("p100", 1), ("k80", 2)), MATRIX)
    assert "8-GPU job" in why and "too few (4 p100)" in why


def test_enough_gpus_of_the_assumed_type_run_every_draw() -> None:
    """Rule 1 draws only types that run on the assumed type (p100) at the job's size, so as
    many P100 GPUs as the largest job runs every draw."""
    drawn = draw_trace(PHILLY_80, MATRIX, 0)
    largest = int(drawn.jobs["scale_factor"].max())
    assert draw_misfit(drawn, PHILLY_80, nodes(("p100", largest // 4)), MATRIX) == ""


def test_recorded_job_types_say_nothing() -> None:
    """Gavel's trace records each job's type: one draw is every draw, and the run speaks."""
    drawn = draw_trace(GAVEL, MATRIX, 0)
    assert draw_misfit(drawn, GAVEL, nodes(("k80", 1)), MATRIX) == ""


def test_the_planner_refuses_such_a_mix_without_simulating_it() -> None:
    base = ScenarioConfig(trace=PHILLY_80, policies=(PolicySpec("fifo"),),
                          cluster=nodes(("p100", 2)))  # fmt: skip
    candidates = (Candidate("p100", 0.43, 3, 4), Candidate("k80", 0.135, 3, 4))
    spec = PlanSpec(base, candidates, "jct_p95_s", 3 * 3600.0, (1, 2), max_seeds=2,
                    search_trials=4, max_simulations=100)  # fmt: skip
    ev = Evaluator(spec, "serial", 1, None, None, None)
    ev.use_trace(None)
    ev.evaluate([(1, 2), (2, 0)], "grid")
    assert ev.rows[(1, 2)]["error"].startswith("cannot run every draw of the trace: a 8-GPU job")
    assert not ev.rows[(1, 2)]["meets"]
    assert not ev.rows[(2, 0)]["error"]
    assert ev.num_simulations == 2  # (2, 0) on seeds 1 and 2; (1, 2) never simulated

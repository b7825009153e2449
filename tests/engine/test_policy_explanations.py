"""Each policy's own account of its decisions (``Policy.explanation``,
:mod:`engine.policies.explain`): the contract over the whole registry, and hand-computed keys of
one job alone."""

from __future__ import annotations

import math
from functools import cache

import pytest

from engine.config import ClusterSpec, NodeGroup, PolicySpec, ScenarioConfig, TraceSpec
from engine.policies.base import build_params, get_policy, list_policies
from engine.policies.explain import UNITS, KeyTerm, RunRecords
from engine.results import SimulationResult
from engine.scenario import run_scenario, scenario_matrix
from engine.step_time.throughput import load_matrix

JOB_TYPE = "ResNet-18 (batch size 64)"
RATE = load_matrix().steps_per_s(JOB_TYPE, "v100", 2)  # steps/s on 2 V100s (Gavel's matrix)
CLUSTER = ClusterSpec((NodeGroup("v100", 1, 4),))


@cache
def one_job_alone() -> tuple[SimulationResult, ScenarioConfig]:
    """FIFO runs job a (2 V100s, 1 h of work) alone from 0 s to 3,600 s; b (1 GPU, 10 min)
    arrives at 60 s and runs beside it."""
    csv = (
        "job_id,arrival_s,job_type,scale_factor,total_steps\n"
        f'a,0,"{JOB_TYPE}",2,{round(3600 * RATE)}\n'
        f'b,60,"{JOB_TYPE}",1,{round(600 * load_matrix().steps_per_s(JOB_TYPE, "v100", 1))}\n'
    )
    config = ScenarioConfig(
        trace=TraceSpec(source="upload:jobs.csv", format="canonical"),
        cluster=CLUSTER,
        policies=(PolicySpec("fifo"),),
    )
    result = run_scenario(config, upload=("jobs.csv", csv.encode()))
    return result.results[0], result.config


def records(round_s: float = 0.0) -> RunRecords:
    sim, config = one_job_alone()
    return RunRecords(sim, scenario_matrix(config), CLUSTER.capacity(), round_s)


@pytest.mark.parametrize("name", list_policies())
def test_every_policy_explains_with_terms_of_known_units(name: str) -> None:
    """Read against the same run's tables, every registered policy's explanation says a rule
    (a sentence or nothing) and, for each job at each moment, terms whose text takes the value
    once and whose unit is one the dashboard's writer reads."""
    cls = get_policy(name)
    explanation = cls.explanation(build_params(cls, {}), records(300.0))
    assert explanation.rule == "" or explanation.rule.endswith(".")
    for job in ("a", "b"):
        for at_s in (0.0, 60.0, 1800.0, 3600.0):
            for term in explanation.key(job, at_s):
                assert term.unit in UNITS and term.text.count("{}") == 1, (name, term)
                assert not math.isnan(term.value), (name, job, at_s)


def test_one_job_alone_hand_computed_keys() -> None:
    """a held 2 GPUs for 1,800 s at 1,800 s: 3,600 GPU-s attained, LAS's default threshold
    (3,600 GPU-s) passed, so queue 2; 1,800 s of its hour left, 3,600 GPU-s of work x GPUs."""
    run = records(300.0)

    def key(name: str) -> dict[str, float]:
        cls = get_policy(name)
        terms = cls.explanation(build_params(cls, {}), run).key("a", 1800.0)
        return {term.text: term.value for term in terms}

    assert key("las") == {"{} GPU-h attained": 3600.0, "queue {}": 2}
    assert key("muri_l") == {"{} GPU-h attained": 3600.0}
    assert key("fifo") == {"arrived at {}": 0.0}
    assert key("srtf")["{} of work left on its fastest GPU"] == pytest.approx(1800.0, rel=1e-3)
    srsf = key("srsf")["{} GPU-h of work left on its fastest GPUs"]
    assert srsf == pytest.approx(3600.0, rel=1e-3) and key("muri_s") == key("srsf")
    assert key("gavel_fifo") == {"arrived at {}": 0.0} and key("hadar") == {}


def test_fifo_says_it_blocks_only_without_backfill() -> None:
    cls = get_policy("fifo")
    assert cls.explanation(build_params(cls, {}), records()).blocking.startswith("FIFO without")
    assert cls.explanation(build_params(cls, {"backfill": True}), records()).blocking == ""


def test_a_term_with_an_unknown_unit_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unit 'gpu_h' is not one of"):
        KeyTerm("{} GPU-h", 1.0, "gpu_h")

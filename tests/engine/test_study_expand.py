"""Study expansion, overrides, grid, run-spec keys, the load what-if, and a trace that does not
change with the GPU mix."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

from engine.config import LoadConfig, PolicySpec, ScenarioConfig, TraceSpec
from engine.errors import ConfigError
from engine.scenario import load_scenario_trace
from engine.step_time.throughput import load_matrix
from engine.study import RunSpec, Study, Variant, expand, grid
from engine.study.overrides import apply_overrides, get_path
from engine.traces import apply_load, draw_trace
from tests.engine.helpers import RESNET50, cluster, jobs_frame

BASE = ScenarioConfig(policies=(PolicySpec("fifo"), PolicySpec("las", {}, "LAS")))
SMALL = [{"worker_type": "v100", "nodes": 2, "gpus_per_node": 8, "rack": "r0"}]


def test_expand_is_variant_by_policy_by_seed_with_overrides_applied() -> None:
    study = Study(BASE, (Variant("base"), Variant("small", {"cluster.node_groups": SMALL})), (3, 5))
    specs = expand(study, "abc")
    assert [(s.variant, s.policy_label, s.sim_seed) for s in specs] == [
        ("base", "FIFO", 3), ("base", "FIFO", 5), ("base", "LAS", 3), ("base", "LAS", 5),
        ("small", "FIFO", 3), ("small", "FIFO", 5), ("small", "LAS", 3), ("small", "LAS", 5),
    ]  # fmt: skip
    assert all(len(s.scenario.policies) == 1 and s.trace_hash == "abc" for s in specs)
    assert all(
        s.scenario.seed == s.sim_seed == s.trace_seed == s.scenario.trace_seed for s in specs
    )
    assert specs[0].scenario.cluster == BASE.cluster
    assert specs[4].scenario.cluster.capacity() == {"v100": 16}
    assert expand(study, "abc") == specs  # pure


def test_fixed_trace_seed_when_the_trace_does_not_vary() -> None:
    base = dataclasses.replace(BASE, trace_seed=9)
    specs = expand(Study(base, seeds=(0, 1), vary_trace=False))
    assert {(s.trace_seed, s.sim_seed) for s in specs} == {(9, 0), (9, 1)}


def test_overrides_reach_lists_and_policy_params_and_reject_typos() -> None:
    config = apply_overrides(
        BASE,
        {"policies.1.params.queue_thresholds_s": [60.0], "rounds.round_duration_s": 600,
         "cluster.node_groups.0.nodes": 1, "load.arrival_scale": 1.5},
    )  # fmt: skip
    assert config.policies[1].params == {"queue_thresholds_s": [60.0]}
    assert config.rounds.round_duration_s == 600.0
    assert config.cluster.node_groups[0].nodes == 1
    assert get_path(config, "load.arrival_scale") == 1.5
    with pytest.raises(ConfigError, match="variant 'x': 'rounds.round_length': no key"):
        apply_overrides(BASE, {"rounds.round_length": 3}, "variant 'x'")
    with pytest.raises(ConfigError, match="not an index below 4"):
        apply_overrides(BASE, {"cluster.node_groups.7.nodes": 1})
    with pytest.raises(ConfigError, match="expected a number"):
        apply_overrides(BASE, {"rounds.round_duration_s": "long"})


def test_grid_is_a_cartesian_product_named_by_axis_values() -> None:
    variants = grid(BASE, {"rounds.round_duration_s": [60.0, 360.0], "load.arrival_scale": [1, 2]})
    assert [v.name for v in variants] == [
        "round_duration_s=60, arrival_scale=1", "round_duration_s=60, arrival_scale=2",
        "round_duration_s=360, arrival_scale=1", "round_duration_s=360, arrival_scale=2",
    ]  # fmt: skip
    assert variants[3].axes == {"rounds.round_duration_s": 360.0, "load.arrival_scale": 2}
    assert grid(BASE, {"cluster.node_groups": [SMALL, SMALL]})[1].name == "node_groups=#2"
    with pytest.raises(ConfigError, match="one or two axes"):
        grid(BASE, {"a": [1], "b": [1], "c": [1]})


def test_study_json_round_trip_and_errors() -> None:
    study = Study(BASE, (Variant("a"), Variant("b", {"load.num_jobs": 10})), (0, 1), "b")
    again = Study.from_json(study.to_json())
    assert expand(again) == expand(study)
    data = json.loads(study.to_json())
    data["grid"] = {"load.arrival_scale": [1.0, 2.0]}
    assert [v.name for v in Study.from_dict(data).variants][2:] == [
        "arrival_scale=1",
        "arrival_scale=2",
    ]
    with pytest.raises(ConfigError, match="baseline 'zz' is not a variant"):
        Study.from_dict({**json.loads(study.to_json()), "baseline": "zz"})
    with pytest.raises(ConfigError, match="distinct"):
        expand(Study(BASE, (Variant("a"), Variant("a"))))
    with pytest.raises(ConfigError, match="unknown key"):
        Study.from_dict({"base": {}, "variant": []})
    twice = Variant("twice", {"policies": [{"name": "las"}, {"name": "las"}]})
    with pytest.raises(ConfigError, match="give a repeated policy a label"):
        expand(Study(BASE, (twice,)))
    labelled = Variant("ok", {"policies": [{"name": "las"}, {"name": "las", "label": "LAS b"}]})
    assert [s.policy_label for s in expand(Study(BASE, (labelled,)))] == ["Tiresias LAS", "LAS b"]


def test_run_spec_key_is_stable_and_changes_with_any_field() -> None:
    spec = expand(Study(BASE, seeds=(0,)), "h")[0]
    first_fit = dataclasses.replace(spec.scenario, placement="first_fit")
    assert spec.key() == RunSpec(spec.scenario, "base", 0, 0, "h").key()
    assert len(spec.key()) == 64
    others = [
        dataclasses.replace(spec, variant="other"), dataclasses.replace(spec, trace_hash="g"),
        dataclasses.replace(spec, record="full"), dataclasses.replace(spec, sim_seed=1),
        dataclasses.replace(spec, scenario=first_fit),
    ]  # fmt: skip
    assert len({spec.key(), *(o.key() for o in others)}) == 6
    with pytest.raises(ConfigError, match="exactly one policy"):
        RunSpec(BASE, "two", 0, 0, "")


def test_old_scenario_json_without_trace_seed_or_load_is_still_valid() -> None:
    data = json.loads(ScenarioConfig().to_json())
    del data["trace_seed"], data["load"]
    config = ScenarioConfig.from_dict(data)
    assert config.trace_seed is None and config.load == LoadConfig()
    assert config.effective_trace_seed == config.seed


# --- load what-if -----------------------------------------------------------------------------

JOBS = jobs_frame(("a", 0.0, RESNET50, 1, 10.0), ("b", 30.0, RESNET50, 2, 20.0),
                  ("c", 60.0, RESNET50, 1, 30.0))  # fmt: skip


def test_arrival_scale_divides_arrival_times() -> None:
    out = apply_load(JOBS, LoadConfig(arrival_scale=1.5))
    assert out["arrival_s"].tolist() == [0.0, 20.0, 40.0]
    assert out["total_steps"].tolist() == [10.0, 20.0, 30.0]


def test_repeat_appends_copies_one_mean_gap_after_the_span_and_trim_cuts() -> None:
    out = apply_load(JOBS, LoadConfig(num_jobs=5))
    # span 60 s, mean gap 30 s: copy 1 arrives 90 s later
    assert out["job_id"].tolist() == ["a", "b", "c", "a~1", "b~1"]
    assert out["arrival_s"].tolist() == [0.0, 30.0, 60.0, 90.0, 120.0]
    assert apply_load(JOBS, LoadConfig(num_jobs=2))["job_id"].tolist() == ["a", "b"]
    both = apply_load(JOBS, LoadConfig(arrival_scale=2.0, num_jobs=4))
    assert both["arrival_s"].tolist() == [0.0, 15.0, 30.0, 45.0]
    assert apply_load(JOBS, LoadConfig()) is JOBS
    with pytest.raises(ConfigError, match="arrival_scale must be > 0"):
        apply_load(JOBS, LoadConfig(arrival_scale=0.0))


def test_load_applies_through_the_scenario_and_notes_it() -> None:
    spec = TraceSpec(max_jobs=100)
    load = draw_trace(spec, load_matrix(), 0, load=LoadConfig(arrival_scale=2.0, num_jobs=150))
    plain = draw_trace(spec, load_matrix(), 0)
    assert len(load.jobs) == 150
    assert load.jobs["arrival_s"].iloc[:100].tolist() == (plain.jobs["arrival_s"] / 2).tolist()
    assert any("repeated from 100 to 150 jobs" in n for n in load.notes)


# --- the trace does not depend on the GPU mix --------------------------------------------------


def test_the_drawn_trace_is_the_same_for_every_gpu_mix() -> None:
    spec = TraceSpec(max_jobs=300, drop_oversized=True)
    mixes = [
        cluster(("v100", 40, 8, "r0"), ("k80", 40, 8, "r1")),
        cluster(("k80", 1, 4, "r0")),
        cluster(("p100", 3, 4, "r0"), ("v100", 1, 2, "r1")),
    ]
    loads = [load_scenario_trace(ScenarioConfig(trace=spec, cluster=mix, seed=4)) for mix in mixes]
    reference = loads[0].jobs.set_index("job_id")
    for load in loads[1:]:
        kept = load.jobs.set_index("job_id")
        # the jobs that fit are exactly the reference's, row for row; the rest are reported
        pd.testing.assert_frame_equal(kept, reference.loc[kept.index])
        assert set(load.dropped_job_ids) == set(reference.index) - set(kept.index)
    assert loads[1].dropped_job_ids  # one 4-GPU K80 node cannot hold the 8-GPU jobs


def test_extra_worker_types_do_not_change_the_draw() -> None:
    matrix = load_matrix()
    with_a100 = matrix.with_worker_type("a100", "v100", 2.0)
    a = draw_trace(TraceSpec(max_jobs=200), matrix, 1).jobs
    b = draw_trace(TraceSpec(max_jobs=200), with_a100, 1).jobs
    pd.testing.assert_frame_equal(a, b)


def test_trace_seed_and_simulation_seed_are_separate() -> None:
    config = dataclasses.replace(ScenarioConfig(), trace=TraceSpec(max_jobs=200))
    same_trace = load_scenario_trace(dataclasses.replace(config, seed=1, trace_seed=0))
    reference = load_scenario_trace(config)
    pd.testing.assert_frame_equal(same_trace.jobs, reference.jobs)
    other = load_scenario_trace(dataclasses.replace(config, trace_seed=1))
    assert not np.array_equal(other.jobs["job_type"], reference.jobs["job_type"])

"""Dally and its consolidation baselines: hand-computed step times, congestion, delay timers,
network-sensitive preemption, the auto-tuner's replay, and invariants (Hypothesis).

Cluster ``SMALL``: two racks of two 2-GPU V100 nodes (n0, n1 in r0; n2, n3 in r1), default
network (100 Gb/s in a node, 25 Gb/s between nodes of a rack, 10 Gb/s across racks, 5 us per
hop). A ResNet-50 (batch size 64) gang of ``n`` GPUs runs ``m_n`` steps/s consolidated (Gavel's
matrix), so an iteration takes ``n / m_n`` s on one node; a worse level adds the ring all-reduce
time over its bottleneck minus the node-local one (shared/docs/schedulers.md). Gradient: 25.557 M
fp32 parameters (engine/data/gradient_sizes.csv). Every hand computation is for one job alone (or
beside one-GPU jobs, which send nothing over the network).
"""

from __future__ import annotations

import math
from itertools import pairwise
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.config import (
    ClusterSpec,
    CongestionEpisode,
    NetworkConfig,
    PolicySpec,
    RoundConfig,
    ScenarioConfig,
)
from engine.errors import ConfigError
from engine.policies.base import NodeInfo
from engine.policies.dally.core import ConsolidationScheduler
from engine.policies.dally.levels import NODE, DallyLayout
from engine.policies.dally.tuner import ReplayJob, Window, replay
from engine.results import SimulationResult
from engine.simulator import Simulation
from engine.step_time.network import ring_comm_s
from engine.step_time.throughput import gradient_bytes, load_matrix
from tests.engine.helpers import RESNET50, cluster, jobs_frame

MATRIX = load_matrix()
GRAD_BYTES = 4 * 25_557_000
LATENCY_S = 5e-6
BANDWIDTH_GBPS = {"node": 100.0, "rack": 25.0, "network": min(25.0, 10.0)}
SMALL = cluster(("v100", 2, 2, "r0"), ("v100", 2, 2, "r1"))
A3C_RATE = MATRIX.steps_per_s("A3C", "v100", 1)
LONG = ("A3C", 1, 1e7)  # a one-GPU job that outlives every test job


def step_s(num_gpus: int, level: str, bandwidth_gbps: float | None = None) -> float:
    """Iteration time of the ResNet-50 gang at ``level`` (by hand: matrix + ring model)."""
    node_s = num_gpus / MATRIX.steps_per_s(RESNET50, "v100", num_gpus)
    bandwidth = bandwidth_gbps or BANDWIDTH_GBPS[level]
    extra = ring_comm_s(num_gpus, GRAD_BYTES, bandwidth, LATENCY_S) - ring_comm_s(
        num_gpus, GRAD_BYTES, BANDWIDTH_GBPS["node"], LATENCY_S
    )
    return node_s + extra


def run(
    jobs: pd.DataFrame,
    policy: str,
    params: dict[str, object] | None = None,
    network: NetworkConfig | None = None,
    rounds: RoundConfig | None = None,
    spec: ClusterSpec = SMALL,
) -> tuple[SimulationResult, ConsolidationScheduler]:
    config = ScenarioConfig(
        cluster=spec,
        network=network or NetworkConfig(),
        rounds=rounds or RoundConfig(),
    )
    sim = Simulation(jobs, config, PolicySpec(policy, params or {}), MATRIX)
    result = sim.run(None, None)
    assert isinstance(sim.policy, ConsolidationScheduler)
    return result, sim.policy


def segments_of(result: SimulationResult, job_id: str) -> pd.DataFrame:
    return result.segments[result.segments["job_id"] == job_id].sort_values("start_s")


def job_row(result: SimulationResult, job_id: str) -> Any:
    """The job's row of the jobs table (a Series)."""
    return result.jobs.set_index("job_id").loc[job_id]


# --- step time at each level, by hand -------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "blockers"),
    [("node", 0), ("rack", 1), ("network", 3)],
)
def test_two_gpu_jct_at_each_level_matches_the_ring_model(level: str, blockers: int) -> None:
    """No consolidation (first fit) places one-GPU blockers on n0, n0, n1 first, so the 2-GPU
    job j lands on n0 (node), n0+n1 (rack) or n1+n2 (across racks). It runs alone on the
    network: JCT = steps x t_step(level) / 2."""
    rows = [(f"b{i}", 0.0, *LONG) for i in range(blockers)]
    jobs = jobs_frame(*rows, ("j", 0.0, RESNET50, 2, 20_000.0))
    result, _ = run(jobs, "consolidation_none")
    assert segments_of(result, "j")["level"].tolist() == [level]
    assert job_row(result, "j")["jct_s"] == pytest.approx(20_000 * step_s(2, level) / 2)


@pytest.mark.parametrize(("num_gpus", "level"), [(2, "node"), (4, "rack"), (8, "network")])
def test_dally_places_a_lone_gang_at_its_best_level(num_gpus: int, level: str) -> None:
    """On an empty SMALL cluster a 2-GPU gang fits one node, a 4-GPU gang one rack, an 8-GPU
    gang only both racks; Dally starts each at once there (no better level could ever come)."""
    jobs = jobs_frame(("j", 0.0, RESNET50, num_gpus, 10_000.0))
    result, _ = run(jobs, "dally")
    assert segments_of(result, "j")["level"].tolist() == [level]
    assert job_row(result, "j")["jct_s"] == pytest.approx(
        10_000 * step_s(num_gpus, level) / num_gpus
    )


# --- congestion that starts mid-job ----------------------------------------------------------


@pytest.mark.parametrize(
    ("num_gpus", "links", "level", "congested_gbps"),
    [(4, "inter_node", "rack", 25.0 / 4), (8, "cross_rack", "network", min(25.0, 10.0 / 4))],
)
def test_congestion_mid_job_slows_it_by_hand(
    num_gpus: int, links: str, level: str, congested_gbps: float
) -> None:
    """Bandwidth / 4 on the job's bottleneck between 100 s and 300 s. The job runs at r1 =
    n / t_step, then r2 = n / t_step(congested), then r1 again:
    JCT = 300 + (S - 100 r1 - 200 r2) / r1."""
    steps = 10_000.0
    episode = CongestionEpisode(100.0, 300.0, 4.0, links)
    jobs = jobs_frame(("j", 0.0, RESNET50, num_gpus, steps))
    result, _ = run(jobs, "dally", network=NetworkConfig(congestion=(episode,)))
    r1 = num_gpus / step_s(num_gpus, level)
    r2 = num_gpus / step_s(num_gpus, level, congested_gbps)
    assert steps > 100 * r1 + 200 * r2  # the job outlives the episode
    assert segments_of(result, "j")["level"].tolist() == [level]
    assert job_row(result, "j")["jct_s"] == pytest.approx(300 + (steps - 100 * r1 - 200 * r2) / r1)


# --- delay scheduling and preemption, by hand -------------------------------------------------

DELAY_STEPS = 40_000.0


def delay_scenario() -> pd.DataFrame:
    """Seven one-GPU blockers fill n0, n0, n1, n1, n2, n2, n3 (best fit); b0 and b2 end at 10 s
    and 15 s, so when the 2-GPU job j arrives at 20 s, n0, n1 and n3 have one GPU free each:
    no node can take j, rack r0 can."""
    short = [("b0", 10.0), ("b2", 15.0)]
    rows = [(f"b{i}", 0.0, *LONG) for i in range(7)]
    for job_id, end_s in short:
        index = int(job_id[1:])
        rows[index] = (job_id, 0.0, "A3C", 1, end_s * A3C_RATE)
    return jobs_frame(*rows, ("j", 20.0, RESNET50, 2, DELAY_STEPS))


def test_delay_scheduling_holds_a_job_until_its_node_timer_expires() -> None:
    """Timer T_node = gamma (s_rack - 1) runtime = (t_rack - t_node) S / 2 (gamma = 1), about
    491 s. j is held from 20 s; its timer expires at 20 + T_node, when Dally has asked the
    engine to decide again (wake_at_s): j starts then across n0 and n1 (rack level)."""
    t_node_s = (step_s(2, "rack") - step_s(2, "node")) * DELAY_STEPS / 2
    assert 400 < t_node_s < 580
    result, policy = run(
        delay_scenario(), "dally", {"auto_tuner": False, "preemption": False},
        rounds=RoundConfig(round_duration_s=100.0),
    )  # fmt: skip
    seg = segments_of(result, "j")
    assert seg["level"].tolist() == ["rack"]
    assert seg["start_s"].tolist() == [pytest.approx(20 + t_node_s)]
    row = job_row(result, "j")
    assert row["consolidation_wait_s"] == pytest.approx(t_node_s)
    assert row["jct_s"] == pytest.approx(t_node_s + DELAY_STEPS * step_s(2, "rack") / 2)
    assert policy.evictions == []


def test_without_delay_scheduling_the_job_starts_at_once_on_the_rack() -> None:
    result, _ = run(
        delay_scenario(), "dally",
        {"auto_tuner": False, "preemption": False, "delay_scheduling": False},
    )  # fmt: skip
    seg = segments_of(result, "j")
    assert seg[["start_s", "level"]].values.tolist() == [[20.0, "rack"]]
    assert job_row(result, "j")["consolidation_wait_s"] == 0.0


def test_strict_consolidation_waits_for_a_node() -> None:
    """Strict consolidation holds j until a node frees: never, while the blockers run, so j
    starts when b1 (n0's other blocker) ends, long after; it never takes the rack."""
    result, _ = run(delay_scenario(), "consolidation_strict")
    assert segments_of(result, "j")["level"].tolist() == ["node"]
    assert job_row(result, "j")["first_start_s"] > 1e5


def test_preemption_opens_a_node_for_the_sensitive_job() -> None:
    """j (sensitivity about 1.29 >= 1.2) cannot have its allowed level (node) at 20 s. At the
    round boundary at 100 s Dally evicts b1 from n0 (sensitivity 1, queue 0 like j): j saves
    its rack-vs-node time (about 491 s) at the cost of b1's 30 s restore, and b1 restarts at
    once on n1's free GPU (best fit, lowest node). j runs node-local from 100 s."""
    result, policy = run(
        delay_scenario(), "dally", {"auto_tuner": False},
        rounds=RoundConfig(round_duration_s=100.0),
    )  # fmt: skip
    j, b1 = job_row(result, "j"), job_row(result, "b1")
    assert j["network_sensitivity"] == pytest.approx(step_s(2, "network") / step_s(2, "node"))
    assert policy.evictions == [(100.0, 7, (1,))]
    assert segments_of(result, "j")[["start_s", "level", "nodes"]].values.tolist() == [
        [100.0, "node", "n0"]
    ]
    b1_segments = segments_of(result, "b1")
    assert b1_segments[["end_reason", "nodes"]].values.tolist()[0] == ["migrated", "n0"]
    assert b1_segments[["start_s", "nodes", "restore_s"]].values.tolist()[1][:2] == [100.0, "n1"]
    assert b1["num_preemptions"] == 1
    assert j["jct_s"] == pytest.approx(80 + DELAY_STEPS * step_s(2, "node") / 2)


# --- the auto-tuner's cheap model -------------------------------------------------------------


def test_replay_prefers_waiting_when_a_node_frees_soon() -> None:
    """One rack of two 2-GPU nodes; one GPU of n0 frees at 100 s, one of n1 much later. A
    2-GPU job arriving at 0 runs 1000 s on a node or 1500 s on the rack; its timers at gamma 1
    are (500, 0). gamma 0 starts it at once on the rack (JCT 1500); gamma 0.05 after 25 s on
    the rack (1525); gamma 1 waits for n0 at 100 s (1100)."""
    topology = DallyLayout([NodeInfo(0, "v100", "r0", 2), NodeInfo(1, "v100", "r0", 2)])
    window = Window(0.0, (1, 1), ((100.0, "v100", (0,), (1,)), (1e9, "v100", (1,), (1,))))
    job = ReplayJob((0, 0.0, 0), 0.0, 0.0, 2, NODE, (500.0, 0.0),
                    (("v100", (1000.0, 1500.0, 1500.0)),))  # fmt: skip
    assert replay(topology, window, [job], 0.0) == pytest.approx(1500.0)
    assert replay(topology, window, [job], 0.05) == pytest.approx(1525.0)
    assert replay(topology, window, [job], 1.0) == pytest.approx(1100.0)


def test_auto_tuner_re_chooses_gamma_every_period_from_its_grid() -> None:
    rows = [(f"j{i}", 300.0 * i, RESNET50, 2 if i % 3 else 4, 5_000.0) for i in range(30)]
    result, policy = run(
        jobs_frame(*rows), "dally", {"tuning_period_s": 1000.0, "gamma_grid": "0, 0.5, 2"}
    )
    assert policy.tuner is not None
    times = [t for t, _ in policy.tuner.history]
    assert len(times) >= 5
    assert all(later - earlier >= 1000.0 for earlier, later in pairwise(times))
    assert {g for _, g in policy.tuner.history} <= {0.0, 0.5, 2.0}
    assert result.jobs["completion_s"].notna().all()


@pytest.mark.parametrize(
    ("policy", "params"),
    [("dally", {"gamma": -1.0}), ("dally", {"theta": 0.5}), ("dally", {"gamma_grid": "a"}),
     ("dally", {"gamma_grid": ""}), ("consolidation_tiresias", {"theta": 0.5})],
)  # fmt: skip
def test_bad_knobs_are_rejected(policy: str, params: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        run(jobs_frame(("j", 0.0, RESNET50, 2, 100.0)), policy, params)


# --- invariants -------------------------------------------------------------------------------

SENSITIVE = ["Transformer (batch size 32)", "LM (batch size 20)", RESNET50]


@st.composite
def dally_scenarios(draw: st.DrawFn) -> tuple[pd.DataFrame, ScenarioConfig, dict[str, object]]:
    """Two racks of one to three V100 nodes (2 or 4 GPUs), sensitive gangs and one-GPU jobs."""
    gpus = draw(st.sampled_from([2, 4]))
    spec = cluster(
        ("v100", draw(st.integers(1, 3)), gpus, "r0"), ("v100", draw(st.integers(1, 3)), gpus, "r1")
    )
    rows = []
    for i in range(draw(st.integers(6, 16))):
        size = min(draw(st.sampled_from([1, 1, 1, 2, 2, 4])), spec.total_gpus)
        job_type = "A3C" if size == 1 else draw(st.sampled_from(SENSITIVE))
        arrival = draw(st.floats(0, 600))
        rows.append((f"j{i:02d}", arrival, job_type, size, draw(st.floats(1000, 40_000))))
    rounds = RoundConfig(
        round_duration_s=draw(st.sampled_from([60.0, 360.0])),
        admit_mid_round=draw(st.booleans()),
        checkpoint_restore_s=draw(st.sampled_from([0.0, 30.0])),
    )
    config = ScenarioConfig(cluster=spec, rounds=rounds)
    params: dict[str, object] = {
        "auto_tuner": False,
        "gamma": draw(st.sampled_from([0.25, 1.0, 4.0])),
        "preemption": False,
    }
    return jobs_frame(*rows), config, params


def timers_by_hand(job: pd.Series, gamma: float) -> tuple[float, float]:
    """(T_node, T_rack) at arrival from the ring model (no congestion; V100 only)."""
    n = int(job["scale_factor"])
    measured = MATRIX.steps_per_s(job["job_type"], "v100", n)
    node_s = n / measured
    grad = gradient_bytes(job["job_type"])
    extra = {
        level: ring_comm_s(n, grad, BANDWIDTH_GBPS[level], LATENCY_S)
        - ring_comm_s(n, grad, BANDWIDTH_GBPS["node"], LATENCY_S)
        for level in ("rack", "network")
    }
    runtime = job["total_steps"] / measured
    return gamma * extra["rack"] / node_s * runtime, gamma * (
        extra["network"] - extra["rack"]
    ) / node_s * runtime


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=dally_scenarios())
def test_a_job_takes_a_lower_level_only_after_its_timers(
    data: tuple[pd.DataFrame, ScenarioConfig, dict[str, object]],
) -> None:
    """Auto-tuner and preemption off: a job whose first segment is at rack level waited at
    least T_node since arrival (when a node could ever hold it), across racks at least
    T_node + T_rack; and it was held back for consolidation at most T_node + T_rack (Dally asks
    the engine to decide again when a held job's timer expires), plus one round when jobs may
    start only at round boundaries."""
    jobs, config, params = data
    sim = Simulation(jobs, config, PolicySpec("dally", params), MATRIX)
    result = sim.run(None, None)
    gamma = float(params["gamma"])  # type: ignore[arg-type]
    node_size = config.cluster.node_groups[0].gpus_per_node
    first = result.segments.sort_values("start_s").drop_duplicates("job_id").set_index("job_id")
    for _, job in result.jobs.iterrows():
        t_node, t_rack = timers_by_hand(job, gamma)
        if job["scale_factor"] > node_size:
            t_node = 0.0  # best level is the rack already
        waited = first.loc[job["job_id"], "start_s"] - job["arrival_s"]
        level = first.loc[job["job_id"], "level"]
        rack_fits = job["scale_factor"] <= node_size * max(
            g.nodes for g in config.cluster.node_groups
        )
        if level == "rack":
            assert waited >= t_node - 1e-6
        if level == "network" and rack_fits:
            assert waited >= t_node + t_rack - 1e-6
        late_s = 0.0 if config.rounds.admit_mid_round else config.rounds.round_duration_s
        bound = t_node + t_rack + late_s + 1e-6  # starts wait for rounds when not mid-round
        assert job["consolidation_wait_s"] <= bound


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=dally_scenarios())
def test_preemption_never_evicts_a_job_for_a_less_sensitive_one(
    data: tuple[pd.DataFrame, ScenarioConfig, dict[str, object]],
) -> None:
    """Every eviction the policy records goes to a strictly more sensitive job, and every
    preempted or migrated segment of the run is one of those evictions."""
    jobs, config, params = data
    sim = Simulation(jobs, config, PolicySpec("dally", {**params, "preemption": True}), MATRIX)
    result = sim.run(None, None)
    policy = sim.policy
    assert isinstance(policy, ConsolidationScheduler)
    sensitivity = result.jobs["network_sensitivity"].tolist()
    ids = result.jobs["job_id"].tolist()
    evicted = set()
    for time_s, beneficiary, victims in policy.evictions:
        for victim in victims:
            assert sensitivity[victim] < sensitivity[beneficiary]
            evicted.add((ids[victim], time_s))
    moved = result.segments[result.segments["end_reason"].isin(["preempted", "migrated"])]
    assert set(zip(moved["job_id"], moved["end_s"], strict=True)) <= evicted


def test_the_preemption_invariant_is_exercised() -> None:
    """A deterministic case of the property above: one-GPU jobs fill n0-n2 and s0 takes n3;
    at the round boundary at 1080 s, when s0's end is near enough that the victims' wait costs
    less than the across-racks-vs-node time s1 and s2 save (nothing is free, so the policy
    counts their alternative as across racks), each evicts two one-GPU jobs."""
    rows = [(f"a{i}", 0.0, *LONG) for i in range(6)]
    rows += [(f"s{i}", 50.0 * i, "Transformer (batch size 32)", 2, 30_000.0) for i in range(3)]
    result, policy = run(jobs_frame(*rows), "dally", {"auto_tuner": False})
    assert [(t, len(victims)) for t, _, victims in policy.evictions] == [(1080.0, 2), (1080.0, 2)]
    sensitivity = dict(zip(result.jobs.index, result.jobs["network_sensitivity"], strict=True))
    for _, beneficiary, victims in policy.evictions:
        assert all(sensitivity[v] < sensitivity[beneficiary] for v in victims)
    assert not math.isnan(result.summary["jct_mean_s"])

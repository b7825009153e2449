"""Hadar and HadarE: hand-computed schedules on two GPUs, and invariants of their allocations.

Rates come from the throughput matrix for ResNet-50 (batch size 64): ``v`` and ``k`` are its
one-GPU steps/s on a V100 and a K80 (``v / k`` is about 7.1), ``v2`` and ``k2`` its two-GPU
rates. Every cluster is one V100 node (n0) and one K80 node (n1), one GPU each, in one rack.
Rounds are 360 s (``T``) with the default 30 s checkpoint-restore (``r``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.config import NetworkConfig, PolicySpec, ScenarioConfig
from engine.errors import ConfigError
from engine.policies.base import Allocation, SchedulerState
from engine.policies.hadar import Hadar
from engine.policies.hadare import HadarE
from engine.results import SimulationResult
from engine.simulator import simulate
from engine.throughput import gradient_bytes, load_matrix
from tests.engine.helpers import RESNET50, cluster, jobs_frame
from tests.engine.test_properties import scenarios

MATRIX = load_matrix()
V = MATRIX.steps_per_s(RESNET50, "v100", 1)
K = MATRIX.steps_per_s(RESNET50, "k80", 1)
V2 = MATRIX.steps_per_s(RESNET50, "v100", 2)
K2 = MATRIX.steps_per_s(RESNET50, "k80", 2)
T, RESTORE = 360.0, 30.0
TWO_NODES = cluster(("v100", 1, 1, "r0"), ("k80", 1, 1, "r0"))


def jcts(result: SimulationResult) -> dict[str, float]:
    return dict(zip(result.jobs["job_id"], result.jobs["jct_s"], strict=True))


def test_hadar_gives_the_short_job_the_v100_and_moves_the_long_one_at_the_round() -> None:
    """a needs 1000 s on the V100 and b 200 s; both arrive at t=0.

    Utility of a round = share of the remaining work it does. Per GPU: b earns 1 on either
    type (it finishes within the round), a earns 360 v / 1000 v = 0.36 on the V100 and
    L = 360 k / 1000 v on the K80; U = 1. Empty nodes cost L. b (density 1) goes first and
    takes the V100 (equal price, faster type); a's only offer is the K80 at price L, which its
    utility L covers (a tie admits). b ends at 200; n0 idles until the round at 360, where a
    (alone: L = its K80 utility, U = its V100 utility) moves to the V100: utility
    U T / (T + r) beats keeping the K80 (utility L, price L, net 0). It restores until 390 and
    finishes its remaining 1000 v - 360 k steps at v: JCT_a = 1390 - 360 k / v, JCT_b = 200.
    """
    jobs = jobs_frame(("a", 0, RESNET50, 1, 1000 * V), ("b", 0, RESNET50, 1, 200 * V))
    result = simulate(jobs, ScenarioConfig(cluster=TWO_NODES), PolicySpec("hadar"), MATRIX)
    assert jcts(result) == pytest.approx({"a": 1390 - 360 * K / V, "b": 200.0})
    a = result.segments[result.segments["job_id"] == "a"].sort_values("start_s")
    assert a["worker_type"].tolist() == ["k80", "v100"]
    assert a["end_reason"].tolist() == ["migrated", "completed"]
    assert a["start_s"].tolist() == pytest.approx([0.0, 360.0])


@pytest.mark.parametrize("combine", ["gang", "proportional"])
def test_hadar_runs_a_two_gpu_job_on_one_v100_and_one_k80(combine: str) -> None:
    """A 2-GPU job on a cluster with one V100 and one K80 (network model off).

    No type has two GPUs, so Hadar's only offer is one task on each (task-level heterogeneity);
    at the start its utility covers the two empty nodes' price 2L (for the gang, utility is
    exactly 2L: the K80 pace sets both). The engine's step model (engine.progress): sync per
    iteration = max over the types of the measured 2-GPU overhead 2 / x2 - 1 / x. Gang:
    iteration = 1 / k + sync (lockstep at the K80); proportional: 2 / (v + k) + sync. The job
    keeps its grant every round, so JCT = steps / (2 / iteration).
    """
    steps = 4000.0
    sync = max(2 / V2 - 1 / V, 2 / K2 - 1 / K)
    compute = 1 / K if combine == "gang" else 2 / (V + K)
    config = ScenarioConfig(cluster=TWO_NODES, network=NetworkConfig(enabled=False))
    jobs = jobs_frame(("a", 0, RESNET50, 2, steps))
    result = simulate(jobs, config, PolicySpec("hadar", {"combine": combine}), MATRIX)
    assert jcts(result)["a"] == pytest.approx(steps * (compute + sync) / 2)
    lanes = result.segments.sort_values("lane")
    assert lanes["worker_type"].tolist() == ["v100", "k80"]
    assert (lanes["combine"] == combine).all()
    assert (lanes["end_reason"] == "completed").all()


def consolidation_share(fixed_s: float) -> float:
    """Share of a round two copies in one rack spend consolidating (25 Gb/s within a rack)."""
    return (gradient_bytes(RESNET50) * 8 / 25e9 + fixed_s) / T


def test_hadare_forks_a_lone_job_onto_both_nodes() -> None:
    """One job of 3000 V100-seconds; consolidation fixed at 36 s.

    Its first copy takes the V100 (utility minus price U - L beats 0 on the K80); the second
    copy's own utility on the K80 is L, the node's price (a tie admits), and two copies are
    faster than one: (v + k)(1 - s) > v with s = (gradient bits / 25 Gb/s + 36 s) / 360 s. Both
    copies run from 0 and keep their grant: JCT = 3000 v / ((v + k)(1 - s)).
    """
    jobs = jobs_frame(("a", 0, RESNET50, 1, 3000 * V))
    spec = PolicySpec("hadare", {"consolidation_fixed_s": 36.0})
    result = simulate(jobs, ScenarioConfig(cluster=TWO_NODES), spec, MATRIX)
    share = consolidation_share(36.0)
    assert jcts(result)["a"] == pytest.approx(3000 * V / ((V + K) * (1 - share)))
    assert result.segments["nodes"].tolist() == ["n0", "n1"]
    assert (result.segments["combine"] == "copies").all()


def test_hadare_grows_a_running_job_onto_a_freed_node_at_the_round() -> None:
    """a needs 3000 V100-seconds, b 200; both at t=0; consolidation fixed at 10 s.

    As in the Hadar case, b takes the V100 and a the K80 (a tie at price L). No node is left
    for extra copies. b ends at 200 (n0 then idles: HadarE, like Hadar, waits for the round).
    At 360, a keeps its K80 copy (utility L covers price L) and, on the empty V100 (price L), a
    second copy earns U T / (T + r) while growing makes a's K80 copy lose L (1 - T / (T + r))
    to the restore; 360 v / (T + r) > L (1 + r / (T + r)) holds, and two copies beat one. a
    restores until 390, having done 360 k steps, then runs at (v + k)(1 - s):
    JCT_a = 390 + (3000 v - 360 k) / ((v + k)(1 - s)); JCT_b = 200.
    """
    jobs = jobs_frame(("a", 0, RESNET50, 1, 3000 * V), ("b", 0, RESNET50, 1, 200 * V))
    result = simulate(jobs, ScenarioConfig(cluster=TWO_NODES), PolicySpec("hadare"), MATRIX)
    rate = (V + K) * (1 - consolidation_share(10.0))
    assert jcts(result) == pytest.approx({"a": 390 + (3000 * V - 360 * K) / rate, "b": 200.0})
    a = result.segments[result.segments["job_id"] == "a"].sort_values(["start_s", "lane"])
    assert a["nodes"].tolist() == ["n1", "n0", "n1"]
    assert a["end_reason"].tolist() == ["migrated", "completed", "completed"]


def test_bad_knobs_are_rejected() -> None:
    jobs = jobs_frame(("a", 0, RESNET50, 1, 100.0))
    config = ScenarioConfig(cluster=TWO_NODES)
    with pytest.raises(ConfigError, match="combine"):
        simulate(jobs, config, PolicySpec("hadar", {"combine": "copies"}), MATRIX)
    with pytest.raises(ConfigError, match="max_copies"):
        simulate(jobs, config, PolicySpec("hadare", {"max_copies": -1}), MATRIX)


def _checked(
    original: Callable[[Any, SchedulerState], Allocation], sizes: list[int]
) -> Callable[[Any, SchedulerState], Allocation]:
    """Wraps allocate(): every part is pinned to a node of its type, and no node is granted
    more than it has (its size at a round boundary, its free GPUs for mid-round starts)."""

    def allocate(self: Any, state: SchedulerState) -> Allocation:
        full = state.round_index != self._round_index
        allocation = original(self, state)
        room = list(sizes) if full else list(state.node_free_gpus)
        for index, grant in allocation.items():
            if not full:
                assert all(job.index != index for job in state.running)
            for part in grant.pieces():
                assert part.node >= 0 and self.nodes[part.node].worker_type == part.worker_type
                room[part.node] -= part.num_gpus
            if grant.combine == "copies":
                nodes = [part.node for part in grant.pieces()]
                assert len(nodes) == len(set(nodes))
        assert min(room, default=0) >= 0
        return allocation

    return allocate


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=scenarios(),
    spec=st.sampled_from(
        [
            PolicySpec("hadar"),
            PolicySpec("hadar", {"combine": "proportional"}),
            PolicySpec("hadare"),
            PolicySpec("hadare", {"max_copies": 2, "max_gpus_per_copy": 4}),
        ]
    ),
)
def test_allocations_fit_every_node_and_copies_sit_on_one_node_each(
    data: tuple[pd.DataFrame, ScenarioConfig], spec: PolicySpec
) -> None:
    jobs, config = data
    sizes = [
        group.gpus_per_node for group in config.cluster.node_groups for _ in range(group.nodes)
    ]
    cls = Hadar if spec.name == "hadar" else HadarE
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cls, "allocate", _checked(cls.allocate, sizes))
        result = simulate(jobs, config, spec, MATRIX)
    segments = result.segments
    copies = segments[segments["combine"] == "copies"]
    assert not copies["nodes"].str.contains(",").any()  # one node per copy lane
    # a job's JCT is that of its last copy: every lane of the completing segment ends then
    done = segments[segments["end_reason"] == "completed"]
    completion = result.jobs.set_index("job_id")["completion_s"]
    assert done["end_s"].to_numpy() == pytest.approx(done["job_id"].map(completion).to_numpy())
    last = segments.groupby("job_id")["end_s"].max()
    assert last.to_numpy() == pytest.approx(completion[last.index].to_numpy())
    arrival = result.jobs.set_index("job_id")["arrival_s"]
    jct = result.jobs.set_index("job_id")["jct_s"]
    assert jct.to_numpy() == pytest.approx((completion - arrival)[jct.index].to_numpy())

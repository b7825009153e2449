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
from engine.policies.hadar.hadar import Hadar
from engine.policies.hadar.hadare import HadarE
from engine.results import SimulationResult
from engine.simulator import simulate
from engine.step_time.throughput import gradient_bytes, load_matrix
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
    exactly 2L: the K80 pace sets both). The engine's step model (engine.step_time.progress): sync
    per
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


def consolidation_s(fixed_s: float) -> float:
    """Seconds of one consolidation of copies in one rack (25 Gb/s within a rack)."""
    return gradient_bytes(RESNET50) * 8 / 25e9 + fixed_s


def consolidation_share(fixed_s: float) -> float:
    """Share of a round that copies in one rack spend consolidating."""
    return consolidation_s(fixed_s) / T


THREE_NODES = cluster(("v100", 2, 1, "r0"), ("k80", 1, 1, "r0"))
TWO_COPIES = 2 * V * (2 / 3)
"""Two one-GPU V100 copies of a one-GPU job before consolidation: a 2-fold batch at the
statistical efficiency (1 + r) / (r + 2) = 2/3 of the default r = 1 (Pollux)."""


def test_hadare_forks_a_lone_job_onto_a_second_v100_but_not_the_k80() -> None:
    """One job of 3000 V100-seconds on two V100 nodes and a K80 node; consolidation 10 s.

    Per GPU, a round earns U = 360 v / 3000 v = 0.12 on a V100 and L = 0.12 k / v on the K80;
    empty nodes cost L. The first copy takes a V100 (0.12 - L beats 0). A second V100 copy adds
    0.12 (4/3 (1 - s) - 1) = 0.036 > L (two copies progress 2 v 2/3 (1 - s)); a copy on the K80
    instead, or a third copy, lowers the rate ((2 v + k) (2/4) < 2 v (2/3)). The job keeps its
    two copies, and after its last step pays one more consolidation c:
    JCT = 3000 v / (4/3 v (1 - s)) + c.
    """
    jobs = jobs_frame(("a", 0, RESNET50, 1, 3000 * V))
    result = simulate(jobs, ScenarioConfig(cluster=THREE_NODES), PolicySpec("hadare"), MATRIX)
    expected = 3000 * V / (TWO_COPIES * (1 - consolidation_share(10.0))) + consolidation_s(10.0)
    assert jcts(result)["a"] == pytest.approx(expected)
    assert result.segments["nodes"].tolist() == ["n0", "n1"]
    assert (result.segments["combine"] == "copies").all()
    assert (result.segments["restore_s"] == 0).all()  # a first start costs nothing


def test_without_a_slower_node_the_second_copy_does_not_pay_its_price() -> None:
    """On two V100 nodes alone, L = U = 0.12: the second copy's gain of 0.036 does not cover
    the price L of its node, so the job runs as one copy: JCT = 3000 s, no consolidation."""
    jobs = jobs_frame(("a", 0, RESNET50, 1, 3000 * V))
    two_v100 = cluster(("v100", 2, 1, "r0"))
    result = simulate(jobs, ScenarioConfig(cluster=two_v100), PolicySpec("hadare"), MATRIX)
    assert jcts(result)["a"] == pytest.approx(3000.0)
    assert result.segments["nodes"].tolist() == ["n0"]


def test_hadare_grows_a_running_job_at_the_round_and_every_copy_pays_the_restore() -> None:
    """a needs 3000 V100-seconds, b 200; both at t=0; three nodes as above.

    b (density 1) takes V100 n0, a the other V100 (n1); a copy of a on the K80 would slow it,
    and b finishes within the round on one GPU. b ends at 200; n0 idles until the round. At
    360 a (remaining 2640 v) keeps n1 and a copy on n0 adds (360^2 / 390 (4/3)(1 - s) - 360) /
    2640 = 0.027 over keeping one copy, which covers the price L = 360 k / 2640 v = 0.019. The
    grant changes, so both copies restore until 390: JCT_a = 390 + 2640 v / (4/3 v (1 - s)) + c.
    """
    jobs = jobs_frame(("a", 0, RESNET50, 1, 3000 * V), ("b", 0, RESNET50, 1, 200 * V))
    result = simulate(jobs, ScenarioConfig(cluster=THREE_NODES), PolicySpec("hadare"), MATRIX)
    rate = TWO_COPIES * (1 - consolidation_share(10.0))
    expected_a = 390 + 2640 * V / rate + consolidation_s(10.0)
    assert jcts(result) == pytest.approx({"a": expected_a, "b": 200.0})
    a = result.segments[result.segments["job_id"] == "a"].sort_values(["start_s", "lane"])
    assert a["nodes"].tolist() == ["n1", "n0", "n1"]
    assert a["end_reason"].tolist() == ["migrated", "completed", "completed"]
    assert a["restore_s"].tolist() == pytest.approx([0.0, RESTORE, RESTORE])


def test_a_job_keeps_its_copies_through_a_final_consolidation_across_the_round() -> None:
    """The job's last step is done at 355 s; its final consolidation (c = 10 s + transfer)
    runs past the round boundary at 360, where it keeps both copies: JCT = 355 + c."""
    rate = TWO_COPIES * (1 - consolidation_share(10.0))
    jobs = jobs_frame(("a", 0, RESNET50, 1, 355 * rate))
    result = simulate(jobs, ScenarioConfig(cluster=THREE_NODES), PolicySpec("hadare"), MATRIX)
    assert jcts(result)["a"] == pytest.approx(355 + consolidation_s(10.0))
    assert (result.segments["end_reason"] == "completed").all()
    assert len(result.segments) == 2


def test_bad_knobs_are_rejected() -> None:
    jobs = jobs_frame(("a", 0, RESNET50, 1, 100.0))
    config = ScenarioConfig(cluster=TWO_NODES)
    with pytest.raises(ConfigError, match="combine"):
        simulate(jobs, config, PolicySpec("hadar", {"combine": "copies"}), MATRIX)
    with pytest.raises(ConfigError, match="max_copies"):
        simulate(jobs, config, PolicySpec("hadare", {"max_copies": -1}), MATRIX)
    with pytest.raises(ConfigError, match="noise_scale_ratio"):
        simulate(jobs, config, PolicySpec("hadare", {"noise_scale_ratio": -1.0}), MATRIX)


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

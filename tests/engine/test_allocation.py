"""The allocation contract (engine/allocation/): node layout, the checks on every allocation, and
a policy's decision as a returned value.

Hand-computed on small clusters with Gavel's throughput table (ResNet-50 on one V100: 4.3948
steps/s).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.allocation import Decision, Grant, NodeInfo, NodeLayout, Part, validate_allocation
from engine.cluster import ClusterState
from engine.config import ClusterSpec, NetworkConfig, NodeGroup, PolicySpec, ScenarioConfig
from engine.errors import AllocationError
from engine.placement import get_placement
from engine.policies import base
from engine.policies.fifo import Fifo
from engine.simulator import simulate
from engine.state import JobState
from engine.step_time.throughput import load_matrix
from engine.step_time.topology import Topology
from tests.engine.helpers import RESNET50, cluster, jobs_frame

MATRIX = load_matrix()
TWO_RACKS = cluster(("v100", 2, 4, "r1"), ("k80", 1, 8, "r0"), ("v100", 1, 2, "r0"))


def test_nodes_are_numbered_once_in_gpu_mix_order() -> None:
    layout = NodeLayout.of(TWO_RACKS)
    assert layout.nodes == (
        NodeInfo(0, "v100", "r1", 4),
        NodeInfo(1, "v100", "r1", 4),
        NodeInfo(2, "k80", "r0", 8),
        NodeInfo(3, "v100", "r0", 2),
    )
    assert layout.racks == ("r0", "r1")
    assert layout.node_rack_index == (1, 1, 0, 0)
    assert layout.type_nodes == {"v100": (0, 1, 3), "k80": (2,)}
    assert list(layout.capacity.items()) == [("v100", 10), ("k80", 8)]
    assert layout.rack_gpus() == {"r0": 10, "r1": 8}
    assert layout.rack_nodes("r0") == [2, 3]


@settings(deadline=None)  # the first example imports networkx (the graph is lazy)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["v100", "k80", "p100"]),
            st.integers(1, 4),
            st.integers(1, 8),
            st.sampled_from(["r0", "r1", "r2"]),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_cluster_state_topology_and_policy_context_share_one_numbering(groups: list) -> None:
    spec = ClusterSpec(tuple(NodeGroup(*g) for g in groups))
    layout = NodeLayout.of(spec)
    assert layout.capacity == spec.capacity() and list(layout.capacity) == list(spec.capacity())
    state = ClusterState(layout, get_placement("first_fit"))
    assert [state.free_on(n) for n in range(len(layout.nodes))] == list(layout.node_gpus)
    topology = Topology(layout, NetworkConfig())
    for node in layout.nodes:
        assert topology.graph.nodes[f"n{node.node}"]["worker_type"] == node.worker_type
        assert topology.graph.nodes[f"n{node.node}"]["rack"] == node.rack
    assert Topology(spec, NetworkConfig()).node_rack == layout.node_rack


def _job(index: int, job_type: str = RESNET50, scale_factor: int = 1) -> JobState:
    speeds = {wt: MATRIX.steps_per_s(job_type, wt, scale_factor) for wt in ("v100", "k80")}
    return JobState(index, f"j{index}", 0.0, job_type, scale_factor, 100.0, 1.0, speeds, 1e8)


def _check(allocation: dict[int, Grant], jobs: list[JobState]) -> None:
    validate_allocation(allocation, jobs, NodeLayout.of(TWO_RACKS), MATRIX, "p", 7.0)


def test_a_feasible_allocation_passes() -> None:
    jobs = [_job(0), _job(1, scale_factor=2)]
    pinned = Grant.of_parts([Part("v100", 2, 3), Part("k80", 1)], combine="proportional")
    _check({0: Grant("v100", 8), 1: pinned}, jobs)  # 10 v100 and 8 k80 exist; n3 has 2


@pytest.mark.parametrize(
    ("grants", "message"),
    [
        ({0: Grant("v100", 6), 1: Grant("v100", 6)}, "p: granted 12 v100 GPUs at t=7s; the "
                                                      "cluster has 10"),
        ({0: Grant("a100", 1)}, "p: job j0 granted 1 x a100, which it cannot use"),
        ({0: Grant("v100", 0)}, "p: job j0 granted 0 x v100, which it cannot use"),
        ({0: Grant.of_parts([Part("v100", 3, 3)])}, "granted 3 GPUs on node n3 at t=7s"),
        ({0: Grant.of_parts([Part("v100", 1, 9)])}, "granted 1 GPUs on node n9"),
    ],
)  # fmt: skip
def test_an_impossible_allocation_is_rejected_naming_policy_job_and_time(
    grants: dict[int, Grant], message: str
) -> None:
    with pytest.raises(AllocationError, match=message):
        _check(grants, [_job(0), _job(1)])


def test_a_job_granted_a_gang_it_does_not_fit_is_rejected() -> None:
    """Gavel's table measures 0 steps/s for ResNet-50 at batch 128 on two K80s (out of memory)."""
    job = _job(0, "ResNet-50 (batch size 128)", scale_factor=2)
    assert MATRIX.steps_per_s(job.job_type, "k80", 2) == 0.0
    with pytest.raises(AllocationError, match="granted 2 x k80, which it cannot use"):
        _check({0: Grant("k80", 2)}, [job])


def test_validation_counts_kept_grants_rechecks_only_new_ones_and_changes_nothing() -> None:
    """Job 0 runs under 8 V100s; its kept grant counts towards the 10 V100s (2 more fit, 3 do
    not). A kept grant is not checked again: job 2 keeps 2 K80s it could not start on (out of
    memory for ResNet-50 at batch 128), which job 3, waiting, is refused. The verdict writes
    nothing on the jobs (the engine marks the kept ones itself)."""
    big = "ResNet-50 (batch size 128)"
    jobs = [_job(0), _job(1), _job(2, big, scale_factor=2), _job(3, big, scale_factor=2)]
    jobs[0].grant, jobs[2].grant = Grant("v100", 8), Grant("k80", 2)
    _check({0: jobs[0].grant, 1: Grant("v100", 2), 2: Grant("k80", 2)}, jobs)
    with pytest.raises(AllocationError, match="p: granted 11 v100 GPUs at t=7s; the cluster has"):
        _check({0: Grant("v100", 8), 1: Grant("v100", 3)}, jobs)
    with pytest.raises(AllocationError, match="job j3 granted 2 x k80, which it cannot use"):
        _check({2: jobs[2].grant, 3: Grant("k80", 2)}, jobs)
    assert [job.kept_stamp for job in jobs] == [-1] * 4
    assert [job.grant for job in jobs] == [Grant("v100", 8), None, Grant("k80", 2), None]


def test_a_bare_allocation_is_a_decision_without_wake_up_or_held_jobs() -> None:
    allocation = {0: Grant("v100", 1)}
    assert Decision.of(allocation) == Decision(allocation, math.inf, frozenset())
    decision = Decision(allocation, 5.0, frozenset({1}))
    assert Decision.of(decision) is decision


@pytest.fixture
def holding() -> Iterator[None]:
    """Registers policy "holding": holds job a back until t=100 s, then grants every waiting job
    one V100 (a policy with a delay timer, as Dally's)."""

    class Holding(Fifo):
        def allocate(self, state: base.SchedulerState) -> base.Allocation | base.Decision:
            if state.now_s < 100.0:
                return Decision({}, wake_at_s=100.0, held_for_consolidation=frozenset({0}))
            return {job.index: Grant("v100", 1) for job in state.waiting}

    base.POLICIES.register("holding", Holding)
    yield
    base.POLICIES.unregister("holding")


@pytest.mark.usefixtures("holding")
def test_the_engine_wakes_at_the_decisions_time_and_counts_the_held_wait() -> None:
    """a arrives at 0 and is held until the wake-up at 100 s (no event happens then but the
    wake-up); b arrives at 500 s, after a is done (1000 steps at r_v take 227.5 s)."""
    config = ScenarioConfig(cluster=cluster(("v100", 1, 1, "r0")), network=NetworkConfig())
    jobs = jobs_frame(("a", 0, RESNET50, 1, 1000.0), ("b", 500, RESNET50, 1, 1000.0))
    result = simulate(jobs, config, PolicySpec("holding"), MATRIX).jobs.set_index("job_id")
    run_s = 1000.0 / MATRIX.steps_per_s(RESNET50, "v100", 1)
    assert result.loc["a", "first_start_s"] == 100.0
    assert result.loc["a", "consolidation_wait_s"] == 100.0
    assert result.loc["a", "completion_s"] == pytest.approx(100.0 + run_s)
    assert result.loc["b", "first_start_s"] == 500.0
    assert result.loc["b", "consolidation_wait_s"] == 0.0

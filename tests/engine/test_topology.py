"""The network graph and its link model: structure, the links a ring crosses, shared and
congested links, with step times computed by hand from the ring model."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config import CongestionEpisode, NetworkConfig, PolicySpec, ScenarioConfig
from engine.policies import base
from engine.policies.fifo import Fifo
from engine.simulator import simulate
from engine.step_time.network import ring_comm_s
from engine.step_time.throughput import gradient_bytes, load_matrix
from engine.step_time.topology import LinkLoad, Topology
from tests.engine.helpers import RESNET50, cluster, jobs_frame

MATRIX = load_matrix()
TWO_RACKS = cluster(("v100", 2, 2, "r0"), ("v100", 2, 2, "r1"))  # n0, n1 in r0; n2, n3 in r1
GRAD = gradient_bytes(RESNET50)
NET = NetworkConfig()


def test_the_graph_has_gpus_nodes_rack_switches_and_a_core() -> None:
    topology = Topology(TWO_RACKS, NetworkConfig(uplink_oversubscription=2.0))
    kinds = [data["kind"] for _, data in topology.graph.nodes(data=True)]
    assert kinds.count("gpu") == 8 and kinds.count("node") == 4
    assert kinds.count("rack") == 2 and kinds.count("core") == 1
    assert topology.capacity_gbps["node:n2"] == 25.0
    assert topology.capacity_gbps["uplink:r0"] == 2 * 25.0 / 2.0  # 2 nodes x 25 / 2
    assert topology.graph.edges["n0/g1", "n0"]["capacity_gbps"] == 100.0


@pytest.mark.parametrize(
    ("nodes", "links"),
    [
        ((0,), ()),
        ((0, 1), ("node:n0", "node:n1")),
        ((1, 2), ("node:n1", "node:n2", "uplink:r0", "uplink:r1")),
    ],
)
def test_a_ring_crosses_each_nodes_link_and_the_uplinks_of_its_racks(
    nodes: tuple[int, ...], links: tuple[str, ...]
) -> None:
    assert Topology(TWO_RACKS, NET).links_of(nodes) == links


def graph_ring_links(topology: Topology, nodes: set[int]) -> tuple[str, ...]:
    """The links of a ring over ``nodes`` from networkx's shortest paths on the topology's graph
    (consecutive members by rack, then index, and back round)."""
    ring = sorted(nodes, key=lambda n: (topology.node_rack[n], n))
    links: set[str] = set()
    for a, b in itertools.pairwise([*ring, ring[0]] if len(ring) > 1 else []):
        path = nx.shortest_path(topology.graph, f"n{a}", f"n{b}")
        links.update(topology.graph.edges[u, v]["link"] for u, v in itertools.pairwise(path))
    return tuple(sorted(links))


@settings(deadline=None)  # the first example imports networkx (the graph is lazy)
@given(st.sets(st.integers(0, 8), max_size=9))
def test_ring_links_read_off_the_tree_equal_the_graphs_shortest_paths(nodes: set[int]) -> None:
    """links_of reads each ring hop's links off the node - rack switch - core tree; networkx's
    shortest paths on the graph give the same links (three racks, one of a single node)."""
    three_racks = cluster(("v100", 3, 2, "r0"), ("k80", 5, 4, "r1"), ("p100", 1, 2, "r2"))
    topology = Topology(three_racks, NET)
    assert topology.links_of(nodes) == graph_ring_links(topology, nodes)


@pytest.mark.parametrize(
    ("target", "hit"),
    [
        ("inter_node", {"node:n0", "node:n2", "uplink:r0", "uplink:r1"}),
        ("cross_rack", {"uplink:r0", "uplink:r1"}),
        ("rack:r0", {"node:n0", "uplink:r0"}),
        ("uplink:r1", {"uplink:r1"}),
        ("node:n2", {"node:n2"}),
    ],
)
def test_congestion_episodes_hit_the_links_they_name(target: str, hit: set[str]) -> None:
    topology = Topology(TWO_RACKS, NET)
    episode = CongestionEpisode(0.0, 1.0, 2.0, target)
    links = {"node:n0", "node:n2", "uplink:r0", "uplink:r1"}
    assert {link for link in links if topology.hits(episode, link)} == hit


def test_jobs_on_one_link_split_it_and_background_load_takes_its_share() -> None:
    net = NetworkConfig(background_load=0.2, share_links=True)
    load = LinkLoad(Topology(TWO_RACKS, net))
    assert load.attach(0, ("node:n0", "node:n1")) == set()
    assert load.bandwidth_gbps(0, 0.0) == pytest.approx(25 * 0.8)
    assert load.attach(1, ("node:n1",)) == {0}
    assert load.bandwidth_gbps(0, 0.0) == pytest.approx(25 * 0.8 / 2)
    assert load.detach(1) == {0}
    assert load.bandwidth_gbps(0, 0.0) == pytest.approx(25 * 0.8)


def test_an_oversubscribed_uplink_is_the_bottleneck_across_racks() -> None:
    """Oversubscription 10: each uplink carries 2 x 25 / 10 = 5 Gb/s, below the 10 Gb/s
    per-flow cap."""
    load = LinkLoad(Topology(TWO_RACKS, NetworkConfig(uplink_oversubscription=10.0)))
    load.attach(0, Topology(TWO_RACKS, NET).links_of((1, 2)))
    assert load.bandwidth_gbps(0, 0.0) == pytest.approx(5.0)


@pytest.fixture
def pinned() -> Iterator[dict[str, base.Grant]]:
    """Registers policy "pinned": each waiting job gets the grant named after its job id."""
    grants: dict[str, base.Grant] = {}

    class Pinned(Fifo):
        def allocate(self, state: base.SchedulerState) -> base.Allocation:
            return {job.index: grants[job.job_id] for job in state.waiting}

    base.POLICIES.register("pinned", Pinned)
    yield grants
    base.POLICIES.unregister("pinned")


def _rate(bandwidth_gbps: float) -> float:
    """Steps/s of a 2-GPU ResNet-50 ring over two nodes at ``bandwidth_gbps`` (hand model)."""
    iteration_s = 2 / MATRIX.steps_per_s(RESNET50, "v100", 2)
    iteration_s += ring_comm_s(2, GRAD, bandwidth_gbps, NET.latency_s) - ring_comm_s(
        2, GRAD, NET.intra_node_gbps, NET.latency_s
    )
    return 2 / iteration_s


def test_jobs_sharing_node_links_slow_down_together_until_one_leaves(
    pinned: dict[str, base.Grant],
) -> None:
    """a (2,000 steps) and b (1,000 steps) each hold one GPU on n0 and one on n1 from t=0, so
    both cross node:n0 and node:n1 and get 25/2 Gb/s. b ends at t1 = 1000 / r(12.5); then a
    has the links alone: it ends at t1 + 1000 / r(25)."""
    split = [base.Part("v100", 1, 0), base.Part("v100", 1, 1)]
    pinned["a"] = pinned["b"] = base.Grant.of_parts(split)
    jobs = jobs_frame(("a", 0, RESNET50, 2, 2000.0), ("b", 0, RESNET50, 2, 1000.0))
    config = ScenarioConfig(cluster=TWO_RACKS, network=NetworkConfig(share_links=True))
    result = simulate(jobs, config, PolicySpec("pinned"), MATRIX).jobs.set_index("job_id")
    t1 = 1000 / _rate(12.5)
    assert result.loc["b", "jct_s"] == pytest.approx(t1)
    assert result.loc["a", "jct_s"] == pytest.approx(t1 + 1000 / _rate(25.0))
    unshared = simulate(
        jobs, ScenarioConfig(cluster=TWO_RACKS, network=NetworkConfig(share_links=False)),
        PolicySpec("pinned"), MATRIX,
    ).jobs.set_index("job_id")  # fmt: skip
    assert unshared.loc["a", "jct_s"] == pytest.approx(2000 / _rate(25.0))


def test_congestion_on_one_uplink_slows_only_the_jobs_that_cross_it(
    pinned: dict[str, base.Grant],
) -> None:
    """uplink:r1 at a quarter bandwidth from t=0: a spans racks (n1, n2), b spans n0 and n1
    within r0. They share node:n1 (25/2 Gb/s each), so b runs at 12.5 Gb/s; a's bottleneck is
    uplink:r1 at 10/4 = 2.5 Gb/s, before and after b leaves."""
    pinned["a"] = base.Grant.of_parts([base.Part("v100", 1, 1), base.Part("v100", 1, 2)])
    pinned["b"] = base.Grant.of_parts([base.Part("v100", 1, 0), base.Part("v100", 1, 1)])
    jobs = jobs_frame(("a", 0, RESNET50, 2, 1000.0), ("b", 0, RESNET50, 2, 1000.0))
    net = NetworkConfig(
        congestion=(CongestionEpisode(0.0, 1e9, 4.0, "uplink:r1"),), share_links=True
    )
    config = ScenarioConfig(cluster=TWO_RACKS, network=net)
    result = simulate(jobs, config, PolicySpec("pinned"), MATRIX).jobs.set_index("job_id")
    assert result.loc["b", "jct_s"] == pytest.approx(1000 / _rate(12.5))
    assert result.loc["a", "jct_s"] == pytest.approx(1000 / _rate(2.5))


def test_network_sensitivity_is_cross_rack_over_node_local_step_time() -> None:
    """2-GPU ResNet-50: node-local iteration 2/r(2) on a V100; across racks it adds the ring
    time at min(25, 10) Gb/s over the node-local ring at 100 Gb/s. A 4-GPU job on a cluster
    whose V100s are too few for it is rated on the K80s that can hold it."""
    node_s = 2 / MATRIX.steps_per_s(RESNET50, "v100", 2)
    extra_s = ring_comm_s(2, GRAD, 10.0, NET.latency_s) - ring_comm_s(2, GRAD, 100.0, NET.latency_s)
    mixed = cluster(("v100", 1, 2, "r0"), ("k80", 2, 2, "r1"))
    jobs = jobs_frame(("a", 0, RESNET50, 2, 100.0), ("b", 0, RESNET50, 4, 100.0))
    result = simulate(jobs, ScenarioConfig(cluster=mixed), PolicySpec("fifo"), MATRIX)
    sensitivity = result.jobs.set_index("job_id")["network_sensitivity"]
    assert sensitivity["a"] == pytest.approx((node_s + extra_s) / node_s)
    k80_s = 4 / MATRIX.steps_per_s(RESNET50, "k80", 4)
    k80_extra_s = ring_comm_s(4, GRAD, 10.0, NET.latency_s) - ring_comm_s(
        4, GRAD, 100.0, NET.latency_s
    )
    assert sensitivity["b"] == pytest.approx((k80_s + k80_extra_s) / k80_s)

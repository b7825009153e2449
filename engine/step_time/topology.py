"""The cluster's network as a graph: GPUs, nodes, rack switches, the core, and their links.

Built with networkx (on first use of ``graph``) from the GPU mix and the network settings.
Vertices are ``"core"``, ``"tor:<rack>"`` (a rack's top-of-rack switch), ``"n<i>"`` (a node,
numbered in GPU-mix order) and ``"n<i>/g<j>"`` (its GPUs). Every edge carries ``link`` (an
id), ``kind`` and ``capacity_gbps``:

- GPU - node, kind ``"gpu"``: ``intra_node_gbps`` (NVLink/PCIe class; never shared).
- node - rack switch, kind ``"node"``, id ``"node:n<i>"``: the node's NIC, ``intra_rack_gbps``.
- rack switch - core, kind ``"uplink"``, id ``"uplink:<rack>"``: the rack's uplink, of capacity
  ``nodes in the rack x intra_rack_gbps / uplink_oversubscription``. A single flow across the
  core is further capped at ``cross_rack_gbps`` [R: the per-flow limit of a routed fabric].

A ring all-reduce over several nodes crosses the links on the shortest paths between
consecutive ring members (nodes ordered by rack): each node's NIC, and the uplink of every rack
it touches when it spans racks. The bandwidth one job gets on a link is the link's capacity,
less the background load, divided by the congestion factor in force and, when links are
shared, by the number of jobs crossing it [R: equal shares, as TCP flows converge to]. A job's
bottleneck is its worst link (shared/docs/schedulers.md, "Communication").
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from engine.allocation.layout import NodeLayout
from engine.config import ClusterSpec, CongestionEpisode, NetworkConfig
from engine.step_time.network import episode_hits

CORE = "core"


def tor(rack: str) -> str:
    return f"tor:{rack}"


def node_link(node: int) -> str:
    return f"node:n{node}"


def uplink(rack: str) -> str:
    return f"uplink:{rack}"


class Topology:
    """The graph of one scenario's cluster, with the links each placement's ring crosses.

    Args:
        cluster: the GPU mix, or its node layout (the simulator passes the run's one layout).
        net: bandwidths and congestion.

    Attributes:
        graph: the networkx graph described in the module docstring.
        layout: the cluster's nodes (:class:`engine.allocation.layout.NodeLayout`).
        node_rack: rack name of each node, by node index (``layout.node_rack``).
        capacity_gbps: link id -> capacity (Gb/s) of every inter-node link.
    """

    def __init__(self, cluster: ClusterSpec | NodeLayout, net: NetworkConfig) -> None:
        self.net = net
        self.layout = cluster if isinstance(cluster, NodeLayout) else NodeLayout.of(cluster)
        self.node_rack = self.layout.node_rack
        self.capacity_gbps: dict[str, float] = {}
        self._graph: Any = None  # built on first use: the engine reads only the link ids
        self._links_cache: dict[tuple[int, ...], tuple[str, ...]] = {}
        self._free_gbps: dict[str, float] = {}  # link -> capacity less the background load
        self._episodes: dict[str, tuple[CongestionEpisode, ...]] = {}  # link -> those hitting it
        self._node_links = [node_link(node) for node in range(len(self.layout.nodes))]
        for node in self.layout.nodes:
            self.capacity_gbps[node_link(node.node)] = net.intra_rack_gbps
        for rack in self.layout.racks:
            self.capacity_gbps[uplink(rack)] = self._uplink_gbps(rack)

    def _uplink_gbps(self, rack: str) -> float:
        nodes_in_rack = self.node_rack.count(rack)
        return nodes_in_rack * self.net.intra_rack_gbps / self.net.uplink_oversubscription

    @property
    def graph(self) -> Any:
        """The networkx graph (module docstring), built on first access: a run only needs
        :attr:`capacity_gbps` and the ring links, read off the tree without it."""
        if self._graph is None:
            import networkx as nx  # only the dashboard and the tests draw on the graph

            self._graph = nx.Graph()
            self._graph.add_node(CORE, kind="core")
            for node in self.layout.nodes:
                self._add_node(node.node, node.worker_type, node.num_gpus, node.rack)
            for rack in self.layout.racks:
                self._add_link(tor(rack), CORE, uplink(rack), "uplink", self._uplink_gbps(rack))
        return self._graph

    def _add_node(self, index: int, worker_type: str, gpus: int, rack: str) -> None:
        name = f"n{index}"
        self._graph.add_node(name, kind="node", worker_type=worker_type, rack=rack)
        self._graph.add_node(tor(rack), kind="rack", rack=rack)
        self._add_link(name, tor(rack), node_link(index), "node", self.net.intra_rack_gbps)
        for gpu in range(gpus):
            self._graph.add_node(f"{name}/g{gpu}", kind="gpu", worker_type=worker_type)
            self._graph.add_edge(
                f"{name}/g{gpu}", name, link=f"gpu:{name}/g{gpu}", kind="gpu",
                capacity_gbps=self.net.intra_node_gbps,
            )  # fmt: skip

    def _add_link(self, a: str, b: str, link: str, kind: str, capacity_gbps: float) -> None:
        self._graph.add_edge(a, b, link=link, kind=kind, capacity_gbps=capacity_gbps)

    def links_of(self, nodes: Iterable[int]) -> tuple[str, ...]:
        """Inter-node link ids a ring over ``nodes`` crosses (empty for one node), sorted."""
        if isinstance(nodes, tuple):  # a placement's nodes: ascending and distinct already
            known = self._links_cache.get(nodes)  # (keys are sorted and distinct)
            if known is not None:
                return known
        key = tuple(sorted(set(nodes)))
        cached = self._links_cache.get(key)
        if cached is None:
            cached = self._links_cache[key] = self._ring_links(key)
        return cached

    def _ring_links(self, nodes: tuple[int, ...]) -> tuple[str, ...]:
        """The links on the graph's shortest path between consecutive ring members, read off the
        tree the graph is: node - rack switch - node within a rack, node - rack switch - core -
        rack switch - node across racks (each path is unique; ``shortest_path`` on the graph
        returns the same links, see tests/engine/test_topology.py). So: every member's NIC, and
        when the ring spans racks, the uplink of each rack it touches (nodes ordered by rack,
        the ring crosses from each rack's last member to the next rack and back round)."""
        if len(nodes) <= 1:
            return ()
        rack_of, node_links = self.node_rack, self._node_links
        links = {node_links[node] for node in nodes}  # every member's NIC
        racks = {rack_of[node] for node in nodes}
        if len(racks) > 1:  # the ring, ordered by rack, leaves and enters every rack it touches
            links.update(uplink(rack) for rack in racks)
        return tuple(sorted(links))

    def congestion_factor(self, link: str, now_s: float) -> float:
        """Largest bandwidth divisor in force on ``link`` at ``now_s`` (1 when none)."""
        episodes = self._episodes.get(link)
        if episodes is None:  # which episodes hit a link does not change with time
            episodes = tuple(e for e in self.net.congestion if self.hits(e, link))
            self._episodes[link] = episodes
        factor = 1.0
        for episode in episodes:
            if episode.start_s <= now_s < episode.end_s:
                factor = max(factor, episode.factor)
        return factor

    def hits(self, episode: CongestionEpisode, link: str) -> bool:
        """Whether a congestion episode affects inter-node ``link``
        (:func:`engine.step_time.network.episode_hits`)."""
        kind, _, name = link.partition(":")
        rack = name if kind == "uplink" else self.node_rack[int(name[1:])]
        return episode_hits(episode, kind, rack, link)

    def link_share_gbps(self, link: str, sharers: int, now_s: float) -> float:
        """Bandwidth one of ``sharers`` jobs gets on ``link`` at ``now_s`` (Gb/s)."""
        free = self._free_gbps.get(link)
        if free is None:
            free = self._free_gbps[link] = self.capacity_gbps[link] * (1 - self.net.background_load)
        share = free / max(1, sharers)
        if link.startswith("uplink:"):
            share = min(share, self.net.cross_rack_gbps)
        return share / self.congestion_factor(link, now_s)


class LinkLoad:
    """Which running jobs cross which inter-node links, and the bandwidth each one gets.

    The simulator attaches a job when it is placed on several nodes and detaches it when it
    releases them; both return the other jobs on the same links, whose share just changed (none
    when links are not shared: a rack's uplink carries a share of the cluster's jobs, so
    gathering them on every multi-node start and end grew with the cluster, issue 37).
    """

    def __init__(self, topology: Topology) -> None:
        self.topology = topology
        self.share = topology.net.share_links
        self.jobs_on: dict[str, set[int]] = {}
        self.links: dict[int, tuple[str, ...]] = {}

    def attach(self, job: int, links: tuple[str, ...]) -> set[int]:
        """Records ``job`` on ``links``; returns the other jobs on them."""
        self.links[job] = links
        neighbours: set[int] = set()
        share = self.share
        for link in links:
            on = self.jobs_on.setdefault(link, set())
            if share:
                neighbours |= on
            on.add(job)
        return neighbours

    def detach(self, job: int) -> set[int]:
        """Forgets ``job``; returns the jobs left on its links."""
        neighbours: set[int] = set()
        share = self.share
        for link in self.links.pop(job, ()):
            on = self.jobs_on[link]
            on.discard(job)
            if share:
                neighbours |= on
        return neighbours

    def bandwidth_gbps(self, job: int, now_s: float) -> float:
        """The job's bottleneck bandwidth (Gb/s): its worst share over the links it crosses."""
        links = self.links.get(job, ())
        if not links:
            return self.topology.net.intra_node_gbps
        share, jobs_on, topology = self.share, self.jobs_on, self.topology
        worst = math.inf
        for link in links:  # min() over the shares, first of equals (they are equal floats)
            gbps = topology.link_share_gbps(link, len(jobs_on[link]) if share else 1, now_s)
            if gbps < worst:
                worst = gbps
        return worst

    def busy_links(self) -> dict[str, int]:
        """Link id -> number of jobs crossing it now (links with none are left out)."""
        return {link: len(jobs) for link, jobs in self.jobs_on.items() if jobs}

"""Ring all-reduce communication model with congestion.

Per synchronous iteration of an ``n``-GPU data-parallel job (shared/docs/schedulers.md):

    t_comm = 2 (n-1)/n * gradient_bytes / bandwidth + 2 (n-1) * latency

where the bandwidth is that of the slowest link the placement crosses: node-local < rack-local <
cross-rack. Gavel's measured multi-GPU throughputs already include the node-local all-reduce
(the job was consolidated on one server), so the engine charges only what a worse placement or
congestion adds over that baseline. Congestion divides the bandwidth of the links it affects.
MLPerf's times (the ``mlperf`` matrix) hold all of a run's communication at every size, nodes
and racks included, so jobs of that matrix all-reduce 0 bytes here
(``ThroughputMatrix.gradient_bytes``): nothing is counted twice.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.config import CongestionEpisode, NetworkConfig

LEVELS = ("node", "rack", "network")
"""Consolidation levels, best first: one node, one rack, across racks."""


class StepModel(NamedTuple):
    """Speed of a job on a placement.

    Attributes:
        steps_per_s: progress rate, in the throughput matrix's steps (summed over workers).
        comm_share: share of each iteration spent in all-reduce (0..1).
    """

    steps_per_s: float
    comm_share: float


def ring_comm_s(
    num_gpus: int, gradient_bytes: float, bandwidth_gbps: float, latency_s: float
) -> float:
    """Seconds of one ring all-reduce of ``gradient_bytes`` over ``num_gpus`` GPUs."""
    if num_gpus <= 1:
        return 0.0
    n = num_gpus
    return 2 * (n - 1) / n * gradient_bytes * 8 / (bandwidth_gbps * 1e9) + 2 * (n - 1) * latency_s


def episode_hits(episode: CongestionEpisode, kind: str, rack: str | None, link: str = "") -> bool:
    """Whether a congestion episode covers an inter-node link (the one rule for every caller).

    Args:
        kind: ``"node"`` (a node's link to its rack switch) or ``"uplink"`` (a rack's uplink).
        rack: the rack the link belongs to (None: unknown).
        link: the link's id (``"node:n3"``, ``"uplink:rack0"``), for episodes naming one link.
    """
    target = episode.links
    if target == "inter_node" or (link and target == link):
        return True
    if target == "cross_rack":
        return kind == "uplink"
    return rack is not None and target == f"rack:{rack}"


def congestion_factor(
    episodes: tuple[CongestionEpisode, ...], now_s: float, link: str, racks: tuple[str, ...]
) -> float:
    """Largest bandwidth divisor in force at ``now_s`` on an inter-node ``link`` class.

    Args:
        link: ``"rack"`` (node to node within a rack) or ``"cross_rack"`` (the rack uplinks).
        racks: the racks the job's placement touches. An episode on one node's link is not
            seen at this granularity (:class:`engine.step_time.topology.Topology` sees it).
    """
    kind = "uplink" if link == "cross_rack" else "node"
    factor = 1.0
    for ep in episodes:
        if not ep.start_s <= now_s < ep.end_s:
            continue
        if racks:
            hits = any(
                episode_hits(ep, kind, rack, f"uplink:{rack}" if kind == "uplink" else "")
                for rack in racks
            )
        else:
            hits = episode_hits(ep, kind, None)
        if hits:
            factor = max(factor, ep.factor)
    return factor


def bottleneck_gbps(net: NetworkConfig, level: str, racks: tuple[str, ...], now_s: float) -> float:
    """Bandwidth of the slowest link a placement at ``level`` crosses, congestion included."""
    if level == "node":
        return net.intra_node_gbps
    rack_bw = net.intra_rack_gbps / congestion_factor(net.congestion, now_s, "rack", racks)
    if level == "rack":
        return rack_bw
    cross_bw = net.cross_rack_gbps / congestion_factor(net.congestion, now_s, "cross_rack", racks)
    return min(rack_bw, cross_bw)


def step_model_at(
    measured_steps_per_s: float,
    num_gpus: int,
    gradient_bytes: float,
    bandwidth_gbps: float,
    net: NetworkConfig,
) -> StepModel:
    """Progress rate of a job whose ring all-reduce's bottleneck is ``bandwidth_gbps`` (a level's
    nominal :func:`bottleneck_gbps`, or a job's share of its links in
    :class:`engine.step_time.topology.LinkLoad`).

    One iteration takes ``num_gpus / measured_steps_per_s`` seconds when consolidated (Gavel counts
    steps summed over workers), plus the extra all-reduce time of the actual bottleneck over the
    node-local one when ``net.enabled``.
    """
    iteration_s = num_gpus / measured_steps_per_s
    comm_s = ring_comm_s(num_gpus, gradient_bytes, bandwidth_gbps, net.latency_s)
    if net.enabled:
        baseline_s = ring_comm_s(num_gpus, gradient_bytes, net.intra_node_gbps, net.latency_s)
        iteration_s += max(0.0, comm_s - baseline_s)
    return StepModel(num_gpus / iteration_s, min(1.0, comm_s / iteration_s))


def change_times(net: NetworkConfig) -> list[float]:
    """Sorted times at which some link's bandwidth changes (episode starts and ends)."""
    return sorted({t for ep in net.congestion for t in (ep.start_s, ep.end_s)})


def network_sensitivity(
    measured_steps_per_s: float, num_gpus: int, gradient_bytes: float, net: NetworkConfig
) -> float:
    """``t_step(cross-rack) / t_step(node-local)`` of a job (shared/docs/schedulers.md; Dally,
    Sharma et al. 2024): how much slower an iteration gets when its ring crosses racks, with no
    congestion. 1.0 for a one-GPU job or a job that does not fit (``measured_steps_per_s`` 0).
    """
    if num_gpus <= 1 or measured_steps_per_s <= 0:
        return 1.0
    node_s = num_gpus / measured_steps_per_s
    extra_s = ring_comm_s(
        num_gpus, gradient_bytes, min(net.intra_rack_gbps, net.cross_rack_gbps), net.latency_s
    ) - ring_comm_s(num_gpus, gradient_bytes, net.intra_node_gbps, net.latency_s)
    return (node_s + max(0.0, extra_s)) / node_s

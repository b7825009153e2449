"""The network of a scenario: link bandwidths of the ring all-reduce model and congestion
episodes (part of :class:`engine.config.ScenarioConfig`; the model is :mod:`engine.step_time`).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class CongestionEpisode:
    """A period during which some inter-node links lose bandwidth.

    Attributes:
        start_s, end_s: the episode's time window in simulated seconds (start < end).
        factor: bandwidth divisor (>= 1); 4 means the links run at a quarter of their bandwidth.
        links: which links: ``"inter_node"`` (every link between nodes), ``"cross_rack"``
            (every rack uplink), ``"rack:<name>"`` (the node links and the uplink of one rack),
            ``"uplink:<rack>"`` (one rack's uplink) or ``"node:<node>"`` (one node's link to
            its rack switch, e.g. ``"node:n3"``). See :mod:`engine.step_time.topology`.
    """

    start_s: float = field(metadata={"help": "Episode start (s)"})
    end_s: float = field(metadata={"help": "Episode end (s)"})
    factor: float = field(metadata={"help": "Bandwidth divisor, >= 1"})
    links: str = field(
        default="inter_node",
        metadata={"help": "inter_node, cross_rack, rack:<name>, uplink:<rack> or node:<node>"},
    )


@dataclass(frozen=True)
class NetworkConfig:
    """Bandwidths of the ring all-reduce model and the congestion schedule.

    Defaults are typical of the V100-era clusters in the seed papers: PCIe-class intra-node links,
    25 GbE NICs within a rack, and 10 Gb/s effective per-flow bandwidth across oversubscribed
    rack uplinks. Latency 5 us per ring hop.
    """

    intra_node_gbps: float = field(default=100.0, metadata={"help": "Intra-node link bandwidth"})
    intra_rack_gbps: float = field(default=25.0, metadata={"help": "Node-to-node, same rack"})
    cross_rack_gbps: float = field(default=10.0, metadata={"help": "Across rack uplinks"})
    latency_s: float = field(default=5e-6, metadata={"help": "Per-hop latency (s)"})
    enabled: bool = field(
        default=True, metadata={"help": "Charge communication beyond the measured baseline"}
    )
    uplink_oversubscription: float = field(
        default=1.0,
        metadata={
            "help": "A rack's node bandwidth over its uplink's (>= 1); uplink capacity = "
            "nodes x intra-rack bandwidth / oversubscription"
        },
    )
    background_load: float = field(
        default=0.0,
        metadata={
            "help": "Share of every inter-node link used by traffic outside the trace, 0-0.9"
        },
    )
    share_links: bool = field(
        default=False,
        metadata={
            "help": "Jobs crossing the same link split its bandwidth (off: each job sees the "
            "link's whole bandwidth, as in Gavel's and Tiresias's simulators)"
        },
    )
    congestion: tuple[CongestionEpisode, ...] = ()

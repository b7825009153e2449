"""Tables behind the Network page: who sits on which node and rack at a time, and when.

Pure pandas on a policy's segments table (no Streamlit, no plotly). A segment row is one lane
of a job on a set of nodes (``nodes`` = ``"n3,n4"``) holding ``num_gpus`` GPUs in all, split over
those nodes as its ``node_gpus`` column says (``"8,4"``; see :mod:`engine.results`). Nodes and
racks come from the run's :class:`engine.allocation.layout.NodeLayout` (``Topology.layout``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from engine.allocation.layout import NodeLayout
from engine.config import ClusterSpec, CongestionEpisode
from engine.step_time.topology import Topology


def active_at(segments: pd.DataFrame, time_s: float) -> pd.DataFrame:
    """Segment rows running at ``time_s`` (``start_s <= time_s < end_s``)."""
    return segments[(segments["start_s"] <= time_s) & (time_s < segments["end_s"])]


def node_rows(segments: pd.DataFrame, node_rack: Sequence[str]) -> pd.DataFrame:
    """One row per (segment row, node) it holds: row (position of the segment row), job_id,
    start_s, end_s, num_gpus (the lane's total), spread (nodes in the lane), node, rack, gpus
    (GPUs on that node).

    Args:
        segments: a segments table with its ``nodes`` and ``node_gpus`` columns.
        node_rack: rack of each node by index (``NodeLayout.node_rack``, ``Topology.node_rack``).
    """
    columns = ["job_id", "start_s", "end_s", "num_gpus", "nodes", "node_gpus"]
    frame = segments[columns].reset_index(drop=True).copy()
    frame["row"] = frame.index
    frame["node"] = frame["nodes"].astype(str).str.split(",")
    frame["spread"] = frame["node"].str.len()
    frame["gpus"] = frame["node_gpus"].astype(str).str.split(",")
    frame = frame.explode(["node", "gpus"])
    frame["node"] = frame["node"].str.strip()
    frame["rack"] = frame["node"].map(lambda n: node_rack[int(n[1:])])
    frame["gpus"] = frame["gpus"].astype(float)
    return frame.drop(columns=["nodes", "node_gpus"]).reset_index(drop=True)


def node_occupancy(segments: pd.DataFrame, node_rack: Sequence[str], time_s: float) -> pd.DataFrame:
    """Per node holding a job at ``time_s``: busy_gpus and jobs (a short text per job).
    Index: node."""
    rows = node_rows(active_at(segments, time_s), node_rack)
    rows["text"] = [_job_text(r) for r in rows.itertuples()]
    grouped = rows.groupby("node")
    return pd.DataFrame({"busy_gpus": grouped["gpus"].sum(), "jobs": grouped["text"].apply(list)})


def _job_text(row) -> str:
    if row.spread == 1:
        return f"{row.job_id} ({_gpus(row.num_gpus)})"
    return f"{row.job_id} ({row.gpus:.0f} of its {_gpus(row.num_gpus)} over {row.spread} nodes)"


def _gpus(count: float) -> str:
    return f"{count:.0f} GPU" + ("" if count == 1 else "s")


def rack_rows(segments: pd.DataFrame, node_rack: Sequence[str]) -> pd.DataFrame:
    """One row per (segment row, rack) it touches: job_id, start_s, end_s, rack, gpus."""
    rows = node_rows(segments, node_rack)
    racks = rows.groupby(["row", "rack"], sort=False).agg(
        job_id=("job_id", "first"), start_s=("start_s", "first"), end_s=("end_s", "first"),
        gpus=("gpus", "sum"),
    ).reset_index()  # fmt: skip
    return racks[["job_id", "start_s", "end_s", "rack", "gpus"]]


def rack_load(segments: pd.DataFrame, node_rack: Sequence[str]) -> pd.DataFrame:
    """Step functions of busy GPUs per rack: rows (time_s, rack, value), each value holding from
    time_s to the rack's next row."""
    racks = rack_rows(segments, node_rack)
    starts = racks[["start_s", "rack", "gpus"]].rename(columns={"start_s": "time_s"})
    ends = racks[["end_s", "rack"]].rename(columns={"end_s": "time_s"})
    events = pd.concat([starts, ends.assign(gpus=-racks["gpus"])])
    steps = events.groupby(["rack", "time_s"], as_index=False).agg(gpus=("gpus", "sum"))
    steps["value"] = steps.groupby("rack")["gpus"].cumsum().round(9)
    return steps.loc[:, ["time_s", "rack", "value"]]


def rack_capacity(cluster: ClusterSpec | NodeLayout) -> dict[str, int]:
    """GPUs per rack, racks sorted by name."""
    layout = cluster if isinstance(cluster, NodeLayout) else NodeLayout.of(cluster)
    return layout.rack_gpus()


def rack_summary(topology: Topology, cluster: ClusterSpec) -> pd.DataFrame:
    """One row per rack: rack, nodes, node_names ("n0–n11"), gpus, mix ("96 v100"),
    node_link_gbps, uplink_gbps."""
    rows = []
    for rack, gpus in topology.layout.rack_gpus().items():
        members = topology.layout.rack_nodes(rack)
        groups = [g for g in cluster.node_groups if g.rack == rack]
        mix: dict[str, int] = {}
        for g in groups:
            mix[g.worker_type] = mix.get(g.worker_type, 0) + g.nodes * g.gpus_per_node
        rows.append(
            {
                "rack": rack, "nodes": len(members), "node_names": _node_span(members),
                "gpus": gpus,
                "mix": ", ".join(f"{n} {wt}" for wt, n in mix.items()),
                "node_link_gbps": topology.net.intra_rack_gbps,
                "uplink_gbps": topology.capacity_gbps[f"uplink:{rack}"],
            }
        )  # fmt: skip
    return pd.DataFrame(rows)


def _node_span(members: list[int]) -> str:
    """``"n0–n11"`` for consecutive node indices, else ``"n0, n5, n6"``."""
    if members == list(range(members[0], members[-1] + 1)):
        return f"n{members[0]}" if len(members) == 1 else f"n{members[0]}–n{members[-1]}"
    return ", ".join(f"n{i}" for i in members)


def links_hit(topology: Topology, episode: CongestionEpisode) -> list[str]:
    """Inter-node link ids a congestion episode slows (node links and uplinks)."""
    return [link for link in topology.capacity_gbps if topology.hits(episode, link)]


def time_options(
    end_s: float,
    episodes: tuple[CongestionEpisode, ...],
    focus_end_s: float | None = None,
    points: int = 241,
) -> list[float]:
    """Times a time slider offers (s): a grid over [0, end_s], three quarters of it before
    ``focus_end_s`` (the busy part), plus each congestion episode's midpoint, so every episode
    can be shown however short."""
    focus = end_s if focus_end_s is None else min(focus_end_s, end_s)
    inside = np.linspace(0.0, focus, points * 3 // 4 if focus < end_s else points)
    grid = np.concatenate([inside, np.linspace(focus, end_s, points // 4 + 1)])
    mids = [(e.start_s + e.end_s) / 2 for e in episodes if (e.start_s + e.end_s) / 2 <= end_s]
    return sorted({round(float(t), 3) for t in [*grid, *mids]})


def default_time(utilization: pd.DataFrame, episodes: tuple[CongestionEpisode, ...]) -> float:
    """Where the time slider starts: inside the first congestion episode, else when most GPUs
    were busy (from a policy's utilization table)."""
    if episodes:
        first = min(episodes, key=lambda e: e.start_s)
        return (first.start_s + first.end_s) / 2
    if utilization.empty:
        return 0.0
    busy = utilization.pivot_table("busy_gpus", "time_s", "worker_type", aggfunc="last")
    total = busy.sort_index().ffill().fillna(0).sum(axis=1)
    return float(total.index[int(total.to_numpy().argmax())])


def jobs_at(segments: pd.DataFrame, jobs: pd.DataFrame, time_s: float) -> pd.DataFrame:
    """Segment rows running at ``time_s`` with each job's network sensitivity, biggest first."""
    active = active_at(segments, time_s)
    columns = ["job_id", "num_gpus", "worker_type", "nodes", "racks", "level", "start_s", "end_s"]
    table = active[columns]
    if "network_sensitivity" in jobs:
        table = table.merge(jobs[["job_id", "network_sensitivity"]], on="job_id", how="left")
    return table.sort_values(["num_gpus", "job_id"], ascending=[False, True])


def network_summary(topology: Topology) -> str:
    """One line on the links: node links, uplinks, per-flow cap, background load, sharing."""
    net = topology.net
    uplinks = sorted({c for k, c in topology.capacity_gbps.items() if k.startswith("uplink:")})
    span = f"{uplinks[0]:,.0f}" + (f"–{uplinks[-1]:,.0f}" if uplinks[-1] != uplinks[0] else "")
    return (
        f"Node links {net.intra_rack_gbps:g} Gb/s · rack uplinks {span} Gb/s (oversubscribed "
        f"{net.uplink_oversubscription:g}:1) · one flow across racks at most "
        f"{net.cross_rack_gbps:g} Gb/s · background load {net.background_load:.0%} · links "
        + ("shared by the jobs crossing them" if net.share_links else "not shared")
        + ("" if net.enabled else " · network penalty off")
    )

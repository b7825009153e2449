"""The Network page's tables and chart builders, on a hand-made four-node cluster.

Cluster: rack0 holds n0 and n1, rack1 holds n2 and n3; 4 V100s per node; node links 25 Gb/s,
uplinks 2 x 25 / 2 = 25 Gb/s (2:1 oversubscribed). Jobs (segments):

- a: 4 GPUs on n0, 0-300 s          - b: 2 GPUs on n2, 50-150 s
- d: 6 GPUs on n2,n3 (2 + 4, rack1), 100-250 s
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dashboard import charts
from dashboard.network_charts import CONGESTED_COLOR, layout_positions, make_topology
from dashboard.network_data import (
    active_at,
    default_time,
    node_occupancy,
    rack_capacity,
    rack_load,
    rack_summary,
    time_options,
)
from dashboard.network_timelines import make_congestion_timeline, make_rack_load
from engine.config import ClusterSpec, CongestionEpisode, NetworkConfig, NodeGroup
from engine.results import ComparisonResult
from engine.step_time.topology import Topology

CLUSTER = ClusterSpec((NodeGroup("v100", 2, 4, "rack0"), NodeGroup("v100", 2, 4, "rack1")))
UPLINK_EPISODE = CongestionEpisode(100.0, 200.0, 4.0, "uplink:rack1")


def topology(*episodes: CongestionEpisode) -> Topology:
    net = NetworkConfig(intra_rack_gbps=25.0, uplink_oversubscription=2.0, congestion=episodes)
    return Topology(CLUSTER, net)


def segments(*extra: tuple) -> pd.DataFrame:
    rows = [
        ("a", 0.0, 300.0, 4, "n0", "rack0", "4"),
        ("b", 50.0, 150.0, 2, "n2", "rack1", "2"),
        ("d", 100.0, 250.0, 6, "n2,n3", "rack1", "2,4"),
        *extra,
    ]
    columns = ["job_id", "start_s", "end_s", "num_gpus", "nodes", "racks", "node_gpus"]
    frame = pd.DataFrame(rows, columns=columns)
    return frame.assign(worker_type="v100", level="node", restore_s=0.0, end_reason="completed")


def congested_lines(fig) -> list:
    return [t for t in fig.data if t.name == "congested link"]


def test_layout_puts_the_core_above_the_switches_above_their_nodes() -> None:
    positions = layout_positions(topology())
    assert positions["core"][1] > positions["tor:rack0"][1] > positions["n0"][1]
    assert positions["n0"][0] < positions["tor:rack0"][0] < positions["n1"][0]
    assert positions["n1"][0] < positions["n2"][0]  # racks side by side, in order


def test_a_link_is_red_inside_its_congestion_episode_and_not_outside() -> None:
    topo = topology(UPLINK_EPISODE)
    positions = layout_positions(topo)
    inside = make_topology(topo, segments(), 150.0)
    (line,) = congested_lines(inside)
    assert line.line.color == CONGESTED_COLOR
    assert {(x, y) for x, y in zip(line.x, line.y, strict=True) if x is not None} == {
        positions["tor:rack1"],
        positions["core"],
    }
    hover = next(t for t in inside.data if t.name == "links")
    assert any(text.startswith("uplink:rack1") and "÷4" in text for text in hover.text)
    assert "1 link(s) congested" in inside.layout.title.text
    for outside_s in (50.0, 200.0, 250.0):  # before, at the (exclusive) end, after
        outside = make_topology(topo, segments(), outside_s)
        assert not congested_lines(outside)
        assert "no congested link" in outside.layout.title.text


def test_congestion_on_one_node_link_reddens_that_link_only() -> None:
    topo = topology(CongestionEpisode(0.0, 10.0, 2.0, "node:n3"))
    positions = layout_positions(topo)
    (line,) = congested_lines(make_topology(topo, segments(), 5.0))
    ends = {(x, y) for x, y in zip(line.x, line.y, strict=True) if x is not None}
    assert ends == {positions["n3"], positions["tor:rack1"]}


def test_nodes_show_busy_gpus_and_their_jobs() -> None:
    topo = topology()
    fig = make_topology(topo, segments(), 120.0)
    nodes = next(t for t in fig.data if t.name.startswith("node"))
    # n0: a (4); n1 idle; n2: b (2) + 2 of d; n3: 4 of d
    assert list(nodes.text) == ["4", "0", "4", "4"]
    assert nodes.marker.color[0] == pytest.approx(1.0)
    assert "n2: 4 × v100" in nodes.hovertext[2] and "d (2 of its 6 GPUs" in nodes.hovertext[2]
    assert "idle" in nodes.hovertext[1]
    assert "12 of 16 GPUs busy" in fig.layout.title.text  # a + b + d, split or not


def test_busy_gpus_per_rack_sum_to_the_segments_running() -> None:
    seg = segments()
    steps = rack_load(seg, topology().node_rack)
    for t in (0.0, 60.0, 120.0, 160.0, 260.0, 400.0):
        per_rack = {
            rack: charts.step_values(rows["time_s"].to_numpy(), rows["value"].to_numpy(),
                                     np.array([t]))[0]
            for rack, rows in steps.groupby("rack")
        }  # fmt: skip
        assert sum(per_rack.values()) == active_at(seg, t)["num_gpus"].sum()
    at_120 = steps[(steps["time_s"] <= 120.0)].groupby("rack")["value"].last()
    assert at_120.to_dict() == {"rack0": 4.0, "rack1": 8.0}


def test_per_node_counts_when_recorded_give_gpus_per_rack() -> None:
    seg = segments(("c", 10.0, 20.0, 3, "n1,n2", "rack0,rack1", "1,2"))
    seg["node_gpus"] = ["4", "2", "3,3", "1,2"]
    steps = rack_load(seg, topology().node_rack)
    at_15 = steps[steps["time_s"] <= 15.0].groupby("rack")["value"].last()
    assert at_15.to_dict() == {"rack0": 5.0, "rack1": 2.0}
    occupancy = node_occupancy(seg, topology().node_rack, 120.0)
    assert occupancy.loc["n2", "busy_gpus"] == 5.0


def test_rack_heatmap_has_one_row_per_rack_and_marks_the_moment() -> None:
    steps = rack_load(segments(), topology().node_rack)
    capacity = rack_capacity(CLUSTER)
    fig = make_rack_load(steps, capacity, end_s=300.0, time_s=120.0, points=50)
    heat = fig.data[0]
    assert list(heat.y) == ["rack0", "rack1"]
    z = np.asarray(heat.z)
    assert z.shape == (2, 50) and z.min() >= 0 and z.max() <= 1
    assert fig.layout.shapes[0].x0 == pytest.approx(2.0)  # 120 s, axis in minutes


def test_congestion_timeline_has_a_bar_per_episode_and_names_the_links_hit() -> None:
    episodes = (UPLINK_EPISODE, CongestionEpisode(0.0, 50.0, 2.0, "rack:rack0"))
    fig = make_congestion_timeline(episodes, topology(*episodes), end_s=100.0, time_s=120.0)
    bars = fig.data[0]  # time axis in seconds (it ends at 100 s)
    assert list(bars.y) == ["uplink:rack1", "rack:rack0"]
    assert list(bars.base) == [100.0, 0.0] and list(bars.x) == [100.0, 50.0]
    assert list(bars.text) == ["÷4", "÷2"]
    assert "slows 3 link(s): node:n0, node:n1, uplink:rack0" in bars.hovertext[1]
    empty = make_congestion_timeline((), topology(), end_s=300.0)
    assert not empty.data and "No congestion" in empty.layout.annotations[0].text


def test_time_slider_offers_every_episode_and_starts_inside_the_first() -> None:
    short = CongestionEpisode(1000.0, 1001.0, 3.0, "cross_rack")
    options = time_options(10_000.0, (UPLINK_EPISODE, short), focus_end_s=5_000.0, points=41)
    assert 150.0 in options and 1000.5 in options
    assert options[0] == 0.0 and options[-1] == 10_000.0
    assert sum(t <= 5_000.0 for t in options) > sum(t > 5_000.0 for t in options)
    assert default_time(pd.DataFrame(), (short, UPLINK_EPISODE)) == 150.0


def test_without_episodes_the_slider_starts_when_most_gpus_are_busy(
    comparison: ComparisonResult,
) -> None:
    utilization = comparison.results[0].utilization
    t = default_time(utilization, ())
    busy = utilization.pivot_table("busy_gpus", "time_s", "worker_type", aggfunc="last")
    total = busy.sort_index().ffill().fillna(0).sum(axis=1)
    assert total.loc[t] == total.max()


def test_rack_summary_gives_nodes_and_uplink_capacity() -> None:
    table = rack_summary(topology(), CLUSTER)
    assert table.to_dict("records")[1] == {
        "rack": "rack1", "nodes": 2, "node_names": "n2–n3", "gpus": 8, "mix": "8 v100",
        "node_link_gbps": 25.0, "uplink_gbps": 25.0,
    }  # fmt: skip


def test_gantt_colors_segments_by_network_sensitivity(comparison: ComparisonResult) -> None:
    result = comparison.results[0]
    fig = charts.make_gantt(result.segments, result.jobs, {}, color_by="network_sensitivity")
    (bars,) = [t for t in fig.data if t.name == "network sensitivity"]
    expected = result.segments["job_id"].map(result.jobs.set_index("job_id")["network_sensitivity"])
    assert list(bars.marker.color) == pytest.approx(list(expected))
    assert bars.marker.colorbar.title.text.startswith("Network sensitivity")
    assert "network sensitivity: %{customdata[7]:.2f}" in bars.hovertemplate


def test_topology_legend_sits_above_the_drawing_clear_of_the_colorbar() -> None:
    """A legend column at the right overlapped the "GPUs busy" colorbar (network.png)."""
    fig = make_topology(Topology(CLUSTER, NetworkConfig()), segments(), 150.0)
    legend = fig.layout.legend
    assert legend.orientation == "h" and legend.y >= 1 and legend.yanchor == "bottom"
    (nodes,) = [t for t in fig.data if t.marker.colorbar.title.text == "GPUs busy"]
    assert nodes.marker.colorbar.y is None or nodes.marker.colorbar.y < 1

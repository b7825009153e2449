"""Network page: the cluster's topology at a moment, load per rack, and congestion over time."""

import streamlit as st

from dashboard.components.chart import render_chart
from dashboard.components.network_controls import render_jobs_at, render_network_controls
from dashboard.components.results_common import render_run_caption, require_result
from dashboard.gantt import initial_end_s
from dashboard.network_charts import make_topology
from dashboard.network_data import network_summary, rack_capacity, rack_load
from dashboard.network_timelines import make_congestion_timeline, make_rack_load
from engine.step_time.topology import Topology

result = require_result()
st.title("Network")
render_run_caption(result)
config = result.config
topology = Topology(config.cluster, config.network)
st.caption(network_summary(topology))
end_s = float(result.combined("utilization")["time_s"].max())
focus_s = initial_end_s(result.combined("jobs"), end_s)  # 90% of jobs done (as on Utilization)
sim, time_s = render_network_controls(result, end_s, focus_s)
render_chart(make_topology(topology, sim.segments, time_s), key="network_topology")
st.caption(
    "Squares are nodes (the number: GPUs busy; hover for the jobs), diamonds rack switches, "
    "the circle the core. Lines are links, thicker for more capacity; red ones are congested "
    "at this moment."
)
render_jobs_at(sim, time_s)
steps = rack_load(sim.segments, topology.node_rack)
render_chart(
    make_rack_load(steps, rack_capacity(topology.layout), end_s, time_s, focus_s),
    key="network_racks",
)
render_chart(
    make_congestion_timeline(config.network.congestion, topology, focus_s, time_s),
    key="network_congestion",
)

"""Power and energy (:mod:`engine.power`): the site panel, the power KPIs and the chart on
Results, and the GPU mix's facility power at full load beside its rental cost.

The dashboard gives every run its power figures: the engine's layer stays off by default, and
this section computes them from the run's utilization table with the scenario's power spec (or
the defaults), its PUE and grid intensity taken from the panel.
"""

from __future__ import annotations

import dataclasses

import pandas as pd
import streamlit as st

from dashboard.charts_power import make_facility_power, power_unit
from dashboard.components.chart import render_chart
from dashboard.components.results_common import colors_of
from dashboard.session_keys import GRID_KEY, PUE_KEY
from engine.config import ClusterSpec, ScenarioConfig
from engine.errors import ConfigError
from engine.power.energy import POWER_METRICS, full_load_kw, power_kpis, power_series, run_span
from engine.power.model import PowerSpec
from engine.results import ComparisonResult
from engine.study.cost import cluster_cost_usd_per_h, prices_with_defaults

BIG = 1000.0
"""[R] Energy reads in MWh and CO2e in t from 1,000 kWh and 1,000 kg up."""
BIG_UNITS = {"kWh": "MWh", "kg": "t"}


SEEDED_KEY = "power_site_seeded_from"
"""The (PUE, grid intensity) of the scenario the panel last took its values from."""


def site_spec(config: ScenarioConfig) -> PowerSpec:
    """The scenario's power spec (or the defaults) with the panel's PUE and grid intensity; the
    panel starts at the scenario's own values and again whenever they change [R]."""
    base = config.power or PowerSpec()
    own = (base.pue, base.grid_g_co2e_per_kwh)
    if st.session_state.get(SEEDED_KEY) != own:
        st.session_state[PUE_KEY], st.session_state[GRID_KEY] = own
        st.session_state[SEEDED_KEY] = own
    return dataclasses.replace(
        base, pue=float(st.session_state.get(PUE_KEY, base.pue)),
        grid_g_co2e_per_kwh=float(st.session_state.get(GRID_KEY, base.grid_g_co2e_per_kwh)),
    )  # fmt: skip


def render_site_panel(spec: PowerSpec) -> None:
    """PUE and grid intensity inputs, with the sources of their defaults."""
    left, right = st.columns(2)
    left.number_input(
        "PUE (facility power / IT power)", min_value=1.0, max_value=3.0, step=0.01, key=PUE_KEY,
        help="Default 1.56: the average of the Uptime Institute Global Data Center Survey "
        "2024; hyperscale sites report about 1.1.",
    )  # fmt: skip
    right.number_input(
        "Grid carbon intensity (g CO2e per kWh)", min_value=0.0, max_value=2000.0, step=10.0,
        key=GRID_KEY, disabled=bool(spec.grid_hourly_g_co2e_per_kwh),
        help="Default 480: the world's electricity in 2023 (Ember, Global Electricity Review "
        "2024). A scenario's hourly curve (power.grid_hourly_g_co2e_per_kwh) replaces it.",
    )  # fmt: skip


def policy_series(result: ComparisonResult, spec: PowerSpec) -> dict[str, pd.DataFrame]:
    """Policy -> its facility power over time (:func:`engine.power.energy.power_series`).

    Raises:
        ConfigError: a worker type of the mix without a power figure (named with its field).
    """
    cluster = result.config.cluster
    return {sim.policy: power_series(sim.utilization, cluster, spec) for sim in result.results}


def power_table(
    result: ComparisonResult, series: dict[str, pd.DataFrame], spec: PowerSpec
) -> pd.DataFrame:
    """One row per policy, one column per :data:`POWER_METRICS` key (kWh, kW, kg)."""
    rows = {
        sim.policy: power_kpis(series[sim.policy], *run_span(sim.jobs), spec)
        for sim in result.results
    }
    return pd.DataFrame(rows).T.rename_axis("policy")


def shown_power_table(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with readable headers: energy in kWh or MWh and CO2e in kg or t by each
    column's largest value; peak and mean power in the chart's unit, kW or MW, by the peak
    (:func:`dashboard.charts_power.power_unit`)."""
    shown = pd.DataFrame(index=table.index)
    power = power_unit(float(table["power_peak_kw"].abs().max()))
    for key, metric in POWER_METRICS.items():
        unit, scale = metric.unit, 1.0
        if metric.unit == "kW":
            unit, scale = power
        elif metric.unit in BIG_UNITS and float(table[key].abs().max()) >= BIG:
            unit, scale = BIG_UNITS[metric.unit], BIG
        shown[f"{metric.label} ({unit}) ↓"] = table[key] / scale
    return shown


def cluster_power_text(cluster: ClusterSpec, spec: PowerSpec) -> str:
    """One line: the mix's facility power with every GPU busy, its energy a day, and its rental
    price (the types without a price named).

    Raises:
        ConfigError: a worker type without a power figure.
    """
    kw = full_load_kw(cluster, spec)
    prices = prices_with_defaults(None)
    priced = ClusterSpec(tuple(g for g in cluster.node_groups if g.worker_type in prices))
    missing = sorted({g.worker_type for g in cluster.node_groups} - set(prices))
    cost = cluster_cost_usd_per_h(priced, prices) if priced.node_groups else 0.0
    rent = f"rental {cost:,.0f} USD/h" + (
        f" for the priced types ({', '.join(missing)}: no citable price)" if missing else ""
    )
    return (
        f"Every GPU busy: **{kw:,.0f} kW** facility power at PUE {spec.pue:.2f}, "
        f"**{kw * 24 / 1000:,.1f} MWh a day** · {rent}"
    )


def render_cluster_power(config: ScenarioConfig) -> None:
    """:func:`cluster_power_text` of the scenario's mix as a caption (a warning without
    figures)."""
    try:
        st.caption(cluster_power_text(config.cluster, site_spec(config)))
    except ConfigError as exc:
        st.caption(f"Facility power: {exc}")


def render_power_section(result: ComparisonResult) -> None:
    """The "Power and energy" section of the Results page."""
    st.subheader("Power and energy")
    spec = site_spec(result.config)
    render_site_panel(spec)
    try:
        series = policy_series(result, spec)
    except ConfigError as exc:
        st.warning(f'{exc} (in the scenario JSON\'s "power" section).')
        return
    table = shown_power_table(power_table(result, series, spec))
    st.dataframe(table.style.format("{:,.2f}"), key="power_kpis", width="content")
    render_cluster_power(result.config)
    end_s = max(run_span(sim.jobs)[1] for sim in result.results)
    figure = make_facility_power(
        series, colors_of(result), end_s, full_load_kw(result.config.cluster, spec)
    )
    render_chart(figure, key="facility_power")
    factor = "" if spec.busy_power_factor == 1 else f" times {spec.busy_power_factor:g}"
    st.caption(
        f"A GPU held by a job draws its full-load figure (data sheet TDP){factor}, an idle GPU "
        "its idle figure, a node its other power (DGX system data sheets); the facility PUE "
        "times all of it. Energy and CO2e over the makespan; peak power from the exact step "
        "function. Sources: engine/data/power_figures.csv."
    )

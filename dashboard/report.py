"""A one-file HTML report of a comparison that opens offline: scenario, KPI table, every chart,
paper claims and notes. plotly.js is inlined once (about 4.5 MB); nothing is fetched."""

from __future__ import annotations

import html

import plotly.graph_objects as go

from dashboard.chart_style import policy_colors, worker_type_colors
from dashboard.charts import make_ftf_distribution, make_gantt, make_jain_bar, make_jct_cdf
from dashboard.components.kpi_table import by_size_styler, failures_by_size_table, kpi_styler
from dashboard.gantt import initial_end_s
from dashboard.utilization_grid import make_utilization_grid
from engine.results import ComparisonResult

_CSS = (
    "body{font-family:sans-serif;margin:2em;color:#1f2328} table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right} pre{background:#f3f6fa;"
    "padding:1em;overflow:auto;max-height:30em}"
)


def report_figures(result: ComparisonResult) -> list[go.Figure]:
    """Every chart of the result pages, in page order."""
    colors = policy_colors(result.policies)
    jobs = result.combined("jobs")
    utilization = result.combined("utilization")
    end_s = float(utilization["time_s"].max()) if len(utilization) else 0.0
    figures = [
        make_jct_cdf(jobs, colors),
        make_utilization_grid(utilization, colors, end_s, initial_end_s(jobs, end_s)),
        make_ftf_distribution(jobs, colors),
        make_jain_bar(result.kpi_table()["jain_index"].to_dict(), colors),
    ]
    types = worker_type_colors(result.combined("segments")["worker_type"].dropna().unique())
    for sim in result.results:
        figures.append(make_gantt(sim.segments, sim.jobs, types, max_jobs=100, title=sim.policy))
    return figures


def report_html(
    result: ComparisonResult,
    claims_html: str = "",
    notes: tuple[str, ...] = (),
    scenario: str = "",
) -> str:
    """The report as one HTML document (plotly.js inlined in the first chart only), headed by
    the scenario's name and seed; the KPI table in the units the dashboard shows
    (`engine.units.column_format`, via :func:`dashboard.components.kpi_table.kpi_styler`)."""
    config = result.config
    jobs = len(result.results[0].jobs) if result.results else 0
    named = f"Scenario <b>{html.escape(scenario)}</b>: " if scenario else ""
    parts = [
        f"<h1>Scheduling what-if report</h1><p>{named}{jobs:,} "
        f"jobs from {html.escape(config.trace.source)} on {config.cluster.total_gpus} GPUs, "
        f"seed {config.seed}; policies: {html.escape(', '.join(result.policies))}</p>",
        "<h2>KPI table</h2>" + kpi_styler(result.kpi_table()).to_html(),
    ]
    by_size = failures_by_size_table(result)
    if by_size is not None:
        parts.append("<h2>Failures by job size</h2>" + by_size_styler(by_size).to_html())
    if claims_html:
        parts.append("<h2>Paper claims</h2>" + claims_html)
    for note in (*result.trace_notes, *notes):
        parts.append(f"<p><i>Note: {html.escape(note)}</i></p>")
    parts.append("<h2>Charts</h2>")
    for i, figure in enumerate(report_figures(result)):
        parts.append(figure.to_html(full_html=False, include_plotlyjs=i == 0))
    parts.append("<h2>Scenario</h2><pre>" + html.escape(config.to_json()) + "</pre>")
    body = "\n".join(parts)
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>What-if report</title>'
        f"<style>{_CSS}</style></head><body>{body}</body></html>"
    )

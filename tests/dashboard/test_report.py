"""The one-file HTML report: every chart, plotly inlined once, nothing fetched from elsewhere."""

from __future__ import annotations

import re

from dashboard.report import report_figures, report_html
from engine.results import ComparisonResult


def test_the_report_is_self_contained(comparison: ComparisonResult) -> None:
    page = report_html(comparison, "<table><tr><td>claim</td></tr></table>", ("a note",))
    assert len(re.findall(r"Plotly\.newPlot", page)) == len(report_figures(comparison))
    sources = re.findall(r"""<(?:script|link|img)[^>]+(?:src|href)=["']([^"']+)""", page)
    assert sources == [], sources  # no external scripts, styles or images
    assert "Mean JCT (h)" in page and "a note" in page and "claim" in page
    assert comparison.config.to_json()[:20].replace('"', "&quot;") in page


def test_plotly_is_inlined_only_once(comparison: ComparisonResult) -> None:
    page = report_html(comparison)
    assert page.count("* plotly.js v") == 1  # the bundle's banner: one copy, not one per chart


def test_the_report_names_its_scenario_and_uses_the_tables_units(
    comparison: ComparisonResult,
) -> None:
    from engine.units import column_format

    page = report_html(comparison, scenario="more <V100s>")
    assert "Scenario <b>more &lt;V100s&gt;</b>: " in page
    assert f"seed {comparison.config.seed}" in page
    unit = column_format(comparison.kpi_table()["queueing_delay_mean_s"]).unit
    assert f"Mean queueing delay ({unit})" in page  # the one rule the dashboard and CLI use

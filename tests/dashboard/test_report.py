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
    from engine.cli import summary_text
    from engine.units import metric_formats

    page = report_html(comparison, scenario="more <V100s>")
    assert "Scenario <b>more &lt;V100s&gt;</b>: " in page
    assert f"seed {comparison.config.seed}" in page
    kpi = comparison.kpi_table()
    formats = metric_formats({m: kpi[m] for m in kpi.columns})
    jct = {formats[m].unit for m in ("jct_mean_s", "jct_median_s", "jct_p95_s", "jct_p99_s")}
    assert len(jct) == 1  # one unit for the group
    labels = {"jct_mean_s": "Mean JCT", "jct_p99_s": "p99 JCT", "queueing_delay_mean_s":
              "Mean queueing delay"}  # fmt: skip
    for metric, label in labels.items():
        shown = f"{label} ({formats[metric].unit})"
        assert shown in page and shown in summary_text(comparison)  # the one rule

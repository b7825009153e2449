"""The Teams charts (dashboard.charts_teams) and the per-team table's units, on hand-made tables."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dashboard.chart_style import team_colors
from dashboard.charts_teams import make_borrowing, make_quota_usage, make_team_wait_cdf
from dashboard.components.team_results import GROUPS, shown_table

USAGE = pd.DataFrame(
    [(0.0, "a", "v100", 6, 4), (0.0, "b", "v100", 2, 4), (3600.0, "a", "v100", 2, 4),
     (3600.0, "b", "v100", 6, 4), (7200.0, "a", "v100", 0, 4), (7200.0, "b", "v100", 0, 4)],
    columns=["time_s", "cluster_queue", "worker_type", "gpus", "nominal_gpus"],
)  # fmt: skip
COLORS = team_colors(["a", "b"])


def test_usage_is_stacked_per_team_with_the_stacked_nominal_quotas_as_lines() -> None:
    fig = make_quota_usage(USAGE, COLORS, end_s=7200.0)
    areas = [t for t in fig.data if t.stackgroup]
    assert [t.name for t in areas] == ["a", "b"]
    assert np.isclose(max(areas[0].y), 6) and np.isclose(max(areas[1].y), 6)
    dashed = [t for t in fig.data if t.line.dash == "dash"]
    assert [t.y[0] for t in dashed] == [4, 8]  # a's quota, then a's + b's
    assert [t.line.color for t in dashed] == [COLORS["a"], COLORS["b"]]


def test_borrowing_is_use_above_the_nominal_quota() -> None:
    fig = make_borrowing(USAGE, COLORS, end_s=7200.0)
    by_team = {t.name: np.asarray(t.y) for t in fig.data}
    x = np.asarray(fig.data[0].x)  # hours
    assert by_team["a"][x < 1].max() == 2 and by_team["a"][x > 1].max() == 0
    assert by_team["b"][x < 1].max() == 0 and by_team["b"][(x > 1) & (x < 2)].max() == 2


def test_wait_cdf_has_one_line_per_team_and_draws_zero_waits_at_one_second() -> None:
    jobs = pd.DataFrame({"cluster_queue": ["a", "a", "b"], "queueing_delay_s": [0.0, 600, 60]})
    fig = make_team_wait_cdf(jobs, COLORS)
    assert [t.name for t in fig.data] == ["a (2 jobs)", "b (1 jobs)"]
    assert min(fig.data[0].x) == 1.0 and fig.data[0].y[-1] == 1.0


def test_the_per_team_table_names_its_units_in_the_headers() -> None:
    table = pd.DataFrame({
        "cluster_queue": ["a", "b"], "jobs": [3, 4], "jct_mean_s": [7200.0, 9000.0],
        "jct_p95_s": [8000.0, 20000.0], "queueing_mean_s": [30.0, 90.0],
        "queueing_p95_s": [60.0, 100.0], "start_within_share": [1.0, 0.5],
        "quota_wait_mean_s": [10.0, 20.0], "placement_wait_mean_s": [0.0, 0.0],
    })  # fmt: skip
    shown, config = shown_table(table, GROUPS["Waiting and completion"])
    assert list(shown.index) == ["a", "b"]
    assert "Mean JCT (h)" in shown and "Mean wait (s)" in shown
    assert "p95 JCT (h)" in shown
    assert {"p95 wait (s)", "Mean wait for quota (s)", "Mean wait for GPUs (s)"} <= set(shown)
    assert "Started within 1 h (%)" in shown and shown["Started within 1 h (%)"].tolist() == [
        100.0, 50.0]  # fmt: skip
    assert shown["Mean JCT (h)"].tolist() == [2.0, 2.5]

"""The Compare page's tables of means and differences: the durations of one metric group share
a unit (dashboard.study_tables.table_formats), other metrics pick their own."""

from __future__ import annotations

import pandas as pd

from dashboard.study_tables import table_formats


def test_mean_and_p95_jct_and_the_makespan_share_a_unit_costs_keep_theirs() -> None:
    hour = 3600.0
    frame = lambda *hours: pd.DataFrame({"mean": [h * hour for h in hours]})  # noqa: E731
    formats = table_formats({
        "jct_mean_s": frame(1.0, 1.5), "jct_p95_s": frame(80.0, 90.0),  # p95 alone: days
        "makespan_s": frame(200.0, 210.0), "queueing_delay_mean_s": frame(0.02, 0.03),
        "cost_per_job_usd": pd.DataFrame({"mean": [12.0, 15.0]}),
    })  # fmt: skip
    assert {formats[k].unit for k in ("jct_mean_s", "jct_p95_s", "makespan_s")} == {"h"}
    assert formats["queueing_delay_mean_s"].unit == "s"  # its own group: 72-108 s
    assert formats["cost_per_job_usd"].unit == "USD"

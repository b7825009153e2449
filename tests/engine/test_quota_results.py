"""Per-team results under quotas: hand-computed waits, borrowing, lending and the per-team KPIs
that studies pair."""

from __future__ import annotations

import math

import pytest

from engine.quota.results import team_metric_parts, team_table
from engine.study.paired import metric_info
from tests.engine.kueue_cases import J, config, cq, jobs_table, run


def _borrow_case() -> tuple[object, object]:
    # a (nominal 2) runs a 4-GPU job alone for 1000 s, borrowing b's 2 GPUs; b's job arrives
    # at 500 and, without reclaim, waits until 1000: 500 s of quota wait
    queues = config(cq("a", ("v100", 2), cohort="c"), cq("b", ("v100", 2), cohort="c"))
    result = run(queues, jobs_table(J("a1", 0, 4, "a"), J("b1", 500, 2, "b")), {"v100": 4})
    return queues, result


def test_jobs_carry_their_team_and_their_wait_split() -> None:
    _, result = _borrow_case()
    jobs = result.jobs.set_index("job_id")  # type: ignore[attr-defined]
    assert jobs.loc["b1", "cluster_queue"] == "b"
    assert jobs.loc["b1", "queueing_delay_s"] == pytest.approx(500)
    assert jobs.loc["b1", "quota_wait_s"] == pytest.approx(500)
    assert jobs.loc["b1", "placement_wait_s"] == 0
    assert jobs.loc["a1", "flavor"] == "v100"


def test_team_table_counts_borrowed_and_lent_gpu_hours() -> None:
    queues, result = _borrow_case()
    end_s = float(result.jobs["completion_s"].max())  # type: ignore[attr-defined]
    table = team_table(result.jobs, result.quota_usage, queues, end_s).set_index(  # type: ignore[attr-defined]
        "cluster_queue"
    )
    # a held 4 GPUs for 1000 s: 2 of them above its nominal 2, lent by b
    assert table.loc["a", "gpu_h_used"] == pytest.approx(4000 / 3600)
    assert table.loc["a", "gpu_h_borrowed"] == pytest.approx(2000 / 3600)
    assert table.loc["b", "gpu_h_lent"] == pytest.approx(2000 / 3600)
    assert table.loc["b", "gpu_h_used"] == pytest.approx(2000 / 3600)
    assert table.loc["b", "queueing_mean_s"] == pytest.approx(500)
    assert table.loc["a", "goodput"] == pytest.approx(1.0)
    assert table.loc["b", "start_within_share"] == 1.0


def test_the_summary_holds_each_teams_kpis_and_studies_name_them() -> None:
    _, result = _borrow_case()
    summary = result.summary  # type: ignore[attr-defined]
    assert summary["team_queueing_mean_s:b"] == pytest.approx(500)
    assert summary["team_queueing_mean_s:a"] == 0
    assert team_metric_parts("team_queueing_p95_s:b") == ("queueing_p95_s", "b")
    assert team_metric_parts("jct_mean_s") is None
    assert metric_info("team_jct_mean_s:b").label == "b: mean JCT"
    assert not math.isnan(summary["team_jct_p95_s:a"])

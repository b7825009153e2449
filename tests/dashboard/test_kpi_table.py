"""The KPI table: headers from METRICS, one unit per duration column, best values marked."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.components.kpi_table import (
    BEST_STYLE,
    KPI_GROUPS,
    best_mask,
    header,
    kpi_formats,
    kpi_styler,
    over_requested,
)
from engine import units
from engine.metrics import METRICS, summarize
from engine.results import ComparisonResult, SimulationResult
from tests.dashboard.fakes import fake_comparison

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")


def test_best_value_follows_lower_is_better() -> None:
    kpi = pd.DataFrame(
        {"jct_mean_s": [100.0, 50.0], "utilization_mean": [0.4, 0.8], "jain_index": [0.9, 0.9]},
        index=["fifo", "las"],
    )
    mask = best_mask(kpi)
    assert list(mask["jct_mean_s"]) == [False, True]
    assert list(mask["utilization_mean"]) == [False, True]
    assert not mask["jain_index"].any()  # a tie marks nothing


def column_format(metric: str, values: pd.Series) -> tuple[str, object]:
    """The header and cell text of a KPI table holding only ``metric``."""
    fmt = kpi_formats(pd.DataFrame({metric: values}))[metric]
    return header(metric, fmt), fmt.text


def test_duration_columns_share_one_unit() -> None:
    header, fmt = column_format("jct_mean_s", pd.Series([7200.0, 36000.0]))
    assert header == "Mean JCT (h) ↓"
    assert fmt(5400.0) == "1.5"


def test_a_group_reads_in_one_unit_along_each_row() -> None:
    """The issue's case: median JCT in minutes, mean in hours, p99 in days when each column
    picked its own unit. The group's geometric mean (about 15 h) picks hours for all five
    duration columns; the waiting group picks its own unit."""
    hour = 3600.0
    kpi = pd.DataFrame(
        {"jct_mean_s": [5 * hour, 6 * hour], "jct_median_s": [0.5 * hour, 0.4 * hour],
         "jct_p95_s": [20.3 * hour, 22 * hour], "jct_p99_s": [170 * hour, 160 * hour],
         "makespan_s": [1000 * hour, 900 * hour], "jobs_completed": [10, 10],
         "queueing_delay_mean_s": [90.0, 200.0]},
        index=["fifo", "las"],
    )  # fmt: skip
    headers = list(kpi_styler(kpi).data.columns)
    assert headers[:5] == ["Mean JCT (h) ↓", "Median JCT (h) ↓", "p95 JCT (h) ↓",
                           "p99 JCT (h) ↓", "Makespan (h) ↓"]  # fmt: skip
    assert "Mean queueing delay (min) ↓" in headers  # geometric mean 134 s: minutes
    formats = kpi_formats(kpi)
    assert formats["jct_median_s"].text(0.5 * hour) == "0.50"
    assert formats["jct_p99_s"].text(170 * hour) == "170"  # 3 digits, no decimals needed
    alone = kpi_formats(kpi[["jct_p99_s"]])["jct_p99_s"]
    assert alone.unit == "d"  # the column alone picks days: the group is what keeps hours


def test_ties_at_the_shown_precision_are_all_shaded_or_none() -> None:
    """7.10 h and 7.14 h beside 10 h both print "7.1": both shaded. 7.101, 7.104 and 7.099 h
    all print "7.10" (2 decimals below 10 h): none shaded. 7.10 / 7.14 / 7.12 h print apart:
    only the lowest."""
    hours = {
        "jct_mean_s": [7.10, 7.14, 10.0],
        "jct_p95_s": [7.101, 7.104, 7.099],
        "jct_p99_s": [7.10, 7.14, 7.12],
    }
    kpi = pd.DataFrame({k: [h * 3600 for h in v] for k, v in hours.items()},
                       index=["fifo", "las", "srtf"])  # fmt: skip
    mask = best_mask(kpi)
    assert list(mask["jct_mean_s"]) == [True, True, False]
    assert not mask["jct_p95_s"].any()
    assert list(mask["jct_p99_s"]) == [True, False, False]


def test_styler_has_one_row_per_policy_and_shades_the_best(comparison) -> None:
    styler = kpi_styler(comparison.kpi_table())
    assert list(styler.data.index) == ["fifo", "las"]
    assert "Mean JCT" in styler.data.columns[0]
    assert BEST_STYLE.split(";")[0] in styler.to_html()


def test_consolidation_wait_shows_only_when_some_policy_delays() -> None:
    kpi = pd.DataFrame(
        {"jct_mean_s": [100.0, 50.0], "consolidation_wait_mean_s": [0.0, 0.0]},
        index=["fifo", "las"],
    )
    assert not any("consolidation" in c for c in kpi_styler(kpi).data.columns)
    kpi["consolidation_wait_mean_s"] = [0.0, 600.0]
    assert any("consolidation wait" in c for c in kpi_styler(kpi).data.columns)


def _with_held(result: SimulationResult, attained: list[float]) -> SimulationResult:
    jobs = result.jobs.head(len(attained)).copy()
    jobs["attained_service_gpu_s"] = attained
    jobs["gpus_held_per_requested"] = jobs["attained_service_gpu_s"] / (
        jobs["scale_factor"] * jobs["run_time_s"]
    )
    return dataclasses.replace(result, jobs=jobs)


def elastic_comparison() -> ComparisonResult:
    """fifo's jobs hold what they asked for; doubling's first job (1 GPU requested, 100 s)
    holds 3 GPUs and its second (2 GPUs) holds 2: 500 GPU-s held over 300 requested."""
    base = fake_comparison(("fifo", "doubling"))
    fifo, doubling = base.results
    fifo_jobs = fifo.jobs.head(2)
    exact = (fifo_jobs["scale_factor"] * fifo_jobs["run_time_s"]).tolist()
    fifo = _with_held(fifo, exact)
    doubling = dataclasses.replace(
        doubling, jobs=doubling.jobs.head(2).assign(run_time_s=100.0, scale_factor=[1, 2])
    )
    return dataclasses.replace(base, results=(fifo, _with_held(doubling, [300.0, 200.0])))


def test_over_requested_lists_the_policies_holding_more_gpus_than_asked() -> None:
    assert over_requested(elastic_comparison()) == {"doubling": pytest.approx(500 / 300)}
    assert over_requested(fake_comparison(("fifo",))) == {}  # no column, no note


def test_the_groups_hold_every_metric_once() -> None:
    grouped = [m for group in KPI_GROUPS.values() for m in group]
    assert sorted(grouped) == sorted(METRICS)


def test_results_page_shows_every_kpi_column_once_across_its_group_tables() -> None:
    at = AppTest.from_file(APP, default_timeout=120).run()
    result = fake_comparison(("fifo", "las"))
    at.session_state["result"] = result
    at.switch_page("app_pages/results.py").run()
    assert not at.exception
    titles = [m.value for m in at.markdown if m.value.startswith("**")]
    kpi = result.kpi_table()  # (no failures: the failure group has no metric, so no table)
    groups = [title for title, group in KPI_GROUPS.items() if any(m in kpi for m in group)]
    assert titles == [f"**{title}**" for title in groups]
    assert "Failures" not in groups
    tables = [d.value for d in at.dataframe[: len(groups)]]
    assert all(list(t.index) == ["fifo", "las"] for t in tables)
    shown = [c for t in tables for c in t.columns]
    assert len(shown) == len(set(shown))
    assert sorted(shown) == sorted(kpi_styler(result.kpi_table()).data.columns)


def test_results_page_notes_a_policy_that_hands_out_more_gpus() -> None:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.session_state["result"] = elastic_comparison()
    at.switch_page("app_pages/results.py").run()
    assert not at.exception
    notes = [info.value for info in at.info if "More GPUs than requested" in info.value]
    assert len(notes) == 1 and "doubling 1.7×" in notes[0] and "fifo" not in notes[0]


def test_duration_columns_take_the_unit_of_their_magnitude() -> None:
    """A class trace's JCTs read in minutes, the full Philly trace's in days (issue 23)."""
    assert column_format("jct_mean_s", pd.Series([130.0, 500.0]))[0].startswith("Mean JCT (min)")
    assert column_format("jct_mean_s", pd.Series([3e6, 5e6]))[0].startswith("Mean JCT (d)")
    assert column_format("makespan_s", pd.Series([60.0]))[0].startswith("Makespan (s)")
    header, fmt = column_format("queueing_delay_mean_s", pd.Series([2_303_866.0]))
    assert header.startswith("Mean queueing delay (d)") and fmt(2_303_866.0) == "26.7"


def test_kpi_csv_headers_say_the_unit(comparison) -> None:
    from dashboard.components.kpi_table import kpi_csv

    kpi = comparison.kpi_table()
    frame = pd.read_csv(io.StringIO(kpi_csv(kpi)), index_col=0)
    for metric in ("jct_mean_s", "makespan_s", "queueing_delay_mean_s"):
        unit = kpi_formats(kpi)[metric].unit  # the table's: "h" for "Mean JCT (h) ↓"
        name = f"{metric.removesuffix('_s')}_{unit}"
        assert name in frame.columns
        expected = kpi[metric].iloc[0] / {"s": 1, "min": 60, "h": 3600, "d": 86400}[unit]
        assert frame[name].iloc[0] == pytest.approx(expected, abs=1e-6)


def test_results_page_names_both_utilizations_and_the_job_that_set_the_makespan() -> None:
    """FIFO's last job (j29) is moved to finish 10 days after every other job: the page says
    it set the makespan; LAS's run has no such tail."""
    result = fake_comparison(("fifo", "las"))
    fifo = result.results[0]
    jobs = fifo.jobs.copy()
    others_done = jobs["completion_s"].iloc[:-1].max()
    jobs.loc[jobs.index[-1], "completion_s"] = others_done + 10 * 86400
    tail = dataclasses.replace(fifo, jobs=jobs, summary=summarize(jobs, fifo.utilization))
    result = dataclasses.replace(result, results=(tail, result.results[1]))
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.session_state["result"] = result
    at.switch_page("app_pages/results.py").run()
    assert not at.exception
    notes = [i.value for i in at.info if "Makespan set by one job" in i.value]
    headers = [c for d in at.dataframe for c in d.value.columns]
    (makespan,) = [h for h in headers if h.startswith("Makespan (")]  # "Makespan (h) ↓"
    unit = makespan.split("(")[1].split(")")[0]
    alone = f"{10 * 86400 / units.SECONDS_PER_UNIT[unit]:,.0f}"  # 10 days, in the table's unit
    assert len(notes) == 1 and f"fifo: job j29 (2 GPUs) ran alone for the last {alone}" in notes[0]
    assert f" {unit} of the " in notes[0] and "las:" not in notes[0]
    for label in ("while jobs arrive", "over the makespan", "while jobs wait or run"):
        assert f"GPU utilization {label} (%) ↑" in headers

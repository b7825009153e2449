"""The result tables and the best-fit step built without pandas round trips equal their pandas
(and sort-based) definitions bit for bit, dtypes included."""

from __future__ import annotations

import dataclasses
from bisect import bisect_left

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config import NetworkConfig, PolicySpec, ScenarioConfig
from engine.metrics import summarize
from engine.placement.consolidated import consolidated
from engine.recorder import Recorder
from engine.results import SEGMENT_COLUMNS
from engine.scenario import load_scenario_trace
from engine.simulator import simulate
from engine.step_time.throughput import load_matrix

CAPACITY = {"k80": 8, "p100": 4, "v100": 16}


def sorted_best_fit(free: list[int], num_gpus: int) -> int | None:
    """Step 1 as first written: sort, bisect for the fewest that suffice, its first node."""
    ordered = sorted(free)
    at = bisect_left(ordered, num_gpus)
    return free.index(ordered[at]) if at < len(ordered) else None


@given(st.lists(st.integers(0, 8), min_size=1, max_size=40), st.integers(1, 8))
def test_best_fit_is_the_sorted_definition(free: list[int], num_gpus: int) -> None:
    expected = sorted_best_fit(free, num_gpus)
    taken = consolidated(list(free), [0] * len(free), num_gpus)
    if expected is None:
        assert sum(count for _, count in taken) == min(num_gpus, sum(free))
    else:
        assert taken == [(expected, num_gpus)]


def pandas_utilization(rows: list[tuple[float, str, int]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["time_s", "worker_type", "busy_gpus"])
    frame = frame.drop_duplicates(["time_s", "worker_type"], keep="last")
    frame["capacity_gpus"] = frame["worker_type"].map(CAPACITY).astype(int)
    frame["utilization"] = frame["busy_gpus"] / frame["capacity_gpus"]
    ordered = frame.sort_values(["worker_type", "time_s"], kind="stable")
    return ordered.reset_index(drop=True)[list(frame.columns)]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([0.0, 0.5, 3.0]), st.sampled_from(list(CAPACITY)), st.integers(0, 4)
        ),
        max_size=30,
    ),  # fmt: skip
    st.booleans(),
)
def test_utilization_table_is_the_pandas_definition(
    steps: list[tuple[float, str, int]], shuffled: bool
) -> None:
    rows, now_s = [], 0.0
    for dt, worker_type, busy in steps:  # the engine's clock never goes back
        now_s += dt
        rows.append((now_s, worker_type, busy))
    if shuffled:
        rows.reverse()
    recorder = Recorder(CAPACITY)
    recorder.util_rows.extend(rows)
    table = recorder.utilization_table()
    expected = pandas_utilization(rows)
    assert list(table.dtypes) == list(expected.dtypes)
    pd.testing.assert_frame_equal(table, expected, check_exact=True)


def run(policy: str, **changes: object) -> tuple[ScenarioConfig, pd.DataFrame, object]:
    matrix = load_matrix()
    config = dataclasses.replace(ScenarioConfig(), policies=(PolicySpec(policy),), **changes)
    jobs = load_scenario_trace(config).jobs.head(300)
    return config, jobs, simulate(jobs, config, config.policies[0], matrix)


def test_segments_table_is_the_frame_of_its_rows() -> None:
    """Rows as tuples from the table itself (every lane, reason and job) give the same frame,
    and the rows agree with the jobs table: GPU-seconds held, preemptions, the job's ids."""
    shared = NetworkConfig(share_links=True, uplink_oversubscription=4.0)
    cases = (("las", {}), ("hadare", {}), ("consolidation_none", {"network": shared}))
    for policy, changes in cases:
        _, _, result = run(policy, **changes)
        table = result.segments  # type: ignore[attr-defined]
        rows = list(table.itertuples(index=False, name=None))
        expected = pd.DataFrame(rows, columns=list(SEGMENT_COLUMNS))
        assert list(table.dtypes) == list(expected.dtypes)
        pd.testing.assert_frame_equal(table, expected, check_exact=True)
        jobs = result.jobs.set_index("job_id")  # type: ignore[attr-defined]
        held = (table["end_s"] - table["start_s"]) * table["num_gpus"]
        per_job = held.groupby(table["job_id"]).sum().reindex(jobs.index, fill_value=0.0)
        assert per_job.to_numpy() == pytest.approx(jobs["attained_service_gpu_s"].to_numpy())
        left = table[table["end_reason"] != "completed"].drop_duplicates(["job_id", "start_s"])
        preempted = left.groupby("job_id").size().reindex(jobs.index, fill_value=0)
        assert (preempted.to_numpy() == jobs["num_preemptions"].to_numpy()).all()
        done = table[table["end_reason"] == "completed"].groupby("job_id")["end_s"].max()
        assert (done.reindex(jobs.index).to_numpy() == jobs["completion_s"].to_numpy()).all()


def test_summary_is_the_pandas_definition() -> None:
    """summarize() on numpy columns gives the same floats (and types) as pandas' reductions."""
    _, _, result = run("las")
    jobs, utilization = result.jobs, result.utilization  # type: ignore[attr-defined]
    jobs = jobs.copy()
    jobs.loc[jobs.index[:5], "completion_s"] = np.nan  # unfinished rows are left out
    done = jobs.dropna(subset=["completion_s"])
    end_s = float(done["completion_s"].max())
    busy = 0.0
    for _, rows in utilization.groupby("worker_type", sort=True):
        times = np.minimum(rows["time_s"].to_numpy(dtype=float), end_s)
        widths = np.diff(np.append(times, end_s))
        busy += float(np.sum(widths * rows["busy_gpus"].to_numpy(dtype=float)))
    capacity = float(utilization.groupby("worker_type")["capacity_gpus"].first().sum())
    summary = summarize(jobs, utilization)
    assert summary["queueing_delay_mean_s"] == float(done["queueing_delay_s"].mean())
    assert summary["ftf_rho_mean"] == float(done["ftf_rho"].mean())
    assert summary["ftf_rho_max"] == float(done["ftf_rho"].max())
    assert summary["comm_overhead_mean"] == float(done["comm_overhead"].mean())
    assert summary["gpu_hours_used"] == float(jobs["attained_service_gpu_s"].sum()) / 3600
    assert summary["jobs_completed"] == len(done) == len(jobs) - 5
    span_s = end_s - float(jobs["arrival_s"].min())
    assert summary["utilization_mean"] == busy / (capacity * span_s)
    assert type(summary["utilization_active"]) is np.float64

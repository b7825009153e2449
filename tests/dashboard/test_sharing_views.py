"""Shared GPUs in the dashboard (issue 35): the sharing lesson's run against times computed by
hand, the GPU view and the Gantt drawing both jobs of a shared GPU with each one's slowdown,
and the lesson on the Step-through page through AppTest."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.cluster_view import cluster_html, job_colors
from dashboard.gantt import make_gantt
from dashboard.lessons import lesson
from dashboard.replay import Replay
from engine.allocation.layout import NodeLayout
from engine.results import ComparisonResult
from engine.scenario import run_scenario

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
SHARED, ALONE = "Muri-S, 2 jobs per GPU", "Muri-S, GPUs to itself"


@cache
def lesson_run() -> ComparisonResult:
    chosen = lesson("share_gpus")
    return run_scenario(chosen.config(), upload=chosen.upload)


def sim(policy: str):
    return next(each for each in lesson_run().results if each.policy == policy)


def replay(policy: str) -> Replay:
    return Replay(sim(policy), NodeLayout.of(lesson_run().config.cluster))


def test_the_lesson_shares_well_and_badly_as_computed_by_hand() -> None:
    # 20 min alone each (200 iterations of 6 s). data + comm interleave into a 6 s cycle:
    # 1,200 s, no slowdown; the compute-bound pair a 9 s cycle: 1,800 s, slowdown 1.5.
    # 1 GPU x 1,200 s + 2 GPUs x 1,800 s shared = 4,800 GPU-s = 4/3 GPU-h saved.
    jobs = sim(SHARED).jobs.set_index("job_id")
    assert jobs["completion_s"].to_dict() == pytest.approx(
        {"data": 1200.0, "comm": 1200.0, "cnn1": 1800.0, "cnn2": 1800.0}
    )
    assert jobs["slowdown_from_sharing"].to_dict() == pytest.approx(
        {"data": 1.0, "comm": 1.0, "cnn1": 1.5, "cnn2": 1.5}
    )
    assert sim(SHARED).summary["gpu_hours_saved_sharing"] == pytest.approx(4 / 3)
    alone = sim(ALONE)  # k = 1: the conv jobs one after the other, nothing shared
    assert alone.jobs.set_index("job_id")["completion_s"]["cnn2"] == pytest.approx(3600.0)
    assert "slowdown_from_sharing" not in alone.jobs and "host_job" not in alone.segments


def test_a_shared_gpu_holds_both_jobs_and_a_free_slot_stays_free() -> None:
    assert replay(SHARED).owners(60.0) == [[("comm", "data"), ("cnn1", "cnn2"), ("cnn1", "cnn2")]]
    assert replay(SHARED).owners(1500.0) == [[None, ("cnn1", "cnn2"), ("cnn1", "cnn2")]]
    assert replay(ALONE).owners(60.0) == [["comm", "data", None]]


def test_the_gpu_view_names_each_sharing_job_and_its_slowdown() -> None:
    shown = replay(SHARED)
    colors = job_colors(["cnn1", "cnn2", "data", "comm"])
    html = cluster_html(shown.layout, shown.owners(60.0), colors, SHARED, 60.0, shown.slowdowns)
    assert html.count('class="gpu shared"') == 3
    assert 'data-jobs="comm data"' in html
    assert "cnn1 (slowdown ×1.50), cnn2 (slowdown ×1.50)" in html
    assert '<span class="part p2" data-job="data">data</span>' in html


def test_the_gantt_hatches_shared_segments_and_names_the_partner() -> None:
    shared = sim(SHARED)
    fig = make_gantt(shared.segments, shared.jobs, {"v100": "#1f77b4"})
    bars = next(t for t in fig.data if t.type == "bar" and t.name == "v100")
    by_job = dict(zip(bars.y, bars.customdata[:, 8], strict=True))
    assert by_job["cnn1"] == "<br>shares its GPUs with cnn2 · slowdown ×1.50"
    assert by_job["comm"] == "<br>shares its GPUs with data · slowdown ×1.00"
    assert list(bars.marker.pattern.shape) == ["/"] * 4
    alone = sim(ALONE)
    fig = make_gantt(alone.segments, alone.jobs, {"v100": "#1f77b4"})
    bars = next(t for t in fig.data if t.type == "bar" and t.name == "v100")
    assert set(bars.customdata[:, 8]) == {""} and bars.marker.pattern.shape is None


def test_the_sharing_lesson_on_the_page() -> None:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("app_pages/step_through.py").run()
    next(b for b in at.button if b.key == "lesson_share_gpus").click().run()
    assert not at.exception and not at.error
    assert at.session_state["result"].policies == [SHARED, ALONE]
    next(b for b in at.button if b.key == "moment_0").click().run()  # 60 s: two pairs share
    drawn = next(h.proto.body for h in at.get("html") if "data-policy" in h.proto.body)
    shared_panel = drawn[
        drawn.index(f'data-policy="{SHARED}"') : drawn.index(f'data-policy="{ALONE}"')
    ]
    assert shared_panel.count('class="gpu shared"') == 3
    assert "2 jobs share this GPU: comm (slowdown ×1.00), data (slowdown ×1.00)" in drawn
    assert 'class="gpu shared"' not in drawn[drawn.index(f'data-policy="{ALONE}"') :]


def test_the_kpi_table_says_a_run_without_sharing_saved_nothing() -> None:
    kpi = lesson_run().kpi_table()
    assert kpi.loc[SHARED, "gpu_hours_saved_sharing"] == pytest.approx(4 / 3)
    assert kpi.loc[ALONE, "gpu_hours_saved_sharing"] == 0.0
    assert kpi.loc[SHARED, "jobs_shared"] == 4.0 and kpi.loc[ALONE, "jobs_shared"] == 0.0
    assert kpi["slowdown_from_sharing_mean"].tolist()[0] == pytest.approx(1.25)


def test_the_utilization_chart_draws_the_gpus_the_jobs_run_on() -> None:
    from dashboard.charts import make_utilization

    shared = sim(SHARED)
    fig = make_utilization(shared.utilization, {"v100": "#1f77b4"}, segments=shared.segments)
    line = next(t for t in fig.data if t.name.startswith("GPUs the jobs run on"))
    busy = next(t for t in fig.data if t.name == "v100")
    at = {float(x): (float(y), float(b)) for x, y, b in zip(line.x, line.y, busy.y, strict=True)}
    # to 20 min: 1 + 1 + 2 + 2 GPUs of jobs on 3 busy GPUs; to 30 min: 2 + 2 on 2
    assert [at[x] for x in sorted(at) if 0 < x < 20][0] == (6.0, 3.0)
    assert [at[x] for x in sorted(at) if 20 < x < 30][0] == (4.0, 2.0)
    alone = sim(ALONE)
    fig = make_utilization(alone.utilization, {"v100": "#1f77b4"}, segments=alone.segments)
    assert [t.name for t in fig.data] == ["v100"]

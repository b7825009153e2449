"""The Step-through page and what it draws: GPU owners and queues against the segments table,
decisions in words against hand-computed figures, the lessons, and the page through AppTest."""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.cluster_view import cluster_html, job_colors, queue_html
from dashboard.decision_words import Explainer, clock
from dashboard.lessons import LESSONS, lesson
from dashboard.replay import Replay, next_event, previous_event
from engine.allocation.layout import NodeLayout
from engine.config import (
    ClusterSpec,
    NodeGroup,
    PolicySpec,
    ScenarioConfig,
    SyntheticSpec,
    TraceSpec,
)
from engine.results import ComparisonResult
from engine.scenario import run_scenario, scenario_matrix
from tests.dashboard.fakes import fake_comparison

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")


@cache
def lesson_run(key: str) -> ComparisonResult:
    chosen = lesson(key)
    return run_scenario(chosen.config(), upload=chosen.upload)


def explainers(key: str) -> dict[str, Explainer]:
    result = lesson_run(key)
    layout, matrix = NodeLayout.of(result.config.cluster), scenario_matrix(result.config)
    round_s = result.config.rounds.round_duration_s
    return {
        sim.policy: Explainer(Replay(sim, layout, round_s), spec, matrix)
        for sim, spec in zip(result.results, result.config.policies, strict=True)
    }


def segment_owners(segments, time_s: float) -> dict[int, Counter]:
    """Node index -> GPUs per job at ``time_s``, read from the segments table."""
    running = segments[(segments["start_s"] <= time_s) & (time_s < segments["end_s"])]
    owners: dict[int, Counter] = {}
    for row in running.itertuples():
        for node, gpus in zip(row.nodes.split(","), row.node_gpus.split(","), strict=True):
            owners.setdefault(int(node[1:]), Counter())[row.job_id] += int(gpus)
    return owners


def as_ids(held: str | tuple[str, ...]) -> tuple[str, ...]:
    """The jobs on a GPU: one id, or the ids of the jobs sharing it."""
    return held if isinstance(held, tuple) else (held,)


@pytest.mark.parametrize("key", [each.key for each in LESSONS])
def test_gpu_owners_match_the_segments_at_every_event(key: str) -> None:
    """At every moment "Next" can step to (and just before it), each node holds exactly the
    GPUs per job the segments table says (a GPU jobs share counts for each of them)."""
    for explainer in explainers(key).values():
        replay = explainer.replay
        for moment in replay.events["time_s"].unique():
            for time_s in (float(moment), float(moment) - 0.5):
                grid = replay.owners(time_s)
                drawn = {
                    n: Counter(j for held in row if held for j in as_ids(held))
                    for n, row in enumerate(grid)
                }
                drawn = {n: c for n, c in drawn.items() if c}
                assert drawn == segment_owners(replay.sim.segments, time_s), (key, time_s)


def test_a_running_job_keeps_its_gpu_slots() -> None:
    """A job's GPUs do not jump while it runs: between two events its slots stay put."""
    replay = explainers("las_starve")["FIFO"].replay  # long runs 0-2 h while q1.. queue
    first = replay.owners(10.0)
    assert first == [["long"] * 4]
    assert all(replay.owners(t) == first for t in (900.0, 3600.0, 7000.0))


def test_the_fifo_queue_blocks_behind_its_head() -> None:
    """Hand-computed: mid (4 GPUs, 30 min on V100s) arrives at 30 s and ends at 30 min 30 s,
    freeing n1; big (8 GPUs) heads the queue, so the four 1-GPU jobs wait, "lower priority"."""
    fifo = explainers("fifo_hol")["FIFO"]
    mid_end = float(fifo.replay.sim.jobs.set_index("job_id").loc["mid", "completion_s"])
    assert mid_end == pytest.approx(30 + 30 * 60, abs=0.05)
    queue = fifo.replay.queue(1900.0)
    assert [q.job_id for q in queue] == ["big", "s1", "s2", "s3", "s4"]
    assert [q.reason for q in queue] == ["no room"] + ["lower priority"] * 4
    assert fifo.replay.owners(1900.0) == [["long"] * 4, [None] * 4]
    at, lines = fifo.moment(1900.0)
    assert at == pytest.approx(mid_end)
    assert "head-of-line blocking" in lines[-1] and "job big, 8 GPUs" in lines[-1]
    backfill = explainers("fifo_hol")["FIFO + backfill"]
    assert [q.job_id for q in backfill.replay.queue(1900.0)] == ["big"]


def test_las_preemption_says_attained_service_and_queue() -> None:
    """long ran on 4 GPUs for 900 s: 3,600 GPU-s = 1.0 GPU-h, at the 3,600 GPU-s threshold, so
    queue 2; q1 has none, queue 1 (the issue's example sentence)."""
    at, lines = explainers("las_starve")["Tiresias LAS"].moment(900.0)
    assert at == 900.0
    assert lines[0].startswith(
        "Tiresias LAS preempted job long: 1.0 GPU-h attained, queue 2; for job q1: 0.00 GPU-h "
        "attained, queue 1."
    )


def test_las_promotion_is_said() -> None:
    """long was preempted at 1,800 s after a 180 s run (1,620-1,800 s): with promote_knob 2 it
    is due at 2,160 s and promoted at the next 300 s round, 2,400 s; with no promotion it is
    not."""
    las = explainers("las_starve")
    _, lines = las["Tiresias LAS"].moment(2400.0)
    assert "for job long: 0.00 GPU-h attained, queue 1 (promoted to queue 1 at 0:40:00" in lines[0]
    queue = next(t for t in las["LAS, no promotion"].key_terms("long", 2400.0) if "queue" in t.text)
    assert queue.value == 2


def test_srtf_preemption_says_remaining_work() -> None:
    """long (2 h of work on 4 V100s) ran 150 s when s1 (15 min) arrived: 7,050 s = 118 min."""
    _, lines = explainers("fifo_hol")["SRTF"].moment(150.0)
    assert lines[0].startswith(
        "SRTF preempted job long: 118 min of work left on its fastest GPU; for job s1: 15 min"
    )


def test_migration_says_the_speed_ratio() -> None:
    """Gavel max-min (aware) moves res3 from a K80 to a V100 at 600 s: ResNet-50 (batch 64) on
    one GPU runs 4.39 steps/s on a V100 and 0.62 on a K80 (Gavel's matrix): 7.1x."""
    _, lines = explainers("v100")["Gavel max-min"].moment(600.0)
    moved = next(line for line in lines if "moved job res3" in line)
    assert "1 × k80" in moved and "to 1 × v100" in moved and moved.endswith("7.1× the speed.")


def test_consolidation_wait_and_network_preemption_are_said() -> None:
    words = explainers("one_rack")
    _, lines = words["Strict consolidation"].moment(1300.0)
    assert any(line.startswith("Job tf8 waits: held for consolidation") for line in lines)
    _, lines = words["Dally"].moment(300.0)
    assert lines[0].startswith("Dally preempted job b:") and "network sensitivity" in lines[0]
    _, lines = words["No consolidation"].moment(1300.0)
    assert any("(across racks)" in line for line in lines)


def test_hadare_copies_are_said() -> None:
    config = ScenarioConfig(
        trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(6, 30.0)),
        cluster=ClusterSpec((NodeGroup("v100", 2, 4, "rack0"), NodeGroup("k80", 2, 4, "rack1"))),
        policies=(PolicySpec("hadare"),),
    )
    sim = run_scenario(config).results[0]
    copies = sim.segments[sim.segments["combine"] == "copies"]
    stretch = copies.groupby(["job_id", "start_s"]).filter(lambda rows: len(rows) > 1).iloc[0]
    replay = Replay(sim, NodeLayout.of(config.cluster), 360.0)
    explainer = Explainer(replay, config.policies[0], scenario_matrix(config))
    sentence = explainer.start(stretch["job_id"], float(stretch["start_s"]))
    assert "copies, one per node" in sentence and "shared step counter" in sentence


def test_events_step_forward_and_back() -> None:
    replays = [e.replay for e in explainers("fifo_hol").values()]
    assert next_event(replays, 0.0) == 30.0  # mid arrives
    assert next_event(replays, 30.0) == 60.0  # big arrives
    assert previous_event(replays, 60.0) == 30.0
    assert next_event(replays, 30.0, {"preemption"}) == 150.0  # SRTF preempts long for s1
    end = max(r.end_s for r in replays)
    assert next_event(replays, end) == end


def test_next_skips_round_boundaries_where_no_job_starts_or_stops() -> None:
    """fifo_hol's rounds are 300 s; LAS re-decides at each, FIFO's queue is blocked from 60 s
    (big) to 1,830 s: a round boundary is a stop only when some segment starts or ends then."""
    for name, explainer in explainers("fifo_hol").items():
        replay = explainer.replay
        seg = replay.sim.segments
        changes = set(seg["start_s"].astype(float)) | set(seg["end_s"].astype(float))
        rounds = replay.events.loc[replay.events["kind"] == "round boundary", "time_s"]
        assert set(rounds) <= changes, name
        if replay.round_s:  # LAS: its preemption at 3,000 s is a round boundary and stays
            assert 3000.0 in set(rounds) or name != "Tiresias LAS"
            assert len(rounds) < replay.end_s // replay.round_s, name  # some were skipped
    replays = [e.replay for e in explainers("fifo_hol").values()]
    times = sorted({t for r in replays for t in r.events["time_s"]})
    for before, after in zip(times, times[1:], strict=False):  # each stop changes the view
        assert any(r.owners(before) != r.owners(after) or
                   [q.job_id for q in r.queue(before)] != [q.job_id for q in r.queue(after)]
                   for r in replays), (before, after)  # fmt: skip


def test_drawings_carry_owners_and_queue_in_order() -> None:
    fifo = explainers("fifo_hol")["FIFO"]
    colors = job_colors(["long", "mid", "big", "s1", "s2", "s3", "s4"])
    html = cluster_html(fifo.replay.layout, fifo.replay.owners(1900.0), colors, "FIFO", 1900.0)
    assert html.count('data-job="long"') == 4 and html.count('<i class="gpu"></i>') == 4
    assert html.count('class="gpu p0"') == 4  # long, the first to arrive: the first colour
    assert 'data-time-s="1900.0"' in html
    table = queue_html(fifo.replay.queue(1900.0), colors, "FIFO", 1900.0)
    assert table.index('data-queue-job="big"') < table.index('data-queue-job="s1"')
    assert table.count("lower priority") == 4


def test_clock() -> None:
    assert clock(3725.0) == "1:02:05"
    assert clock(90000.0) == "1 d 1:00:00"


def test_lessons_are_small_and_name_their_moments() -> None:
    assert 3 <= len(LESSONS) <= 5
    for each in LESSONS:
        names = [spec.name for spec in each.policies]  # a second instance last (Scenario page)
        assert names == list(dict.fromkeys(names)) + names[len(set(names)) :]
        assert 1 <= len(each.policies) <= 4 and each.cluster.total_gpus <= 16
        assert list(each.moments_s) == sorted(each.moments_s)
        assert all(note for _, note in each.moments)


# --- the page, through AppTest ------------------------------------------------------------


def open_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("app_pages/step_through.py").run()
    return at


def button(at: AppTest, key: str):
    return next(b for b in at.button if b.key == key)


def test_page_without_a_run_offers_the_lessons() -> None:
    at = open_page()
    assert not at.exception
    assert "Pick a lesson" in at.info[0].value
    assert {f"lesson_{each.key}" for each in LESSONS} <= {b.key for b in at.button}


def test_a_lesson_loads_runs_and_steps_with_one_click() -> None:
    at = open_page()
    button(at, "lesson_fifo_hol").click().run()
    assert not at.exception and not at.error
    result = at.session_state["result"]
    assert result.policies == ["FIFO", "SRTF", "Tiresias LAS", "FIFO + backfill"]
    assert result.config.to_json() == lesson("fifo_hol").config().to_json()
    assert "Head-of-line blocking" in at.main.info[0].value  # beside the view, not the sidebar
    drawn = next(h.proto.body for h in at.get("html") if "data-policy" in h.proto.body)
    assert drawn.count('class="cv" data-policy=') == 4
    button(at, "step_next").click().run()
    assert at.session_state["replay_t"] == 30.0
    button(at, "moment_1").click().run()  # "0:31:40 · 4 GPUs idle"
    assert at.session_state["replay_t"] == 1900.0
    queue = next(h.proto.body for h in at.get("html") if 'data-queue="FIFO"' in h.proto.body)
    fifo = queue[queue.index('data-words="FIFO"') :]
    assert "head-of-line blocking" in fifo[: fifo.index("</div>")]  # in FIFO's own panel
    assert all(f'data-words="{p}"' in queue for p in result.policies)
    table = queue[queue.index('data-queue="FIFO"') :]
    assert table[: table.index("</table>")].count("lower priority") == 4
    at.multiselect(key="replay_kinds").set_value(["preemption"]).run()
    button(at, "step_next").click().run()
    # SRTF's last preemption is at 1,830 s (big takes both nodes); LAS's next after 1,900 s
    # is at the round boundary of 3,000 s (long and mid), FIFO never preempts
    assert at.session_state["replay_t"] == 3000.0
    button(at, "step_play").click().run()
    assert at.session_state["replay_playing"] is True
    button(at, "step_play").click().run()
    assert at.session_state["replay_playing"] is False
    at.switch_page("app_pages/schedule.py").run()
    assert not at.exception
    assert not at.warning  # the widgets describe the run: no "scenario changed" note


def test_page_shows_at_most_four_policies_of_any_run() -> None:
    at = open_page()
    result = fake_comparison(("fifo", "las", "srtf", "gavel_maxmin", "hadare"), n_jobs=30)
    at.session_state["result"] = result
    at.run()
    assert not at.exception
    assert at.multiselect(key="step_policies").value == result.policies[:4]
    drawn = next(h.proto.body for h in at.get("html") if "data-policy" in h.proto.body)
    assert drawn.count('class="cv" data-policy=') == 4
    button(at, "step_end").click().run()
    assert not at.exception
    assert at.session_state["replay_t"] > 0


def test_schedule_stacks_every_policy_on_the_whole_time_range() -> None:
    at = AppTest.from_file(APP, default_timeout=120).run()
    result = fake_comparison(("fifo", "las", "srtf"), n_jobs=40)
    at.session_state["result"] = result
    at.switch_page("app_pages/schedule.py").run()
    assert not at.exception
    charts = at.get("plotly_chart")
    assert len(charts) == 3
    import json

    end_s = max(float(sim.jobs["completion_s"].max()) for sim in result.results)
    for chart in charts:
        figure = json.loads(chart.proto.spec)
        assert figure["layout"]["xaxis"]["range"][1] == pytest.approx(end_s / 3600.0, rel=1e-6)

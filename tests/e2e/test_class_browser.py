"""A class in a real browser at projector size (1280 x 720): load a lesson with one click, step
to chosen moments with the keyboard and the buttons, and check each policy's cluster view (the
job on every GPU) and queue against the run's segments table; a screenshot of every lesson."""

from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest

from dashboard.lessons import LESSONS, Lesson, lesson
from engine.policies.base import display_name
from engine.results import ComparisonResult
from engine.scenario import run_scenario
from tests.e2e.harness import WAIT_MS, open_page, screenshot

pytestmark = pytest.mark.e2e
PROJECTOR = {"width": 1280, "height": 720}


@pytest.fixture
def page(new_page):
    """A fresh page at projector size."""
    return new_page(PROJECTOR)


def _run(chosen: Lesson) -> ComparisonResult:
    return run_scenario(chosen.config(), upload=chosen.upload)


def _load_lesson(page, chosen: Lesson) -> None:
    page.get_by_role("button", name=chosen.title).click()
    page.get_by_test_id("stAlert").filter(has_text=chosen.title).wait_for()
    page.locator(f'[data-policy="{display_name(chosen.policies[0])}"]').wait_for()
    _settle(page)


def _settle(page) -> None:
    """Waits until the script run ends (Streamlit's "Running" status widget is gone): a key
    pressed during a run can be lost with the run's elements."""
    page.wait_for_timeout(1000)
    page.get_by_test_id("stStatusWidgetRunningIcon").wait_for(state="hidden")


def _shown_time_s(page, policy: str) -> float:
    return float(page.locator(f'[data-policy="{policy}"]').get_attribute("data-time-s"))


def _expected_owners(segments: pd.DataFrame, time_s: float) -> dict[str, Counter]:
    """Node -> GPUs held per job at ``time_s``, straight from the segments table."""
    running = segments[(segments["start_s"] <= time_s) & (time_s < segments["end_s"])]
    owners: dict[str, Counter] = {}
    for row in running.itertuples():
        for node, gpus in zip(str(row.nodes).split(","), str(row.node_gpus).split(","),
                              strict=True):  # fmt: skip
            owners.setdefault(node, Counter())[str(row.job_id)] += int(gpus)
    return owners


def _expected_queue(sim, time_s: float) -> list[str]:
    """Jobs in the system and not running at ``time_s``, in the order they (re)joined the queue:
    arrival, or the end of their last preempted or migrated segment."""
    segments, jobs = sim.segments, sim.jobs
    running = set(segments[(segments["start_s"] <= time_s) & (time_s < segments["end_s"])]
                  ["job_id"].astype(str))  # fmt: skip
    queue = []
    for job in jobs.itertuples():
        done = job.completion_s if job.completion_s == job.completion_s else float("inf")
        if not job.arrival_s <= time_s < done or str(job.job_id) in running:
            continue
        moved = segments[(segments["job_id"] == job.job_id) & (segments["end_s"] <= time_s)
                         & segments["end_reason"].isin(["preempted", "migrated"])]  # fmt: skip
        joined = float(moved["end_s"].max()) if len(moved) else float(job.arrival_s)
        queue.append((joined, str(job.job_id)))
    return [job for _, job in sorted(queue)]


def _check_moment(page, result: ComparisonResult) -> float:
    """Every shown policy's GPU owners and queue equal what the segments table says."""
    from playwright.sync_api import expect

    time_s = 0.0
    for sim in result.results:
        view = page.locator(f'[data-policy="{sim.policy}"]')
        if not view.count():
            continue
        expect(view).to_have_count(1)  # a run's old copy gone
        time_s = _shown_time_s(page, sim.policy)
        shown: dict[str, Counter] = {}
        for cell in view.locator(".gpu[data-job]").all():
            job = cell.get_attribute("data-job")
            if job:
                shown.setdefault(cell.get_attribute("data-node"), Counter())[job] += 1
        assert shown == _expected_owners(sim.segments, time_s), (sim.policy, time_s)
        rows = page.locator(f'[data-queue="{sim.policy}"] tr[data-queue-job]')
        queue = [rows.nth(i).get_attribute("data-queue-job") for i in range(rows.count())]
        assert queue == _expected_queue(sim, time_s), (sim.policy, time_s)
    return time_s


def _wait_time_change(page, policy: str, before: float) -> float:
    """Waits until the cluster view of ``policy`` shows a moment other than ``before``."""
    from playwright.sync_api import expect

    view = page.locator(f'[data-policy="{policy}"]')
    expect(view.last).not_to_have_attribute("data-time-s", repr(before), timeout=WAIT_MS)
    expect(view).to_have_count(1)  # the run's old copy gone
    return _shown_time_s(page, policy)


def _wait_time(page, policy: str, time_s: float) -> None:
    """Waits until the cluster view of ``policy`` shows the moment ``time_s``."""
    from playwright.sync_api import expect

    view = page.locator(f'[data-policy="{policy}"]')
    expect(view.last).to_have_attribute("data-time-s", repr(time_s), timeout=WAIT_MS)
    expect(view).to_have_count(1)  # the run's old copy gone


def test_a_lesson_steps_through_moments_that_match_the_segments(server: str, page) -> None:
    from playwright.sync_api import expect

    chosen = lesson("fifo_hol")
    result = _run(chosen)
    page.goto(server)
    open_page(page, "Step through")
    _load_lesson(page, chosen)
    first = display_name(chosen.policies[0])
    assert _check_moment(page, result) == 0.0
    picker = page.get_by_test_id("stMultiSelect").filter(has_text="Policies side by side")
    picker.get_by_role("button", name="Remove SRTF").click()  # three policies shown
    views = page.locator(".cv[data-policy]")
    expect(views).to_have_count(3)
    _settle(page)
    events = _events(result)
    page.get_by_role("heading", name="Step through").first.click()  # focus off any input
    time_s = 0.0
    for _ in range(3):  # the Right key steps to the next event of any policy
        expected = min(t for t in events if t > time_s + 1e-9)
        page.keyboard.press("ArrowRight")
        time_s = _wait_time_change(page, first, time_s)
        assert time_s == expected
        _check_moment(page, result)
    for moment_s in chosen.moments_s:  # the lesson's moments, one click each
        page.get_by_role("button", name=f"{_clock(moment_s)} ·").click()
        _settle(page)  # a button outside the fragment: the whole page reruns
        _wait_time(page, first, moment_s)
        time_s = _check_moment(page, result)
        assert time_s == moment_s
        expect(views).to_have_count(3)  # the choice survived the fragment's runs
        if moment_s == chosen.moments_s[1]:  # mid finished: 4 GPUs idle, FIFO blocked by big
            fifo = page.locator('[data-queue="FIFO"]').inner_text()
            assert fifo.count("lower priority") == 4, fifo
            words = page.get_by_text("head-of-line blocking").first
            assert words.is_visible()
    page.get_by_role("button", name="Next Shortcut").click()  # the button, as well as the key
    after = _wait_time_change(page, first, time_s)
    assert after == min(t for t in events if t > time_s + 1e-9)
    _check_moment(page, result)

    page.get_by_role("heading", name="Step through").first.click()
    page.keyboard.press("Space")  # play: the clock runs at 1 simulated minute per second
    played = _wait_time_change(page, first, after)
    played = _wait_time_change(page, first, played)
    assert played > after
    page.get_by_role("button", name="Pause").click()
    _settle(page)
    paused = _shown_time_s(page, first)
    page.wait_for_timeout(1500)
    assert _shown_time_s(page, first) == paused
    _check_moment(page, result)
    _screenshot_schedule(page)


def _screenshot_schedule(page) -> None:
    """The lesson's Gantts, stacked, at projector size (after the steps, which ran only the
    Step-through page's fragment: the other pages' settings must have survived them)."""
    open_page(page, "Schedule")
    page.get_by_role("heading", name="FIFO + backfill", exact=True).wait_for()  # the 4th
    page.locator(".js-plotly-plot").first.wait_for()
    assert page.get_by_test_id("stException").count() == 0
    screenshot(page, "lesson_schedule", whole_page=False)


def _events(result: ComparisonResult) -> list[float]:
    """Every moment "Next" may step to: arrivals, segment starts and ends (a round boundary
    where no job starts or stops is no stop)."""
    times = {float(t) for t in result.results[0].jobs["arrival_s"]}
    for sim in result.results:
        times |= set(sim.segments["start_s"].astype(float)) | set(sim.segments["end_s"])
    return sorted(times)


def _clock(time_s: float) -> str:
    from dashboard.decision_words import clock

    return clock(time_s)


def test_every_lesson_at_projector_size(server: str, page) -> None:
    """A screenshot of each lesson at its middle moment, 1280 x 720, for a person to look at."""
    page.goto(server)
    open_page(page, "Step through")
    for chosen in LESSONS:
        _load_lesson(page, chosen)
        moment_s = chosen.moments_s[1]
        page.get_by_role("button", name=f"{_clock(moment_s)} ·").click()
        _wait_time(page, display_name(chosen.policies[0]), moment_s)
        page.locator(f'[data-words="{display_name(chosen.policies[0])}"]').wait_for()
        screenshot(page, f"lesson_{chosen.key}", whole_page=False)

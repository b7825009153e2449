"""Lessons on the Step-through page: one click loads a small scenario and runs it."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from dashboard import runner
from dashboard.components.run_progress import RunProgress
from dashboard.decision_words import clock
from dashboard.lessons import LESSONS, Lesson, lesson
from dashboard.query import set_upload
from dashboard.state import current, current_config, set_current
from engine.errors import EngineError, SimulationCancelled

LESSON_KEY = "lesson"  # the lesson whose scenario was loaded last (its key), or absent
_PENDING = "_lesson_pending"


def _load(key: str) -> None:
    """Callback: the lesson's scenario into every widget, its jobs as the uploaded trace."""
    chosen = lesson(key)
    s = st.session_state
    set_current(chosen.config(current().seed))
    set_upload(chosen.upload)
    s[LESSON_KEY], s[_PENDING] = key, True
    s["replay_t"] = 0.0
    s["replay_playing"] = False


def render_lesson_buttons() -> None:
    """In the sidebar, one button per lesson; pressing one loads and runs it (this page then
    shows it)."""
    side = st.sidebar
    side.markdown("**Lessons** (one click loads and runs one)")
    for each in LESSONS:
        side.button(each.title, key=f"lesson_{each.key}", on_click=_load, args=(each.key,),
                    icon=":material/school:", width="stretch")  # fmt: skip
    if st.session_state.pop(_PENDING, False):
        _run_loaded()


def render_lesson_notes(chosen: Lesson, go_to: Callable[[float], None]) -> None:
    """The lesson's title and what to look for, with its moments (a button each) beside them:
    one row above the view, in sight on a projector."""
    story, moments = st.columns([3, 1])
    story.info(f"**{chosen.title}.** {chosen.look_for}", icon=":material/school:")
    moments.caption("Moments to look at:")
    for i, (moment_s, note) in enumerate(chosen.moments):
        moments.button(f"{clock(moment_s)} · {note}", key=f"moment_{i}", on_click=go_to,
                       args=(moment_s,), width="stretch")  # fmt: skip


def _run_loaded() -> None:
    s = st.session_state
    config = current_config()  # the lesson's scenario
    progress = RunProgress("Running the lesson…")
    s["cancel_requested"] = False
    try:
        result, _ = runner.run(config, s["upload"], progress.show, lambda: False)
    except (EngineError, SimulationCancelled) as exc:
        progress.clear()
        st.error(f"The lesson did not run: {exc}")
        return
    progress.clear()
    s["result"], s["result_config"] = result, config.to_json()


def current_lesson() -> Lesson | None:
    """The lesson the shown result comes from (None if the result is another scenario's)."""
    s = st.session_state
    key, result = s.get(LESSON_KEY), s.get("result")
    if key is None or result is None:
        return None
    chosen = lesson(key)
    same = result.config.trace.source == f"upload:{chosen.file_name}"
    return chosen if same and result.config.cluster == chosen.cluster else None

"""Run a study from a page: one progress bar across all its runs, Cancel, errors shown.

Runs go through :func:`engine.study.run_study` on a local process pool; finished runs are kept
in the server's result store (``$GPUSCHED_STORE/runs`` or ``~/.cache/gpusched/runs``), so
running again, revisiting or opening a shared link reuses them. Cancel: the button's press
makes Streamlit stop the script at its next element update; the bar is refreshed about every
second while runs are under way, so the study stops within a second (finished runs stay
stored). Set ``GPUSCHED_EXECUTOR=serial`` to run in the server process instead.
"""

from __future__ import annotations

import os
import time

import streamlit as st

from engine.errors import EngineError, SimulationCancelled
from engine.study import Study, StudyResult, run_study
from engine.study.store import default_results_dir

EXECUTOR_ENV = "GPUSCHED_EXECUTOR"


def _request_cancel() -> None:
    st.session_state["cancel_requested"] = True


def render_study_buttons(label: str, key: str, ready: bool) -> bool:
    """Run and Cancel buttons of a study; returns whether Run was pressed."""
    row = st.container(horizontal=True)
    pressed = row.button(label, type="primary", key=key, disabled=not ready,
                         icon=":material/play_arrow:")  # fmt: skip
    row.button("Cancel", key=f"{key}_cancel", on_click=_request_cancel,
               help="Stops the study within a second; finished runs are kept.")  # fmt: skip
    return pressed


def execute_study(study: Study, runs_total: int) -> StudyResult | None:
    """Runs ``study`` with a progress bar over its ``runs_total`` runs; the result, or None
    after showing why (cancelled, or the engine's message)."""
    from dashboard.query import trace_store

    s = st.session_state
    s["cancel_requested"] = False
    bar = st.progress(0.0, text=f"Starting {runs_total} runs…")
    started, state = time.perf_counter(), {"done": 0, "label": "starting", "shown": 0.0}

    def show() -> None:
        elapsed = time.perf_counter() - started
        bar.progress(
            min(state["done"] / max(runs_total, 1), 1.0),
            text=f"{state['done']} of {runs_total} runs · last: {state['label']} · {elapsed:.0f} s",
        )
        state["shown"] = elapsed

    def on_progress(done: int, total: int, label: str) -> None:
        state["done"], state["label"] = done, label
        show()

    def should_cancel() -> bool:
        if time.perf_counter() - started - state["shown"] > 1.0:
            show()  # an element update: where Streamlit stops the script on Cancel
        return bool(s["cancel_requested"])

    try:
        result = run_study(
            study, executor=os.environ.get(EXECUTOR_ENV, "pool"),
            results_dir=default_results_dir(), traces=trace_store(),
            on_progress=on_progress, should_cancel=should_cancel,
        )  # fmt: skip
    except SimulationCancelled:
        bar.empty()
        st.warning(f"Study cancelled after {state['done']} of {runs_total} runs (kept).")
        return None
    except EngineError as exc:
        bar.empty()
        st.error(str(exc))
        return None
    bar.empty()
    took = time.perf_counter() - started
    simulated = len(result.results) - result.reused
    st.success(f"{len(result.results)} runs: {simulated} simulated, {result.reused} from the "
               f"result store, in {took:.1f} s.")  # fmt: skip
    return result

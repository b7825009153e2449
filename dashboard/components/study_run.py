"""Run a study from a page: one progress bar across all its runs, Cancel, errors shown.

Runs go through :func:`engine.study.run_study` on a local process pool; finished runs are kept
in the server's result store (``$GPUSCHED_STORE/runs`` or ``~/.cache/gpusched/runs``), so
running again, revisiting or opening a shared link reuses them. Cancel: the button's press
makes Streamlit stop the script at its next element update; the bar is refreshed about every
second while runs are under way, so the study stops within a second (finished runs stay
stored). A study is checked against the server's work budget before it starts and waits for
its turn in the server's queue (:mod:`dashboard.run_queue`), where Cancel also takes it out.
Set ``GPUSCHED_EXECUTOR=serial`` to run in the server process instead.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dashboard.components.run_progress import cancel_shown
from dashboard.run_queue import (
    charge_session,
    queue_text,
    run_queue,
    server_budget,
    with_deadline,
)
from engine.budget import Budget, check_config, check_study
from engine.errors import EngineError, SimulationCancelled
from engine.study import Study, StudyResult, run_study
from engine.study.planner_confirm import CONFIRM_MIXES
from engine.study.store import default_results_dir

if TYPE_CHECKING:
    from engine.study.planner import PlanSpec

EXECUTOR_ENV = "GPUSCHED_EXECUTOR"


STUDY_CANCEL_HELP = "Stops the study within a second; finished runs are kept."


def render_study_buttons(label: str, key: str, ready: bool) -> bool:
    """A study's run button; returns whether it was pressed (Cancel shows while the study is
    in flight: :func:`dashboard.components.run_progress.cancel_shown`)."""
    return st.button(label, type="primary", key=key, disabled=not ready,
                     icon=":material/play_arrow:")  # fmt: skip


def check_study_budget(study: Study, budget: Budget) -> int:
    """Checks ``study`` against the server's work budget before any run: its variants, seeds
    and runs (:func:`engine.budget.check_study`), then each variant's scenario; returns the
    runs.

    Raises:
        BudgetError: naming the variant, the limit and the value; ConfigError for a bad variant.
    """
    from dashboard.query import trace_store
    from engine.study.overrides import apply_overrides

    variants = study.all_variants()
    budget.check("max_scenarios", len(variants), "the number of variants")
    configs = [apply_overrides(study.base, v.overrides, v.name) for v in variants]
    runs = check_study(configs, len(study.seeds), budget)
    store = trace_store()
    rows = store.rows(study.trace_hash) if store.has(study.trace_hash) else None
    for variant, config in zip(variants, configs, strict=True):
        check_config(config, budget, rows, variant.name)
    return runs


def plan_within_budget(spec: PlanSpec) -> tuple[PlanSpec, Budget]:
    """``spec`` checked against the server's budget (its base scenario and seeds), with at
    most ``max_runs`` simulations in all (the search stops before ``max_runs`` less the
    confirmation's most, :data:`engine.study.planner_confirm.CONFIRM_MIXES` x ``max_seeds``,
    and says so), and the budget; the simulations are counted against the session.

    Raises:
        BudgetError: naming the limit and the value.
    """
    from dashboard.scenarios import upload_rows

    budget = server_budget()
    budget.check("max_seeds", len(spec.seeds), "the number of seeds")
    check_config(spec.base, budget, upload_rows())
    # the confirmation on fresh seeds runs after the search, outside its budget
    confirm_runs = CONFIRM_MIXES * spec.max_seeds
    search_runs = max(min(spec.max_simulations, budget.max_runs - confirm_runs), 1)
    capped = dataclasses.replace(spec, max_simulations=search_runs)
    charge_session(search_runs + confirm_runs, budget)
    return capped, budget


@contextlib.contextmanager
def shared_slot(bar: DeltaGenerator, should_cancel: Callable[[], bool]) -> Iterator[int]:
    """Waits for a turn in the server's queue (the place shown in ``bar``), yields the
    workers the study may use, and frees them at the end (:mod:`dashboard.run_queue`)."""
    budget, queue = server_budget(), run_queue()

    def on_wait(place: int, busy: int) -> None:
        bar.progress(0.0, text=queue_text(place, busy, queue.slots))

    with queue.slot(budget.session_workers, on_wait, should_cancel) as workers:
        yield workers


def execute_study(study: Study, runs_total: int) -> StudyResult | None:
    """Runs ``study`` with a progress bar over its ``runs_total`` runs; the result, or None
    after showing why (beyond the server's budget, cancelled, or the engine's message).
    The study waits for its turn in the server's queue first."""
    from dashboard.query import trace_store

    s = st.session_state
    s["cancel_requested"] = False
    budget = server_budget()
    try:
        charge_session(check_study_budget(study, budget), budget)
    except EngineError as exc:
        st.error(str(exc))
        return None
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
        with (
            cancel_shown("study_cancel", STUDY_CANCEL_HELP),
            shared_slot(bar, lambda: bool(s["cancel_requested"])) as workers,
        ):
            result = run_study(
                study, executor=os.environ.get(EXECUTOR_ENV, "pool"), workers=workers,
                results_dir=default_results_dir(), traces=trace_store(),
                on_progress=on_progress, should_cancel=with_deadline(should_cancel, budget),
                limits=budget.worker_limits(),
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

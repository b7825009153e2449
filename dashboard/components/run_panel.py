"""Run and Cancel with progress, the round settings, presets, and scenario JSON save/load."""

from __future__ import annotations

import time

import streamlit as st

from dashboard import runner
from dashboard.components.link_run import LINK_NOTICE
from dashboard.components.run_progress import RunProgress, cancel_shown, request_cancel
from dashboard.query import NO_PRESET, check_widget_values, on_preset_change
from dashboard.run_queue import server_budget
from dashboard.state import bind, set_current
from engine.budget import check_config
from engine.config import ScenarioConfig
from engine.errors import EngineError, SimulationCancelled
from engine.presets import PRESET_LABELS, PRESETS

RESULTS_FLASH = "results_flash"
"""Session key (kept here, not in dashboard.state): the message of the run that just finished,
shown once on the Results page after Run switches there."""


CANCEL_HELP = "Stops the running simulation at its next progress step."


def _request_cancel() -> None:
    request_cancel()
    st.session_state["flash"] = ("warning", "Run cancelled.")


def render_run_buttons(ready: bool) -> bool:
    """The Run button; returns whether it was pressed (Cancel shows while the run is in
    flight: :func:`execute_run`)."""
    return st.button(
        "Run", type="primary", disabled=not ready, key="run", icon=":material/play_arrow:"
    )


def execute_run(config: ScenarioConfig, upload: runner.Upload) -> None:
    """Runs the scenario with per-policy progress; stores the result or shows the engine's
    message."""
    s = st.session_state
    s["cancel_requested"] = False
    progress = RunProgress(f"Starting {len(config.policies)} policies…")
    started = time.perf_counter()
    try:
        with cancel_shown("cancel", CANCEL_HELP, _request_cancel):
            result, simulated = runner.run(
                config, upload, progress.show, lambda: bool(s["cancel_requested"]),
                progress.waiting,
            )  # fmt: skip
    except SimulationCancelled:
        progress.clear()
        st.warning("Run cancelled.")
        return
    except EngineError as exc:
        progress.clear()
        st.error(str(exc))
        return
    progress.clear()
    s.pop(LINK_NOTICE, None)  # a link's "press Run" note has been acted on
    s["result"], s["result_config"] = result, config.to_json()
    s["result_scenario"] = s["current_scenario"]
    s["result_paper_preset"] = s.get("paper_preset")
    jobs = len(result.results[0].jobs) if result.results else 0
    took = f"in {time.perf_counter() - started:.1f} s"
    if simulated == 0:
        took = "(same scenario: from cache)"
    elif simulated < len(result.results):
        took += f" ({len(result.results) - simulated} from cache)"
    s[RESULTS_FLASH] = f"Simulated {len(result.results)} policies on {jobs:,} jobs {took}."
    st.switch_page("app_pages/results.py")


def render_results_flash() -> None:
    """Shows (once, on the Results page) what the run that just finished did."""
    message = st.session_state.pop(RESULTS_FLASH, None)
    if message:
        st.success(message)


def render_flash() -> None:
    """Shows (once) the message a callback left for the Scenario page."""
    flash = st.session_state.get("flash")
    if flash:
        kind, message = flash
        getattr(st, kind)(message)
        st.session_state["flash"] = None


def render_rounds() -> None:
    """Seed, round length, checkpoint cost, admission rule, reallocation interval, preset."""
    st.selectbox(
        "Preset", [NO_PRESET, *PRESETS], key="preset", on_change=on_preset_change,
        format_func=lambda name: PRESET_LABELS.get(name, name),
        help="Applies a named set of rules to the settings below: Gavel's simulator, or the "
        "Muri testbed (rounds, relaunches, launch cost, placement, Tiresias LAS's queue order).",
    )  # fmt: skip
    cols = st.columns(3)
    cols[0].number_input("Seed", step=1, **bind("seed"))
    cols[1].number_input("Round length (s)", step=60.0, **bind("round_duration_s"))
    cols[2].number_input("Checkpoint-restore cost (s)", step=10.0, **bind("checkpoint_restore_s"))
    cols = st.columns(3)
    cols[0].toggle("Admit jobs mid-round", **bind("admit_mid_round"))
    cols[1].number_input(
        "Reallocation interval (s)", step=60.0, **bind("reallocation_interval_s"),
        help="0 = recompute the allocation every round",
    )  # fmt: skip
    cols[2].toggle(
        "Gavel's simulator rules", **bind("gavel_rules"),
        help="Gavel's policies run in Gavel's own loop: micro-task rounds, per-type queues, "
        "jobs placed only once an allocation includes them (set by the Gavel-compatible preset)",
    )  # fmt: skip
    cols = st.columns(3)
    cols[0].toggle(
        "Relaunch all jobs at rounds with events", **bind("relaunch_on_event"),
        help="At a round boundary after an arrival, a completion or a queue change, every "
        "running job restarts and pays the checkpoint-restore cost; so does every first start "
        "(a testbed that restarts its jobs whenever it re-plans; set by the Muri preset)",
    )  # fmt: skip
    cols[1].number_input(
        "Step-time overhead (share)", step=0.005,
        format="%.3f", **bind("step_time_overhead"),
        help="Every step this share slower than the measured speeds (0.015 = 1.5%: Muri's "
        "testbed harness)",
    )  # fmt: skip


def _on_scenario_upload() -> None:
    file = st.session_state.get("scenario_file")
    if file is None:
        return
    try:
        config = ScenarioConfig.from_json(file.getvalue().decode("utf-8", errors="replace"))
        check_config(config, server_budget())
        check_widget_values(config, file.name)
    except EngineError as exc:
        st.session_state["flash"] = ("error", f"{file.name}: {exc}")
        return
    set_current(config)
    message = f"Loaded scenario {file.name}."
    if config.trace.source.startswith("upload:"):
        message += f" Upload the trace file {config.trace.source[7:]} again."
    st.session_state["flash"] = ("success", message)


def render_scenario_io(config: ScenarioConfig | None) -> None:
    """Download the scenario as JSON; load one back."""
    if config is not None:
        st.download_button(
            "Download scenario JSON", config.to_json(), file_name="scenario.json",
            mime="application/json", help="Reproduce this what-if later or from the command line.",
        )  # fmt: skip
    st.file_uploader(
        "Load a scenario JSON", type=["json"], key="scenario_file", on_change=_on_scenario_upload
    )

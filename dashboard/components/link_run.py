"""Opening a shared link: what it would run, and running the scenario whose results the sender
saw (or taking it from the result cache) once, without a click only when the work is small.

A link is written by whoever sends it, so it never starts large work on its own:
:func:`link_work` estimates what the current scenario would run (policies, jobs, seconds of
work, from :func:`dashboard.run_order.estimate_s`); under the server's ``autorun_s`` budget it
runs at once, otherwise the link is restored and every page says what Run would start.
"""

from __future__ import annotations

import streamlit as st

from dashboard import runner, state
from dashboard.components.run_progress import RunProgress, cancel_shown, request_cancel
from dashboard.scenarios import current_name
from dashboard.state_fields import SOURCE_KINDS, source_kind
from engine.budget import Budget, jobs_bound, trace_rows
from engine.config import ScenarioConfig
from engine.errors import EngineError, SimulationCancelled

LINK_NOTICE = "link_notice"
"""Session key: (kind, message) about the link this session opened, shown at the top of
every page until a run finishes (what Run would start, or why the link did not open)."""


def link_work(config: ScenarioConfig, upload_rows: int | None) -> tuple[int, float]:
    """(jobs, estimated seconds of one core) of simulating every policy of ``config``;
    ``upload_rows``: lines of the link's stored trace (None when it is not here)."""
    from dashboard.run_order import estimate_s

    jobs = jobs_bound(config, trace_rows(config, upload_rows))
    return jobs, sum(estimate_s(p.name, jobs) for p in config.policies)


def plan_link_run(config: ScenarioConfig, upload_rows: int | None, budget: Budget) -> bool:
    """Whether a link's scenario may run without a click; if not, leaves the notice saying
    what Run would start (policies, jobs, time)."""
    jobs, work_s = link_work(config, upload_rows)
    if work_s <= budget.autorun_s:
        return True
    workers = min(budget.session_workers, budget.workers, len(config.policies))
    st.session_state[LINK_NOTICE] = (
        "info",
        f"This link is restored but not run: it would simulate {len(config.policies)} "
        f"policies on {jobs:,} jobs, about {work_s:,.0f} s of work "
        f"(~{work_s / max(workers, 1):,.0f} s on {workers} worker(s)). "
        "Check the scenario, then press **Run** on the Scenario page.",
    )
    return False


def render_link_notice() -> None:
    """Shows the notice of the link this session opened, if any."""
    notice = st.session_state.get(LINK_NOTICE)
    if notice:
        kind, message = notice
        getattr(st, kind)(message)


def _request_cancel() -> None:
    request_cancel()
    st.session_state[LINK_NOTICE] = (
        "warning",
        "The linked scenario's run was cancelled (its place in the queue freed). It is "
        "restored: press **Run** on the Scenario page to start it.",
    )


def run_linked_scenario() -> bool:
    """Runs the scenario a link asked for (``"autorun"``): the one whose results the sender saw,
    as it was run (``"link_results"``), else the current one; returns whether a result was
    stored. Errors are shown, never raised; a missing trace is reported by the banner."""
    render_link_notice()
    s = st.session_state
    if not s.pop("autorun", False):
        return False
    if source_kind(state.current().trace) == SOURCE_KINDS[1] and s.get("upload") is None:
        return False
    try:
        current = state.current_config()
    except EngineError as exc:
        st.error(f"The linked scenario is not valid here: {exc}")
        return False
    name, ran = s.get("link_results") or ("", None)
    name = name if name in s["scenarios"] else current_name()
    config = ran or s["scenarios"].get(name, current)
    if not config.policies:
        return False
    progress = RunProgress("Running the linked scenario…")
    s["cancel_requested"] = False
    help_text = "Stops the linked scenario's run, or takes it out of the server's queue."
    try:
        with cancel_shown("cancel_link_run", help_text, _request_cancel):
            result, _ = runner.run(
                config, s["upload"], progress.show, lambda: bool(s["cancel_requested"]),
                progress.waiting,
            )  # fmt: skip
    except (EngineError, SimulationCancelled) as exc:
        st.error(f"The linked scenario did not run: {exc}")
        return False
    finally:
        progress.clear()
    s["result"], s["result_config"] = result, config.to_json()
    s["result_scenario"] = name
    s["result_paper_preset"] = s.get("paper_preset")
    return True

"""What every result page starts with: the last run, or a pointer to the Scenario page."""

from __future__ import annotations

import streamlit as st

from dashboard.chart_style import policy_colors
from engine.results import ComparisonResult


def require_result() -> ComparisonResult:
    """The last run's result; without one, says so with a link to the Scenario page and stops."""
    result = st.session_state.get("result")
    if result is None:
        if st.session_state.get("link_trace_missing"):
            st.info("No results: this link's trace file is missing here (see above).")
        else:
            st.info("No results yet. Set up a scenario and press **Run** on the Scenario page.")
        st.page_link(
            "app_pages/scenario.py", label="Go to the Scenario page", icon=":material/tune:"
        )
        st.stop()
    return result


def render_run_caption(result: ComparisonResult) -> None:
    """One line naming the scenario and seed of the run shown; a note when another scenario is
    selected now, or when the scenario changed since the run."""
    s = st.session_state
    config = result.config
    jobs = len(result.results[0].jobs) if result.results else 0
    name = s.get("result_scenario") or s["current_scenario"]
    st.markdown(
        f"Results of scenario **{name}** · {jobs:,} jobs from "
        f"{config.trace.source.split(':')[-1]} on {config.cluster.total_gpus} GPUs · seed "
        f"{config.seed} · policies: {', '.join(result.policies)}"
    )
    current = s["current_scenario"]
    if name != current:
        st.info(
            f"These are the results of scenario **{name}**; the scenario selected now is "
            f"**{current}**. Press **Run** on the Scenario page to see **{current}**'s results."
        )
    elif s.get("result_config") != _config_json(name):
        st.warning(f"Scenario **{name}** changed since this run; press **Run** on the Scenario "
                   "page to update these results.")  # fmt: skip


def _config_json(name: str) -> str | None:
    from dashboard.scenarios import all_scenarios

    config = all_scenarios().get(name)
    return None if config is None else config.to_json()


def colors_of(result: ComparisonResult) -> dict[str, str]:
    """Policy -> color for this result, in scenario order."""
    return policy_colors(result.policies)

"""What every result page starts with: the last run, or a pointer to the Scenario page."""

from __future__ import annotations

import streamlit as st

from dashboard.chart_style import policy_colors
from engine.results import ComparisonResult


def require_result() -> ComparisonResult:
    """The last run's result; without one, says so with a link to the Scenario page and stops."""
    result = st.session_state.get("result")
    if result is None:
        st.info("No results yet. Set up a scenario and press **Run** on the Scenario page.")
        st.page_link(
            "app_pages/scenario.py", label="Go to the Scenario page", icon=":material/tune:"
        )
        st.stop()
    return result


def render_run_caption(result: ComparisonResult) -> None:
    """One line naming the run shown, and a note when the scenario changed since."""
    config = result.config
    jobs = len(result.results[0].jobs) if result.results else 0
    st.caption(
        f"{jobs:,} jobs from {config.trace.source.split(':')[-1]} on "
        f"{config.cluster.total_gpus} GPUs · {config.throughputs} throughputs · "
        f"seed {config.seed} · policies: {', '.join(result.policies)}"
    )
    if st.session_state.get("result_config") != _current_config_json():
        st.warning("The scenario changed since this run; press **Run** to update these results.")


def _current_config_json() -> str | None:
    from dashboard.state import build_config
    from engine.errors import EngineError

    try:
        return build_config().to_json()
    except EngineError:
        return None


def colors_of(result: ComparisonResult) -> dict[str, str]:
    """Policy -> color for this result, in scenario order."""
    return policy_colors(result.policies)

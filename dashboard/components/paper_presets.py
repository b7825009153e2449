"""Paper presets: load a seed paper's setup in one click, and read its claims beside the run.

The presets come from :mod:`engine.papers`; a new one needs no edit here.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from dashboard.state import apply_config
from engine.papers import claims_table, get_paper_preset, list_paper_presets
from engine.results import ComparisonResult

NO_PAPER = "None"


def _on_paper_change() -> None:
    s = st.session_state
    name = s["paper_preset"]
    if name == NO_PAPER:
        return
    apply_config(get_paper_preset(name).build(int(s["seed"])))
    s["flash"] = ("success", f"Loaded the {name} setup. Press **Run** to compare its policies.")


def render_paper_picker() -> None:
    """Selectbox of paper presets; choosing one loads its scenario into every tab."""
    st.selectbox(
        "Paper preset", [NO_PAPER, *list_paper_presets()], key="paper_preset",
        on_change=_on_paper_change,
        help="Loads a setup like a seed paper's, with its policy and that paper's baselines. "
        "After the run, the Results page sets the paper's claims beside what the simulation shows.",
    )  # fmt: skip
    name = st.session_state.get("paper_preset", NO_PAPER)
    if name != NO_PAPER:
        preset = get_paper_preset(name)
        st.caption(f"{preset.citation}. {preset.setup}")


def render_claims(result: ComparisonResult, name: str | None) -> None:
    """The paper's claims beside the simulated ratios, when the run came from a paper preset."""
    if not name or name == NO_PAPER:
        return
    preset = get_paper_preset(name)
    st.subheader(f"{name}: claim vs simulation")
    table = claims_table(preset, result)
    shown = pd.DataFrame(
        {
            "Claim": table["claim"],
            "Compared": table["policy"] + " vs " + table["baseline"],
            "Paper": table["claimed_ratio"].map(_ratio),
            "Simulated": table["simulated_ratio"].map(_ratio),
            "Direction holds": table["shown"].map({True: "yes", False: "no"}),
        }
    )
    st.dataframe(shown, hide_index=True, width="stretch")
    st.caption(
        "Ratios are oriented so that above 1× favours the paper's policy "
        "(baseline ÷ policy for times, policy ÷ baseline for utilization)."
    )
    if preset.not_shown:
        st.warning(preset.not_shown)


def _ratio(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.2f}×"

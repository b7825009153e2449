"""Paper presets: load a seed paper's setup in one click, and read its claims beside the run.

The presets come from :mod:`engine.papers`; a new one needs no edit here.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from dashboard.formatting import human_number
from dashboard.state import current, set_current
from engine.metrics import METRICS
from engine.papers import claims_table, get_paper_preset, list_paper_presets
from engine.results import ComparisonResult

NO_PAPER = "None"


def _on_paper_change() -> None:
    s = st.session_state
    name = s["paper_preset"]
    if name == NO_PAPER:
        return
    set_current(get_paper_preset(name).build(current().seed))
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


VERDICT_STYLE = {
    "shown": "background-color: #d8f0dc; color: #0b5d1e; font-weight: 700",
    "direction only": "background-color: #fff1c2; color: #7a5200; font-weight: 700",
    "not shown": "background-color: #fbd9d9; color: #8a1111; font-weight: 700",
}


def claims_frame(table: pd.DataFrame) -> pd.DataFrame:
    """The claims table as shown: claim, comparison, the paper's ratio beside ours, verdict."""
    return pd.DataFrame(
        {
            "Claim": table["claim"],
            "Compared": table["policy"] + " vs " + table["baseline"],
            "Paper": table["claimed_ratio"].map(_ratio),
            "Simulated": table["simulated_ratio"].map(_ratio),
            "Verdict": table["verdict"],
        }
    )


def render_claims(result: ComparisonResult, name: str | None) -> None:
    """The paper's claims beside the simulated ratios, when the run came from a paper preset."""
    if not name or name == NO_PAPER:
        return
    preset = get_paper_preset(name)
    st.subheader(f"{name}: claim vs simulation")
    table = claims_table(preset, result)
    shown = claims_frame(table).style.map(lambda v: VERDICT_STYLE.get(v, ""), subset=["Verdict"])
    st.dataframe(shown, hide_index=True, width="stretch")
    st.caption(
        "Ratios are oriented so that above 1× favours the paper's policy (baseline ÷ policy for "
        "times, policy ÷ baseline for utilization). Verdict: **shown** when the simulated gain is "
        "at least half the paper's, **direction only** when the policy wins by less, **not "
        "shown** otherwise."
    )
    with st.expander(f"Per-seed figures (seed {result.config.seed})"):
        st.dataframe(seed_figures(table, result.config.seed), hide_index=True, width="stretch")
        st.caption("Run other seeds (tab 4) to see how the figures move; each run is one seed.")
    if preset.not_shown:
        st.warning(preset.not_shown)


def seed_figures(table: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Each claim's metric for the policy and the baseline in this run's seed."""
    return pd.DataFrame(
        {
            "Seed": seed,
            "Claim": table["claim"],
            "Metric": table["metric"].map(lambda m: METRICS[m].label if m in METRICS else m),
            "Policy": table["policy"] + ": " + [
                _value(m, v) for m, v in zip(table["metric"], table["policy_value"], strict=True)
            ],
            "Baseline": table["baseline"] + ": " + [
                _value(m, v) for m, v in zip(table["metric"], table["baseline_value"], strict=True)
            ],
            "Simulated": table["simulated_ratio"].map(_ratio),
        }
    )  # fmt: skip


def _value(metric: str, value: float) -> str:
    if metric not in METRICS:
        return f"{value:,.4f} s"
    return human_number(value, METRICS[metric].unit)


def _ratio(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.2f}×"


def render_report_download(result: ComparisonResult, name: str | None) -> None:
    """A button that downloads the one-file HTML report (built when pressed)."""
    from dashboard.report import report_html

    s = st.session_state  # read here: the button calls build() outside the script run
    scenario = s.get("result_scenario") or s["current_scenario"]

    def build() -> str:
        claims = ""
        notes: tuple[str, ...] = ()
        if name and name != NO_PAPER:
            preset = get_paper_preset(name)
            claims = claims_frame(claims_table(preset, result)).to_html(index=False)
            notes = (preset.not_shown,) if preset.not_shown else ()
        return report_html(result, claims, notes, scenario)

    st.download_button(
        "Download report (one HTML file, opens offline)", build, file_name="whatif_report.html",
        mime="text/html", icon=":material/description:", key="report_download",
        help="Scenario, KPI table, every chart, claims and notes in one file; plotly inlined.",
    )  # fmt: skip

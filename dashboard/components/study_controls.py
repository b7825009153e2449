"""Controls shared by the study pages: quick edits of the current variant, seeds, metric."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd
import streamlit as st

from dashboard import page_settings
from dashboard.components.cluster_panel import render_gpu_mix
from dashboard.state import bind, current_config
from dashboard.study_tables import FAILURE_STUDY_METRICS, PAIR_COLUMNS, STUDY_METRICS
from engine.config import ScenarioConfig
from engine.errors import EngineError


def study_base() -> ScenarioConfig:
    """The current scenario, the base of a study page; an invalid one is shown as an error and
    stops the page (:func:`dashboard.state.current_config` names the table, row and column)."""
    try:
        return current_config()
    except EngineError as exc:
        st.error(f"The scenario is not valid: {exc}")
        st.stop()


def render_variant_editor() -> None:
    """The current scenario's GPU mix, network, round length and load (same widgets and keys as
    the Scenario page, so they edit the current scenario; the rest is on that page)."""
    mix_tab, other_tab = st.tabs(["GPU mix", "Network, rounds & load"])
    with mix_tab:
        render_gpu_mix()
    with other_tab:
        cols = st.columns(4)
        cols[0].number_input(
            "Background load (share of each link)", step=0.05,
            **bind("background_load"),
        )  # fmt: skip
        cols[1].number_input(
            "Rack uplink oversubscription (x:1)", step=0.5,
            **bind("uplink_oversubscription"),
        )  # fmt: skip
        cols[2].number_input("Round length (s)", step=60.0, **bind("round_duration_s"))
        cols[3].number_input(
            "Arrival scale (x load)", step=0.25, **bind("arrival_scale"),
            help="Arrival times divided by this factor: 1.5 = jobs arrive 1.5x as fast.",
        )  # fmt: skip
        st.caption("Policies and their parameters, the trace and the other rules: Scenario page.")


def render_seed_count(key: str, default: int = 3) -> list[int]:
    """A seed-count input; returns the seeds 0..n-1 (the same for every variant: paired)."""
    st.session_state.setdefault(key, default)
    count = st.number_input(
        "Seeds", min_value=page_settings.SEED_RANGE[0],
        max_value=page_settings.SEED_RANGE[1], step=1, key=key,
        help="Each variant runs with seeds 0..n-1 (trace and simulation); intervals are 95% over "
        "seeds (Student's t on the log scale of the mean, never below zero), differences are "
        "paired on the same seeds.",
    )  # fmt: skip
    return list(range(int(count)))


def render_metric_picker(
    key: str, label: str = "Metric", failures: bool = False, extra: Mapping[str, str] | None = None
) -> str:
    """A selectbox of :data:`STUDY_METRICS` by name (the unit follows the values shown; the
    failure metrics only for a study with failures on), then ``extra`` (key -> name, e.g. the
    Sweep's per-team KPIs); returns the metric key."""
    names = {k: m.label for k, m in STUDY_METRICS.items()
             if failures or k not in FAILURE_STUDY_METRICS}  # fmt: skip
    names.update(extra or {})
    if st.session_state.get(key) not in names:
        st.session_state[key] = "jct_mean_s"
    return st.selectbox(label, list(names), key=key, format_func=names.get)


def render_pair_picker(keys: tuple[str, str], options: list[str], default: tuple[str, str],
                       label: Callable[[str], str]) -> tuple[str, str]:  # fmt: skip
    """Two selectboxes, A and B, over ``options``; values no longer offered fall back to
    ``default``. Returns (A, B)."""
    s = st.session_state
    cols = st.columns(2)
    chosen = []
    for col, key, fallback, name in zip(cols, keys, default, ("A", "B"), strict=True):
        if s.get(key) not in options:
            s[key] = fallback
        chosen.append(col.selectbox(name, options, key=key, format_func=label))
    return chosen[0], chosen[1]


def render_seed_note(seeds: int) -> None:
    """A warning when ``seeds`` are too few for a firm answer, saying why."""
    from engine.study.stats import few_seeds_note

    note = few_seeds_note(seeds)
    if note:
        st.warning(f"Answers below are {note}.")


def render_pairs(table: pd.DataFrame) -> None:
    """A paired table (:func:`dashboard.study_tables.pair_table`): its numbers as a grid, then
    each metric's reading as a sentence under it. Sentences wrap; in a column they made the grid
    wider than a 1280 x 720 window's page, which hid the last columns behind a scroll bar.
    One pair in every row is said once above the grid ("A vs B: **Tiresias LAS vs FIFO**"),
    not in a column that repeats it."""
    pairs = table["A vs B"].unique()
    if len(pairs) == 1:
        st.markdown(f"A vs B: **{pairs[0]}**")
    dropped = {"Reading", "A vs B"} if len(pairs) == 1 else {"Reading"}
    st.dataframe(table[[c for c in PAIR_COLUMNS if c not in dropped]], hide_index=True,
                 width="stretch")  # fmt: skip
    metrics, readings = table["Metric"], table["Reading"]
    st.markdown("\n".join(f"- **{m}**: {r}" for m, r in zip(metrics, readings, strict=True)))

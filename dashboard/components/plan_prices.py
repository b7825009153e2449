"""The planner's candidates table: its defaults per throughput matrix, where their prices come
from, and its editor, whose edits are kept in the table a link carries
(`dashboard.page_settings`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from dashboard.page_settings import CANDIDATE_RANGES
from engine.config import ScenarioConfig
from engine.study.cost import (
    DEFAULT_PRICES_USD_PER_GPU_H,
    price_source,
    prices_with_defaults,
)

MLPERF_CANDIDATES = ("H100-SXM", "H200-SXM", "B200", "MI300X")


def candidates_state_key(matrix: str) -> str:
    """Session key of the candidates table: one per matrix (Gavel's keeps its old key)."""
    return "plan_candidates" if matrix == "gavel" else f"plan_candidates:{matrix}"


def default_candidates(base: ScenarioConfig, idle: Sequence[str] = ()) -> pd.DataFrame:
    """Today's GPU types (``base``'s cluster) first, then Gavel's GPU types with Gavel's prices,
    or for an MLPerf matrix H100-SXM, H200-SXM, B200 and MI300X, each with its cited price
    where there is one (blank otherwise: the user's number is required before planning),
    leaving out the ``idle`` types that are not today's (they run none of the trace's jobs:
    :func:`engine.study.planner_types.idle_types`). A type may grow to twice today's nodes (at
    least 8, or 64 for an MLPerf matrix) [R]."""
    matrix = base.throughputs
    today: dict[str, int] = {}
    for group in base.cluster.node_groups:
        today[group.worker_type] = today.get(group.worker_type, 0) + group.nodes
    offered = MLPERF_CANDIDATES if matrix.startswith("mlperf") else DEFAULT_PRICES_USD_PER_GPU_H
    types = [wt for wt in dict.fromkeys([*today, *offered]) if wt in today or wt not in idle]
    prices = prices_with_defaults(None)
    least = 8 if matrix == "gavel" else 64
    node_gpus = base.cluster.max_gpus_per_node()
    return pd.DataFrame({
        "worker_type": types,
        "price_usd_per_gpu_h": [prices.get(wt) for wt in types],
        "max_nodes": [max(least, 2 * today.get(wt, 0)) for wt in types],
        "gpus_per_node": [node_gpus.get(wt, 8) for wt in types],
        "max_spares": [math.nan for _ in types],  # blank: the plan's one number
        "purchase_usd_per_gpu": [math.nan for _ in types],  # blank: the user's number
    }).astype({"price_usd_per_gpu_h": float, "max_spares": float,
               "purchase_usd_per_gpu": float})  # fmt: skip


def trace_idle_types(base: ScenarioConfig, upload: tuple[str, bytes] | None) -> list[str]:
    """The GPU types of ``base``'s matrix and the offered candidates on which no job of the
    scenario's trace (its seed's draw) runs (:func:`engine.study.planner_types.idle_types`);
    [] when the trace does not load (the page says why elsewhere)."""
    from dashboard import runner
    from engine.errors import EngineError
    from engine.step_time.throughput import BUILTIN_MATRICES, load_matrix
    from engine.study.planner_types import idle_types

    if base.throughputs not in BUILTIN_MATRICES:
        return []
    try:
        load = runner.load_trace(base, upload)
    except EngineError:
        return []
    matrix = load_matrix(base.throughputs).merged(load.throughputs)
    offered = MLPERF_CANDIDATES if base.throughputs.startswith("mlperf") else ()
    types = dict.fromkeys([*matrix.worker_types, *offered])
    return idle_types(load.jobs, matrix, types)


def render_price_sources(candidates: pd.DataFrame) -> None:
    """One line per candidate type: its default price's source and date, or that there is none
    to cite and the user's number is needed."""
    lines = [f"- **{wt}**: {price_source(str(wt))}" for wt in candidates["worker_type"]]
    st.caption("Price sources (editable below):\n" + "\n".join(lines))


def render_candidates_editor(
    base: ScenarioConfig, spares: bool, purchase: bool = False
) -> pd.DataFrame:
    """The candidates editor (a "Max spare nodes" column when ``spares``, a "Purchase price"
    column when ``purchase``: the objective is total cost of ownership), mounted on a snapshot
    of the table under :func:`candidates_state_key`; the edited table is written back there,
    so page switches and links carry the edits. Returns the edited table (columns of
    :data:`dashboard.page_settings.PLAN_CANDIDATE_COLUMNS`, ``max_spares`` NaN when blank).

    The editor's edits are relative to its snapshot, so the snapshot is kept while the editor
    is on screen, and taken anew (with a new editor) when it was not or when the table was
    replaced from outside (a link, a test), as in `dashboard.components.table_editor`.
    """
    s = st.session_state
    key, matrix = candidates_state_key(base.throughputs), base.throughputs
    s.setdefault(key, default_candidates(base))
    base_key, out_key, count_key = (f"plan_editor_{name}:{matrix}" for name in ("base", "out", "n"))
    editor_key = f"plan_editor:{matrix}:{s.get('table_version', 0)}:{s.get(count_key, 0)}"
    if editor_key not in s or base_key not in s or s.get(out_key) is not s[key]:
        s[count_key] = s.get(count_key, 0) + 1  # a new editor on the new snapshot
        editor_key = f"plan_editor:{matrix}:{s.get('table_version', 0)}:{s[count_key]}"
        table = s[key].reset_index(drop=True).copy()
        for column in ("max_spares", "purchase_usd_per_gpu"):
            if column not in table:  # a table from an older link
                table[column] = math.nan
        s[base_key] = table.astype({"max_spares": float, "purchase_usd_per_gpu": float})
    number = st.column_config.NumberColumn
    edited = st.data_editor(
        s[base_key], key=editor_key, num_rows="dynamic", hide_index=True,
        placeholder="",  # a blank cell shows blank, not Streamlit's default "None" (38.10)
        column_order=["worker_type", "price_usd_per_gpu_h", "max_nodes", "gpus_per_node",
                      *(["max_spares"] if spares else []),
                      *(["purchase_usd_per_gpu"] if purchase else [])],
        column_config={
            "worker_type": st.column_config.TextColumn(
                "GPU type", required=True, max_chars=int(CANDIDATE_RANGES["worker_type"][1])),
            "price_usd_per_gpu_h": number("Price (USD per GPU-hour)",
                                          **_bounds("price_usd_per_gpu_h"), format="%.3f",
                                          required=True),
            "purchase_usd_per_gpu": number(
                "Purchase price (USD per GPU)", **_bounds("purchase_usd_per_gpu"), format="%.0f",
                help="A node's price over its GPUs; enter your quote (no public list price)"),
            **{name: number(label, **_bounds(name), step=1, help=hint)
               for name, label, hint in _INT_COLUMNS},
        },
    )  # fmt: skip
    s[key] = s[out_key] = edited  # a table set from outside is not this one: re-snapshot
    return edited


def _bounds(column: str) -> dict[str, float]:
    """The ``min_value`` and ``max_value`` of a candidates column's editor or field: its one
    declaration, ``page_settings.CANDIDATE_RANGES``, which the link vetting also reads."""
    low, high = CANDIDATE_RANGES[column]
    return {"min_value": low, "max_value": high}


_INT_COLUMNS = (
    ("max_nodes", "Max nodes", None),
    ("gpus_per_node", "GPUs per node", None),
    ("max_spares", "Max spare nodes",
     "The most spare nodes of this type the search may hold; blank: the number above"),
)  # fmt: skip


def render_price_fields(key: str, candidates: pd.DataFrame, purchase: bool) -> None:
    """A field for each candidate row without the price the plan needs (the rental price, or
    with ``purchase`` the purchase price), side by side under the table; a number typed there
    is written into the table under ``key`` (which links carry) and the page reruns, so the
    table shows it and the field is gone."""
    column = "purchase_usd_per_gpu" if purchase else "price_usd_per_gpu_h"
    if column not in candidates:
        return
    missing = [str(wt) for wt, v in zip(candidates["worker_type"], candidates[column],
                                        strict=True) if pd.isna(v)]  # fmt: skip
    if not missing:
        return
    what, unit = ("Purchase price", "USD per GPU") if purchase else ("Price", "USD per GPU-hour")
    cols = st.columns(min(len(missing), 4))
    for n, wt in enumerate(missing):
        value = cols[n % 4].number_input(
            f"{what} of {wt} ({unit})", **_bounds(column), value=None, placeholder="your price",
            key=f"plan_fill:{column}:{wt}",
        )  # fmt: skip
        if value is not None:
            table = st.session_state[key].reset_index(drop=True).copy()
            table.loc[table["worker_type"] == wt, column] = float(value)
            st.session_state[key] = table
            st.rerun()

"""The planner's default candidates per throughput matrix, and where their prices come from."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.study.cost import (
    DEFAULT_PRICES_USD_PER_GPU_H,
    price_source,
    prices_with_defaults,
)

MLPERF_CANDIDATES = ("H100-SXM", "H200-SXM", "B200", "MI300X")


def candidates_state_key(matrix: str) -> str:
    """Session key of the candidates table: one per matrix (Gavel's keeps its old key)."""
    return "plan_candidates" if matrix == "gavel" else f"plan_candidates:{matrix}"


def default_candidates(matrix: str) -> pd.DataFrame:
    """Gavel's GPU types with Gavel's prices, or for an MLPerf matrix H100-SXM, H200-SXM, B200
    and MI300X with their cited price where there is one (blank otherwise: the user's number
    is required before planning)."""
    if not matrix.startswith("mlperf"):
        types = list(DEFAULT_PRICES_USD_PER_GPU_H)
    else:
        types = list(MLPERF_CANDIDATES)
    prices = prices_with_defaults(None)
    return pd.DataFrame({
        "worker_type": types,
        "price_usd_per_gpu_h": [prices.get(wt) for wt in types],
        "max_nodes": [8 if matrix == "gavel" else 64] * len(types),
        "gpus_per_node": [8] * len(types),
    }).astype({"price_usd_per_gpu_h": float})  # fmt: skip


def render_price_sources(candidates: pd.DataFrame) -> None:
    """One line per candidate type: its default price's source and date, or that there is none
    to cite and the user's number is needed."""
    lines = [f"- **{wt}**: {price_source(str(wt))}" for wt in candidates["worker_type"]]
    st.caption("Price sources (editable below):\n" + "\n".join(lines))

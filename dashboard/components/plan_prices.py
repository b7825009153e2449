"""The planner's default candidates per throughput matrix, and where their prices come from."""

from __future__ import annotations

import pandas as pd
import streamlit as st

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


def default_candidates(base: ScenarioConfig) -> pd.DataFrame:
    """Today's GPU types (``base``'s cluster) first, then Gavel's GPU types with Gavel's prices,
    or for an MLPerf matrix H100-SXM, H200-SXM, B200 and MI300X, each with its cited price
    where there is one (blank otherwise: the user's number is required before planning). A type
    may grow to twice today's nodes (at least 8, or 64 for an MLPerf matrix) [R]."""
    matrix = base.throughputs
    today: dict[str, int] = {}
    for group in base.cluster.node_groups:
        today[group.worker_type] = today.get(group.worker_type, 0) + group.nodes
    offered = MLPERF_CANDIDATES if matrix.startswith("mlperf") else DEFAULT_PRICES_USD_PER_GPU_H
    types = list(dict.fromkeys([*today, *offered]))
    prices = prices_with_defaults(None)
    least = 8 if matrix == "gavel" else 64
    node_gpus = base.cluster.max_gpus_per_node()
    return pd.DataFrame({
        "worker_type": types,
        "price_usd_per_gpu_h": [prices.get(wt) for wt in types],
        "max_nodes": [max(least, 2 * today.get(wt, 0)) for wt in types],
        "gpus_per_node": [node_gpus.get(wt, 8) for wt in types],
    }).astype({"price_usd_per_gpu_h": float})  # fmt: skip


def render_price_sources(candidates: pd.DataFrame) -> None:
    """One line per candidate type: its default price's source and date, or that there is none
    to cite and the user's number is needed."""
    lines = [f"- **{wt}**: {price_source(str(wt))}" for wt in candidates["worker_type"]]
    st.caption("Price sources (editable below):\n" + "\n".join(lines))

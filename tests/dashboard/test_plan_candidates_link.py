"""A link's Planner candidates table is held to the editor's columns and ranges
(`dashboard.page_settings.check_setting`, issue 34): every refused cell is named by row and
column; an older link's table (no ``max_spares`` column) and blank cells still read."""

from __future__ import annotations

from typing import Any

import pytest

from dashboard.page_settings import CANDIDATE_RANGES, FRAME, MAX_ROWS, check_setting

ROW = {"worker_type": "v100", "price_usd_per_gpu_h": 0.74, "max_nodes": 32, "gpus_per_node": 8,
       "max_spares": 2, "purchase_usd_per_gpu": 9000.0}  # fmt: skip


OPTIONAL = ("max_spares", "purchase_usd_per_gpu")  # columns an older link lacks


def _table(*rows: dict[str, Any]) -> dict[str, Any]:
    return {FRAME: list(rows)}


@pytest.mark.parametrize(
    "row",
    [ROW, {**ROW, "max_spares": None}, {k: v for k, v in ROW.items() if k not in OPTIONAL},
     {**ROW, "price_usd_per_gpu_h": None}, {**ROW, "max_nodes": 10_000, "max_spares": 64}],
    ids=["full", "blank-spares", "older-link", "blank-price", "at-the-highest"],
)  # fmt: skip
def test_a_table_the_editor_could_make_is_kept(row: dict[str, Any]) -> None:
    assert check_setting("plan_candidates:mlperf", _table(row)) == ""


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"price_usd_per_gpu_h": 1e9}, "column price_usd_per_gpu_h: expected a number from 0"),
        ({"price_usd_per_gpu_h": -1}, "column price_usd_per_gpu_h"),
        ({"max_nodes": 2.5}, "column max_nodes: expected a whole number from 1 to 10000"),
        ({"max_nodes": 0}, "column max_nodes"),
        ({"gpus_per_node": 65}, "column gpus_per_node: expected a whole number from 1 to 64"),
        ({"max_spares": 65}, "column max_spares: expected a whole number from 0 to 64"),
        ({"max_spares": True}, "column max_spares"),
        ({"purchase_usd_per_gpu": -1.0}, "column purchase_usd_per_gpu: expected a number from 0"),
        ({"worker_type": "x" * 65}, "column worker_type: expected a text of 1 to 64"),
        ({"worker_type": 3}, "column worker_type"),
        ({"extra": 1}, "expected the columns"),
    ],
)
def test_a_crafted_cell_is_refused_by_row_and_column(change: dict[str, Any], named: str) -> None:
    why = check_setting("plan_candidates", _table(ROW, {**ROW, **change}))
    assert why.startswith("row 2") and named in why, why


def test_too_many_rows_or_a_missing_column_are_refused() -> None:
    assert "at most 64 rows" in check_setting("plan_candidates", _table(*[ROW] * (MAX_ROWS + 1)))
    del_price = {k: v for k, v in ROW.items() if k != "price_usd_per_gpu_h"}
    assert "expected the columns" in check_setting("plan_candidates", _table(del_price))
    assert set(CANDIDATE_RANGES) == set(ROW)

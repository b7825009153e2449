"""The table editors of the Scenario page (components.table_editor): a bad row is named once
under its table and once by the Run area, the scenario keeps its last valid value, and a fixed
table is written into it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.state import get_field

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
TIMEOUT_S = 120

BAD_AND_GOOD = {  # key -> (scenario path, a bad table and its message, a good table)
    "congestion": (
        "network.congestion",
        pd.DataFrame({"start_s": [50.0], "end_s": [10.0], "factor": [2.0], "links": ["x"]}),
        "congestion row 1: start_s must be before end_s",
        pd.DataFrame({"start_s": [10.0], "end_s": [50.0], "factor": [2.0], "links": [None]}),
    ),
    "extra_types": (
        "extra_worker_types",
        pd.DataFrame({"name": ["a100"], "base": ["v100"], "speed_ratio": [None]}),
        "speed_ratio",
        pd.DataFrame({"name": ["a100"], "base": ["v100"], "speed_ratio": [2.0]}),
    ),
}


def _edit(at: AppTest, key: str, frame: pd.DataFrame, version: int) -> AppTest:
    at.session_state[key] = frame
    at.session_state["table_version"] = version  # the editors re-read their tables
    return at.run()


@pytest.mark.parametrize("key", sorted(BAD_AND_GOOD))
def test_a_bad_row_is_named_under_its_table_and_a_fixed_one_is_written(key: str) -> None:
    path, bad, message, good = BAD_AND_GOOD[key]
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    before = get_field(at.session_state["scenarios"]["base"], path)
    _edit(at, key, bad, 1)
    assert not at.exception
    named = [e.value for e in at.error if message in e.value]
    assert len(named) == 2, [e.value for e in at.error]  # under the table; in the Run area
    assert get_field(at.session_state["scenarios"]["base"], path) == before
    _edit(at, key, good, 2)
    assert not at.error, [e.value for e in at.error]
    after = get_field(at.session_state["scenarios"]["base"], path)
    assert after != before and len(after) == 1

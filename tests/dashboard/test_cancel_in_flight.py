"""Cancel shows only while a run is in flight (issue 38, rough edges): no page offers Cancel
beside a Run with nothing running, and the button drawn for a run leaves with it, however
the run ends (dashboard.components.run_progress.cancel_shown)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
PAGES = ["app_pages/scenario.py", "app_pages/compare.py", "app_pages/sweep.py",
         "app_pages/planner.py"]  # fmt: skip


@pytest.fixture(autouse=True)
def _store(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("GPUSCHED_STORE", str(tmp_path / "store"))


def _cancels(at: AppTest) -> list[str]:
    return [b.key for b in at.button if b.label == "Cancel"]


@pytest.mark.parametrize("page", PAGES)
def test_no_cancel_while_nothing_runs(page: str) -> None:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page(page).run()
    assert not at.exception
    assert [b for b in at.button if b.label in {"Run", "Run all", "Run the sweep", "Plan"}]
    assert _cancels(at) == []


def test_a_finished_run_leaves_no_cancel() -> None:
    at = AppTest.from_file(APP, default_timeout=300).run()
    next(b for b in at.button if b.key == "run").click().run()
    assert not at.exception and at.session_state["result"] is not None
    assert _cancels(at) == []


def _script() -> None:
    import streamlit as st

    from dashboard.components.run_progress import cancel_shown

    try:
        with cancel_shown("c", "stops it"):
            st.session_state["inside"] = True
            if st.session_state.get("fail"):
                raise RuntimeError("the run failed")
    except RuntimeError:
        st.error("failed")
    if not st.session_state.get("fail"):
        with cancel_shown("kept", "stops it"):
            st.stop()  # the page as it stands while a run is in flight


def test_the_button_shows_in_flight_and_leaves_with_its_run() -> None:
    at = AppTest.from_function(_script).run()
    assert at.session_state["inside"]
    assert _cancels(at) == ["kept"]  # the first run ended: its Cancel gone; the second in flight
    at.session_state["fail"] = True
    at.run()
    assert at.error[0].value == "failed" and _cancels(at) == []

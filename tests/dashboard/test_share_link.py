"""The "Copy link" control (dashboard.components.share_link): offered on pages with results
only, its address decodes to the page and scenario shown, and opening it in a fresh session
shows the same numbers with no stray Cancel button left above them."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.links import LINK_PARAM, LinkState, decode_link, encode_link
from engine.config import (
    ClusterSpec,
    NodeGroup,
    PolicySpec,
    ScenarioConfig,
    SyntheticSpec,
    TraceSpec,
)

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
SMALL = ScenarioConfig(
    trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(30, 30.0)),
    cluster=ClusterSpec((NodeGroup("v100", 2, 4, "rack0"),)),
    policies=(PolicySpec("fifo"), PolicySpec("las")),
)


@pytest.fixture(autouse=True)
def _store(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("GPUSCHED_STORE", str(tmp_path / "store"))


def open_link(text: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params[LINK_PARAM] = text
    return at.run()


def copied(at: AppTest) -> str:
    """The address in the Copy link box (the one code element holding a link)."""
    (address,) = [c.value for c in at.code if f"?{LINK_PARAM}=" in c.value]
    return address


def kpis(at: AppTest) -> list[pd.DataFrame]:
    """The Results page's tables (the KPI groups come first)."""
    return [d.value for d in at.dataframe]


def test_a_page_without_results_offers_no_link() -> None:
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception
    assert not [c for c in at.code if f"?{LINK_PARAM}=" in c.value]
    at.switch_page("app_pages/results.py").run()
    assert not [c for c in at.code if f"?{LINK_PARAM}=" in c.value]


def test_the_copied_link_opens_the_same_numbers_and_no_stray_cancel() -> None:
    sender = open_link(encode_link(LinkState({"base": SMALL}, "base", page="results")))
    assert not sender.exception and sender.session_state["result"] is not None
    assert not [b for b in sender.button if b.key == "cancel_link_run"]  # cleared after the run
    address = copied(sender)
    parts = urlsplit(address)
    assert parts.path == "/results"  # AppTest has no browser address: a relative one
    link = decode_link(parse_qs(parts.query)[LINK_PARAM][0])
    assert link.page == "results" and link.results_scenario == "base"
    assert link.scenarios["base"] == SMALL
    words = " ".join(m.value for m in sender.markdown)
    assert "Opens this page with the scenario(s) **base**" in words
    assert "runs **base** again with its seed, which gives these same numbers" in words
    receiver = open_link(parse_qs(parts.query)[LINK_PARAM][0])
    assert not receiver.exception
    shown, again = kpis(sender), kpis(receiver)
    assert shown and len(shown) == len(again)
    for a, b in zip(shown, again, strict=True):
        pd.testing.assert_frame_equal(a, b)

"""The Planner's number settings have one declaration each (issue 36: one declaration per
field): every number widget on the page takes its min and max from
``page_settings.NUMBER_RANGES``, the range the link vetting holds a link's value to."""

from __future__ import annotations

import dataclasses

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import page_settings
from engine.config import FailureConfig
from tests.dashboard.test_study_pages import APP, SMALL, TIMEOUT_S, load_small

DECLARED = {"plan_target_jct_mean_s", "plan_target_start_within_share", "plan_within_h",
            "plan_confidence", "plan_max_seeds", "plan_max_spares", "plan_power_cap_kw",
            "plan_years", "plan_electricity_usd_per_kwh"}  # fmt: skip


def _planner() -> AppTest:
    """The Planner on a scenario with failures on (so its spares input is drawn), ownership
    objective chosen; each target drawn once (a target's input shows for its metric only)."""
    failing = dataclasses.replace(SMALL, failures=FailureConfig(enabled=True))
    at = load_small(AppTest.from_file(APP, default_timeout=TIMEOUT_S).run(), failing)
    at.switch_page("app_pages/planner.py").run()
    at.selectbox(key="plan_objective").set_value("ownership").run()
    assert not at.exception
    return at


def _ranges(at: AppTest) -> dict[str, tuple[float, float]]:
    """The (min, max) of every number input and slider on the page, by key."""
    widgets = [*at.number_input, *at.slider]
    return {str(w.key): (w.min, w.max) for w in widgets if str(w.key).startswith("plan_")}


def _declared(key: str) -> tuple[float, float]:
    bounds = page_settings.widget_range(key)
    return bounds["min_value"], bounds["max_value"]


def test_every_planner_number_widget_takes_the_declared_range() -> None:
    at = _planner()
    shown = _ranges(at)
    at.selectbox(key="plan_metric").set_value("start_within_share").run()
    shown.update(_ranges(at))
    shown.pop("plan_seeds")  # the study pages' seed count: SEED_RANGE (test_seam)
    fills = {k: shown.pop(k) for k in list(shown) if k.startswith("plan_fill:")}
    assert set(shown) == DECLARED
    assert fills  # the ownership objective asks each candidate's purchase price
    for key, bounds in fills.items():  # plan_fill:<column>:<type>: the candidates column's
        assert bounds == page_settings.CANDIDATE_RANGES[key.split(":")[1]], key
    for key, bounds in shown.items():
        assert bounds == _declared(key), key
    assert shown["plan_target_start_within_share"] == (0.01, 100.0)  # a share in %
    assert shown["plan_max_seeds"] == (2, 50)


def test_a_moved_range_moves_the_widget_and_the_link_vetting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(page_settings.NUMBER_RANGES, "plan_years", (float, 1.0, 9.0))
    monkeypatch.setitem(page_settings.NUMBER_RANGES, "plan_max_seeds", (int, 3, 7))
    at = _planner()
    assert at.number_input(key="plan_years").min == 1.0
    assert at.number_input(key="plan_years").max == 9.0
    seeds = at.number_input(key="plan_max_seeds")
    assert (seeds.min, seeds.max) == (3, 7)
    assert page_settings.check_setting("plan_years", 9.0) == ""
    assert page_settings.check_setting("plan_years", 10.0) == "expected a float from 1 to 9"
    assert page_settings.check_setting("plan_max_seeds", 8) == "expected a int from 3 to 7"


def test_a_link_share_target_over_100_percent_is_refused() -> None:
    """The share's own declaration (at most 100%) is what the vetting reads."""
    assert page_settings.check_setting("plan_target_start_within_share", 100.0) == ""
    assert page_settings.check_setting("plan_target_start_within_share", 100.5) != ""
    assert page_settings.check_setting("plan_target_jct_mean_s", 100.5) == ""

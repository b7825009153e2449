"""The dashboard's state flows one way: widgets edit the named scenarios, nothing converts back.

The widgets' keys are only a cache of the current scenario: dropping all of them (as Streamlit
does for a page not shown) loses no setting, and every widget is drawn again from the scenario.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.session_keys import POLICY_PICKER, default_scenario
from dashboard.state import get_field, with_field
from dashboard.state_fields import FIELDS, TABLES
from engine.config import ScenarioConfig
from engine.policies.base import display_name
from engine.presets import cluster_2026_scenario
from engine.quota.model import (
    ClusterQueue,
    Cohort,
    FlavorQuota,
    LocalQueue,
    Preemption,
    QueueConfig,
)

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
TIMEOUT_S = 120
QUEUES = QueueConfig(
    cluster_queues=(
        ClusterQueue("a", (FlavorQuota("v100", 8, None, 2), FlavorQuota("k80", 4, 8)), "org",
                     preemption=Preemption("LowerPriority", "Any", "LowerPriority", 10)),
        ClusterQueue("b", (FlavorQuota("v100", 0),), "org", fair_weight=2.0),
    ),
    cohorts=(Cohort("org", "root", (FlavorQuota("p100", 4),)), Cohort("root")),
    local_queues=(LocalQueue("team-a", "a", "ns-a"), LocalQueue("b", "b")),
)  # fmt: skip
"""Queues with every field the Teams page's tables show or keep."""


def _config_for(path: str, config: ScenarioConfig) -> ScenarioConfig:
    """``config``, with queues when ``path`` is a field of them (None without teams)."""
    return with_field(config, "queues", QUEUES) if path.startswith("queues") else config


@pytest.mark.parametrize("key", sorted(FIELDS))
def test_each_widget_edits_a_field_of_the_scenario(key: str) -> None:
    """Its field exists, and the widget value it shows reads back as the same field value."""
    field = FIELDS[key]
    config = _config_for(field.path, default_scenario())
    value = get_field(config, field.path)
    if key in ("fail_young", "fail_checkpoint_interval_s", "source_kind"):
        return  # these read the session too: the app test below edits them
    assert field.read(field.show(value)) == value
    assert get_field(with_field(config, field.path, value), field.path) == value


@pytest.mark.parametrize("config", [ScenarioConfig(), cluster_2026_scenario(0)])
@pytest.mark.parametrize("key", sorted(TABLES))
def test_each_table_reads_back_as_its_field(key: str, config: ScenarioConfig) -> None:
    table = TABLES[key]
    config = _config_for(table.path, config)
    value = get_field(config, table.path)
    read = table.from_frame(table.to_frame(value))
    assert (read if table.into is None else table.into(value, read)) == value


def test_dropping_every_widget_value_loses_no_setting() -> None:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    at.number_input(key="seed").set_value(7).run()
    at.number_input(key="round_duration_s").set_value(900.0).run()
    at.radio(key="source_kind").set_value("Synthetic").run()
    at.number_input(key="num_jobs").set_value(350).run()
    at.multiselect(key=POLICY_PICKER).set_value(["las", "fifo"]).run()
    at.toggle(key="fail_enabled").set_value(True).run()
    at.toggle(key="fail_young").set_value(False).run()
    assert not at.exception
    edited = at.session_state["scenarios"]["base"]
    assert edited.seed == 7 and edited.rounds.round_duration_s == 900.0
    assert edited.trace.source == "synthetic" and edited.trace.synthetic.num_jobs == 350
    assert [p.name for p in edited.policies] == ["las", "fifo"]
    assert edited.failures.enabled and edited.failures.checkpoint_interval_s == 3600.0

    at.switch_page("app_pages/fairness.py").run()
    at.switch_page("app_pages/scenario.py").run()
    assert not at.exception
    assert at.session_state["scenarios"]["base"] == edited
    assert at.number_input(key="seed").value == 7
    assert at.number_input(key="num_jobs").value == 350
    assert at.multiselect(key=POLICY_PICKER).value == ["las", "fifo"]
    assert at.toggle(key="fail_young").value is False


def test_a_session_holds_its_scenario_before_any_widget_is_drawn() -> None:
    """A session opened on a page without the scenario's widgets: the scenario is there, and no
    widget value stands for it."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.switch_page("app_pages/fairness.py").run()
    assert not at.exception
    assert at.session_state["scenarios"] == {"base": default_scenario()}
    assert not [k for k in [*FIELDS, *TABLES, POLICY_PICKER] if k in at.session_state]


def test_a_policy_copy_is_added_and_removed_in_the_scenario() -> None:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    at.text_input(key="copy_label.las").set_value("LAS 2").run()
    next(b for b in at.button if b.key == "copy.las").click().run()
    labels = [display_name(p) for p in at.session_state["scenarios"]["base"].policies]
    assert labels[-1] == "LAS 2" and len(labels) == 4
    next(b for b in at.button if b.key == "uncopy.LAS 2").click().run()
    assert not at.exception
    assert len(at.session_state["scenarios"]["base"].policies) == 3
    assert not [b for b in at.button if b.key == "uncopy.LAS 2"]

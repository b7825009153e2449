"""The policy form says when a policy ignores the scenario's placement setting (issue 13)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.dashboard.test_pages import APP, TIMEOUT_S

NOTE = "Ignores the scenario's placement setting"


def test_a_node_pinning_policy_says_it_ignores_the_placement_setting() -> None:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    at.multiselect(key="policies").set_value(["dally", "hadare"]).run()
    assert not at.exception
    notes = [c.value for c in at.caption if c.value.startswith(NOTE)]
    assert notes == [f"{NOTE}: Forks each job into one copy per node, on nodes its per-node "
                     "prices choose."]  # fmt: skip

"""The pool's run order reads each policy's own cost figure (``Policy.cost_s_per_job``), not a
table of policy names in the dashboard (issue 36)."""

from __future__ import annotations

import pytest

from dashboard import run_order
from engine.policies import get_policy, list_policies


def test_the_costliest_policy_runs_first_by_its_own_figure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_order, "_seen_s_per_job", {})
    assert get_policy("sampling_placement").cost_s_per_job > get_policy("las").cost_s_per_job
    assert get_policy("las").cost_s_per_job > get_policy("fifo").cost_s_per_job > 0
    assert run_order.longest_first(["fifo", "sampling_placement", "las"], 1000) == [1, 2, 0]


def test_a_policy_without_a_figure_costs_the_median(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_order, "_seen_s_per_job", {})
    figures = sorted(
        get_policy(n).cost_s_per_job for n in list_policies() if get_policy(n).cost_s_per_job > 0
    )
    median = (figures[(len(figures) - 1) // 2] + figures[len(figures) // 2]) / 2
    assert run_order.estimate_s("no_such_policy", 100) == pytest.approx(100 * median)

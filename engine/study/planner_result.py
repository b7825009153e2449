"""The planner's answer (:class:`PlanResult`) and the Pareto front of the mixes it tried, built
by the search (`engine.study.planner_search`) for the question of `engine.study.planner_spec`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from engine.config import ClusterSpec, ScenarioConfig
from engine.study.planner_spec import PlanSpec


@dataclass(frozen=True)
class PlanResult:
    """The planner's answer.

    Attributes:
        tried: one row per cluster evaluated: mix (in words), ``nodes:<type>`` per candidate,
            cost_usd_per_h, seeds (how many), mean, ci_low, ci_high (the target metric's mean
            and 95% interval over seeds, `engine.study.stats.mean_ci`; seconds, or a fraction
            for the share target), bound (the one-sided bound at the spec's confidence), meets,
            today (True for today's cluster), phase ("today" | "start" | "search" | "refine"),
            error (why the policy could not run the mix, else ""); fresh_seeds, fresh_mean,
            fresh_bound and confirmed (True / False, None when not confirmed) of the
            confirmation on fresh seeds (`engine.study.planner_confirm`).
        pareto: the rows no other row beats or equals on both cost and mean (cost ascending).
        today: today's cluster's row (always evaluated, the reference; empty only if the
            budget stopped the plan before it).
        chosen: the cheapest cluster evaluated that met the target in the search and holds on
            the plan's fresh seeds (``PlanSpec.fresh_seeds``; None if none did); its row's
            ``fresh_seeds``, ``fresh_mean`` and ``fresh_bound`` say how it was confirmed.
        chosen_row: its row of ``tried`` (None if none).
        explanation: the search in plain words (hours, USD/h, GPU names).
        num_simulations: simulations run (stored runs reused are not counted).
    """

    spec: PlanSpec
    tried: pd.DataFrame
    pareto: pd.DataFrame
    today: Mapping[str, Any]
    chosen: ClusterSpec | None
    chosen_row: Mapping[str, Any] | None
    explanation: list[str] = field(default_factory=list)
    num_simulations: int = 0

    @property
    def chosen_scenario(self) -> ScenarioConfig | None:
        """The base scenario with the chosen mix as its cluster, and its spares when the plan
        searched them (to load in the dashboard)."""
        if self.chosen is None or self.chosen_row is None:
            return None
        spares = {t: int(self.chosen_row.get(f"spares:{t}", 0)) for t, _ in self.spec.spared()}
        return self.spec.with_cluster(self.chosen, spares)


def pareto_front(tried: pd.DataFrame, lower_is_better: bool = True) -> pd.DataFrame:
    """Rows of ``tried`` with a finite mean that no cheaper-or-equal row beats or equals on
    the mean, sorted by cost."""
    sign = 1.0 if lower_is_better else -1.0
    rows = tried[tried["mean"].notna()].assign(_m=lambda t: sign * t["mean"])
    rows = rows.sort_values(["cost_usd_per_h", "_m"], kind="mergesort")
    best = math.inf
    keep = []
    for index, value in rows["_m"].items():
        if value < best:
            keep.append(index)
            best = value
    return rows.loc[keep].drop(columns="_m").reset_index(drop=True)


PlanProgressFn = Callable[[int, str], None]  # (simulations so far, what the search is doing)

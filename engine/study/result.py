"""The results of a study: one long table keyed by (variant, policy, seed), with statistics."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import pandas as pd

from engine.results import RunResult
from engine.study.cost import cost_kpis, prices_with_defaults
from engine.study.stats import mean_ci, paired_test
from engine.study.study import Study

KEY_COLUMNS = ("variant", "policy", "seed")


@dataclass(frozen=True)
class StudyResult:
    """Every run of a study, in expansion order.

    Attributes:
        study: what ran.
        results: one RunResult per spec of ``expand(study)``, same order.
        reused: how many came from the result store instead of being simulated.
    """

    study: Study
    results: tuple[RunResult, ...]
    reused: int = 0
    prices: Mapping[str, float] = field(default_factory=dict)

    @cached_property
    def runs(self) -> pd.DataFrame:
        """One row per run: variant, policy, seed, trace_seed, key, the variant's axis values
        (one column per grid axis path), every summary metric and the cost KPIs
        (`engine.study.cost.cost_kpis` at the study's prices over the defaults)."""
        prices = prices_with_defaults({**self.study.prices, **self.prices})
        axes = {v.name: v.axes for v in self.study.all_variants()}
        rows = []
        for r in self.results:
            row: dict[str, object] = {
                "variant": r.spec.variant, "policy": r.spec.policy_label,
                "seed": r.spec.sim_seed, "trace_seed": r.spec.trace_seed, "key": r.spec.key(),
            }  # fmt: skip
            row.update({path: _scalar(v) for path, v in axes.get(r.spec.variant, {}).items()})
            row.update(r.summary)
            row.update(cost_kpis(r.summary, prices))
            rows.append(row)
        return pd.DataFrame(rows)

    def variants(self) -> list[str]:
        return [v.name for v in self.study.all_variants()]

    def stats(self, metric: str) -> pd.DataFrame:
        """Per (variant, policy): n, mean, ci_low, ci_high (95% over seeds on the log scale for
        a non-negative metric, see `engine.study.stats.mean_ci`)."""
        columns = ["variant", "policy", "n", "mean", "ci_low", "ci_high"]
        rows = [(v, p, *mean_ci(g[metric].tolist())) for (v, p), g in self._groups()]
        return pd.DataFrame(rows, columns=columns)

    def paired(self, metric: str, baseline: str | None = None) -> pd.DataFrame:
        """Per (variant, policy) other than the baseline variant: the paired difference
        variant - baseline on the same seeds (same policy label): n, mean_diff, ci_low,
        ci_high, p_value (see `engine.study.stats.paired_test`)."""
        base_name = baseline or self.study.baseline_name
        runs = self.runs
        base = runs[runs["variant"] == base_name].set_index(["policy", "seed"])[metric]
        rows = []
        for (v, p), g in self._groups():
            if v == base_name:
                continue
            ref = [base.get((p, s), float("nan")) for s in g["seed"]]
            rows.append({"variant": v, "policy": p, **paired_test(g[metric].tolist(), ref)})
        columns = ["variant", "policy", "n", "mean_diff", "ci_low", "ci_high", "p_value"]
        return pd.DataFrame(rows, columns=columns)

    def jobs(self) -> pd.DataFrame:
        """All per-job tables, with variant, policy and seed columns first (for overlaid CDFs)."""
        frames = [
            r.jobs.assign(variant=r.spec.variant, policy=r.spec.policy_label, seed=r.spec.sim_seed)
            for r in self.results
        ]
        if not frames:
            return pd.DataFrame(columns=list(KEY_COLUMNS))
        out = pd.concat(frames, ignore_index=True)
        return out[list(KEY_COLUMNS) + [c for c in out.columns if c not in KEY_COLUMNS]]

    def _groups(self) -> Sequence[tuple[tuple[str, str], pd.DataFrame]]:
        runs = self.runs
        order = {name: i for i, name in enumerate(self.variants())}
        groups = [
            ((str(v), str(p)), g) for (v, p), g in runs.groupby(["variant", "policy"], sort=False)
        ]
        groups.sort(key=lambda item: order.get(item[0][0], len(order)))
        return groups


def _scalar(value: object) -> object:
    return value if isinstance(value, int | float | str | bool) else json.dumps(value)

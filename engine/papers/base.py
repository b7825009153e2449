"""The paper-preset contract: a scenario builder plus the paper's claims, stated as ratios.

A :class:`Claim` says "on ``metric``, ``policy`` beats ``baseline`` by ``claimed_ratio``", with
the ratio oriented so that > 1 means the paper's policy is better (baseline / policy for
lower-is-better metrics such as JCT, policy / baseline for utilization). :func:`claims_table`
puts the claim beside what a simulation shows. A preset whose simulation does not show a claim
says so in ``not_shown``; it is never tuned until the claim appears.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from engine.config import ClusterSpec, NodeGroup, ScenarioConfig, SyntheticSpec, TraceSpec
from engine.metrics import METRICS
from engine.registry import Registry
from engine.results import ComparisonResult, SimulationResult

DECISION_TIME = "decision_time_mean_s"
"""Pseudo-metric: wall time per policy call (s); not in the summary because it is not
deterministic."""


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, as a ratio between two policies of the preset's scenario.

    Attributes:
        text: the claim in the paper's words, e.g. "1.20x shorter makespan than Gavel".
        metric: a key of :data:`engine.metrics.METRICS` or :data:`DECISION_TIME`.
        policy: display name of the paper's policy in the scenario.
        baseline: display name of the baseline it is compared with.
        claimed_ratio: the paper's figure, oriented so that > 1 favours ``policy``.
        tolerance: for "within x%" claims (e.g. sampled vs exact JCT), the largest
            shortfall that still counts as shown: the claim holds when the simulated ratio is
            >= 1 - tolerance. 0 means the direction must hold (ratio > 1).
    """

    text: str
    metric: str
    policy: str
    baseline: str
    claimed_ratio: float
    tolerance: float = 0.0

    def verdict(self, ratio: float) -> str:
        """ "shown", "direction only" or "not shown", weighing the size of the effect.

        A "within x%" claim (``tolerance``) is shown when it holds. Otherwise the claim is shown
        when the simulated gain reaches at least half the paper's, ``ratio - 1 >= (claimed - 1)
        / 2`` [R: our threshold], "direction only" when the policy is better by less, and "not
        shown" when it is not better (or a policy is missing).
        """
        if not self.holds(ratio):
            return "not shown"
        if self.tolerance or ratio - 1 >= (self.claimed_ratio - 1) / 2:
            return "shown"
        return "direction only"

    def holds(self, ratio: float) -> bool:
        """Whether a simulated ratio shows the claim's direction."""
        if math.isnan(ratio):
            return False
        return ratio >= 1 - self.tolerance if self.tolerance else ratio > 1


@dataclass(frozen=True)
class PaperPreset:
    """A paper's setup as a scenario, with its claims.

    Attributes:
        name: shown in the dashboard, e.g. "Hadar (IPDPS 2024)".
        citation: authors, venue, year, DOI.
        setup: what the scenario is, and where it departs from the paper's setup.
        build: seed -> the scenario (trace, GPU mix, network, policies with labels).
        claims: the paper's claims, naming policies by their labels in the scenario.
        not_shown: plain statement of which claims the simulation does not show, and why
            (empty when all are shown).
    """

    name: str
    citation: str
    setup: str
    build: Callable[[int], ScenarioConfig]
    claims: tuple[Claim, ...]
    not_shown: str = ""


PAPERS: Registry[PaperPreset] = Registry("paper preset")
"""Every paper preset by its name (filled by importing :mod:`engine.papers`)."""


def list_paper_presets() -> list[str]:
    """Registered paper preset names, sorted."""
    return sorted(PAPERS.names())


def get_paper_preset(name: str) -> PaperPreset:
    """The preset registered as ``name``.

    Raises:
        ConfigError: for an unknown name (listing the known ones).
    """
    return PAPERS.get(name)


def metric_value(result: SimulationResult, metric: str) -> float:
    """A summary metric of one policy's result, or the mean decision time for DECISION_TIME."""
    if metric == DECISION_TIME:
        return result.decision_time_s / max(1, result.num_decisions)
    return float(result.summary.get(metric, math.nan))


def simulated_ratio(claim: Claim, comparison: ComparisonResult) -> float:
    """The claim's ratio as simulated (> 1 favours the paper's policy); NaN if a policy is
    missing from the comparison."""
    by_name = {r.policy: r for r in comparison.results}
    if claim.policy not in by_name or claim.baseline not in by_name:
        return math.nan
    ours = metric_value(by_name[claim.policy], claim.metric)
    theirs = metric_value(by_name[claim.baseline], claim.metric)
    lower_is_better = claim.metric == DECISION_TIME or METRICS[claim.metric].lower_is_better
    numerator, denominator = (theirs, ours) if lower_is_better else (ours, theirs)
    return numerator / denominator if denominator > 0 else math.nan


def claims_table(preset: PaperPreset, comparison: ComparisonResult) -> pd.DataFrame:
    """One row per claim: claim, metric, policy, baseline, claimed_ratio, simulated_ratio,
    shown (whether the simulation shows the claim's direction), verdict (:meth:`Claim.verdict`),
    policy_value, baseline_value (the metric of each, in its METRICS unit)."""
    rows = []
    by_name = {r.policy: r for r in comparison.results}
    for claim in preset.claims:
        ratio = simulated_ratio(claim, comparison)
        values = [
            metric_value(by_name[name], claim.metric) if name in by_name else math.nan
            for name in (claim.policy, claim.baseline)
        ]
        rows.append(
            (claim.text, claim.metric, claim.policy, claim.baseline, claim.claimed_ratio, ratio,
             claim.holds(ratio), claim.verdict(ratio), *values)
        )  # fmt: skip
    columns = [
        "claim", "metric", "policy", "baseline", "claimed_ratio", "simulated_ratio", "shown",
        "verdict", "policy_value", "baseline_value",
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def synthetic_trace(num_jobs: int, jobs_per_hour: float) -> TraceSpec:
    """Gavel's Philly-derived synthetic job mix with Poisson arrivals (engine.traces.synthetic)."""
    return TraceSpec(
        source="synthetic",
        synthetic=SyntheticSpec(num_jobs=num_jobs, jobs_per_hour=jobs_per_hour),
    )


def three_type_cluster() -> ClusterSpec:
    """24 GPUs in 4-GPU nodes: 8 V100 and 8 P100 in rack0, 8 K80 in rack1 (the heterogeneous
    testbeds of the Hadar, Hare and sampling papers, scaled down)."""
    return ClusterSpec(
        (
            NodeGroup("v100", 2, 4, "rack0"),
            NodeGroup("p100", 2, 4, "rack0"),
            NodeGroup("k80", 2, 4, "rack1"),
        )
    )

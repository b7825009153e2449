"""The planner's targets: which number of a run is judged, in which direction, and how it reads.

- ``jct_mean_s``, ``jct_p95_s``, ``queueing_delay_mean_s``: the run's summary KPI
  (`engine.metrics`), seconds, at most the target.
- ``worst_team_queueing_p95_s``: under teams' queues (`engine.quota`), the largest of the
  ClusterQueues' p95 queueing delays ("every team's p95 wait at most T"), seconds, at most.
- ``start_within_share``: the share of the trace's jobs whose queueing delay (first start -
  arrival, `engine.results` jobs table) is at most ``start_within_s``; a job that never starts
  counts as late. At least the target ("95% of jobs start within 1 h").

A mix *meets* the target when the one-sided bound of the mean over seeds at the plan's
confidence (`engine.study.stats.mean_bound`: the upper bound for "at most", the lower bound for
"at least") is on the target's side; at 50% confidence the bound is the mean.

**Not worse than today's** (``versus_today``, off unless set; the Planner page's blank target,
issue 38): the judged number of a mix on a seed is its metric minus today's cluster's on the
same seed (a paired comparison: both see the same jobs), and the mix meets the target when the
one-sided bound of the mean difference (plain Student's t, `engine.study.stats.t_bound`: the
differences may be negative) is at most ``value``, the margin (seconds; 0 by default: "not
worse than today's"); for the share, at least ``-value``. Today's cluster meets it by
construction (every difference is 0).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from engine.errors import ConfigError
from engine.study.stats import mean_bound, t_bound

if TYPE_CHECKING:
    from engine.results import RunResult

TARGET_METRICS = (
    "jct_mean_s", "jct_p95_s", "queueing_delay_mean_s", "start_within_share",
    "worst_team_queueing_p95_s",
)  # fmt: skip
TEAM_P95 = "team_queueing_p95_s:"  # the per-team summary KPIs (engine.quota.results)
_WORDS = {  # metric -> (label, display unit, seconds or fraction per display unit)
    "jct_mean_s": ("mean JCT", "h", 3600.0),
    "jct_p95_s": ("p95 JCT", "h", 3600.0),
    "queueing_delay_mean_s": ("mean queueing delay", "min", 60.0),
    "start_within_share": ("share of jobs starting within T", "%", 0.01),
    "worst_team_queueing_p95_s": ("every team's p95 queueing delay", "h", 3600.0),
}


def gpu_name(worker_type: str) -> str:
    """A worker type as people write it: ``"v100"`` -> ``"V100"``."""
    return worker_type.upper()


def percent(confidence: float) -> str:
    """A confidence as people write it: ``0.95`` -> ``"95%"``, ``0.975`` -> ``"97.5%"``."""
    return f"{confidence * 100:.4g}%"


def within_words(seconds: float) -> str:
    """T of the share target: "1 h", "1.5 h", "30 min"."""
    return f"{seconds / 3600:g} h" if seconds >= 3600 else f"{seconds / 60:g} min"


@dataclass(frozen=True)
class Target:
    """A target: metric, value (seconds, or a fraction for the share), T for the share."""

    metric: str
    value: float
    start_within_s: float = 3600.0
    versus_today: bool = False

    def __post_init__(self) -> None:
        if self.metric not in TARGET_METRICS:
            raise ConfigError(f"target_metric must be one of {TARGET_METRICS}")
        if self.versus_today:
            top = 1.0 if self.metric == "start_within_share" else math.inf
            if not (0 <= self.value <= top and self.start_within_s >= 0):
                raise ConfigError("versus_today: target_value is the margin over today's, >= 0 "
                                  f"(a share at most 1), got {self.value}")  # fmt: skip
        elif self.metric == "start_within_share":
            if not (0 < self.value <= 1 and self.start_within_s >= 0):
                raise ConfigError("start_within_share: target_value is a share in (0, 1] and "
                                  "start_within_s >= 0")  # fmt: skip
        elif not self.value > 0:
            raise ConfigError(f"target_value must be > 0 seconds, got {self.value}")

    @property
    def at_most(self) -> bool:
        """True for "at most" targets (durations), False for the share (at least)."""
        return self.metric != "start_within_share"

    @property
    def label(self) -> str:
        """What is judged: "mean JCT", or with ``versus_today`` "mean JCT minus today's"."""
        return self.metric_label + (" minus today's" if self.versus_today else "")

    @property
    def metric_label(self) -> str:
        """The metric: "mean JCT", "share of jobs starting within 1 h"."""
        if self.metric == "start_within_share":
            return f"share of jobs starting within {within_words(self.start_within_s)}"
        return _WORDS[self.metric][0]

    @property
    def unit(self) -> str:
        """The display unit: h, min or %."""
        return _WORDS[self.metric][1]

    @property
    def per_unit(self) -> float:
        """Seconds (or fraction) per display unit."""
        return _WORDS[self.metric][2]

    def of_run(self, run: RunResult) -> float:
        """The judged number of one run (seconds, or a fraction)."""
        if self.metric == "worst_team_queueing_p95_s":
            teams = [v for k, v in run.summary.items() if k.startswith(TEAM_P95)]
            if not teams:
                raise ConfigError(
                    "target_metric worst_team_queueing_p95_s needs teams: the base scenario "
                    "has no queues"
                )
            return float(max(teams))
        if self.metric != "start_within_share":
            return float(run.summary[self.metric])
        delay = run.jobs["queueing_delay_s"].to_numpy(dtype=float)
        if delay.size == 0:
            return math.nan
        return float(np.mean(np.nan_to_num(delay, nan=math.inf) <= self.start_within_s))

    def bound(
        self,
        values: Sequence[float],
        confidence: float,
        worst: bool = True,
        at_n: int | None = None,
    ) -> float:
        """The one-sided bound on the target's bad side (``worst``), or on its good side; with
        ``at_n``, the bound the values' mean and spread would give on that many seeds."""
        bound = t_bound if self.versus_today else mean_bound
        return bound(values, confidence, upper=worst == self.at_most, at_n=at_n)

    @property
    def goal(self) -> float:
        """The number the bound is held to: ``value``, or ``-value`` for the share against
        today's (its margin below today's)."""
        return -self.value if self.versus_today and not self.at_most else self.value

    def meets(self, bound: float) -> bool:
        if math.isnan(bound):
            return False
        return bound <= self.goal if self.at_most else bound >= self.goal

    def violation(self, bound: float) -> float:
        """How far a bound misses the target, relative to it (<= 0 when it meets it); 10 for
        no bound (a mix the policy cannot run) [R: a constant larger than any real miss]."""
        if math.isnan(bound):
            return 10.0
        miss = bound - self.goal if self.at_most else self.goal - bound
        scale = self.per_unit if self.versus_today else self.value  # [R] a margin may be 0
        return min(10.0, miss / scale)

    def words(self, value: float) -> str:
        """A value of the metric in its display unit: "3.62 h", "12.50 min", "94.1%"."""
        return self.metric_words(value, "+" if self.versus_today else "")  # signed: a difference

    def metric_words(self, value: float, sign: str = "") -> str:
        """A value of the metric itself in its display unit (``sign`` "+" to sign it)."""
        if math.isnan(value):
            return "n/a"
        shown = value / self.per_unit
        return f"{shown:{sign},.1f}%" if self.unit == "%" else f"{shown:{sign},.2f} {self.unit}"

    def sure_words(self, bound: float, confidence: float) -> str:
        """The bound in a meeting's words [R]: "we are 95% sure the mean JCT is below 4.60 h"
        (for the share: "... at least 91.2% of jobs start within 1 h"); "one seed, no bound
        yet" when ``bound`` is NaN."""
        if math.isnan(bound):
            return "one seed, no bound yet"
        if self.versus_today:
            return self._today_words(bound, confidence)
        if self.at_most:
            sure = percent(confidence)
            return f"we are {sure} sure the {self.label} is below {self.words(bound)}"
        return (f"we are {percent(confidence)} sure at least {self.words(bound)} of jobs start "
                f"within {within_words(self.start_within_s)}")  # fmt: skip

    def _today_words(self, bound: float, confidence: float) -> str:
        """E.g. "we are 95% sure the mean JCT is at most 0.12 h above today's on the same
        seeds" (a bound of +0.12 h on the mean difference), "... at least 0.30 h below ..."."""
        if bound == 0:
            return (f"we are {percent(confidence)} sure the {self.metric_label} is no worse than "
                    "today's on the same seeds")  # fmt: skip
        shown = abs(bound) / self.per_unit
        size = f"{shown:,.1f} points" if self.unit == "%" else f"{shown:,.2f} {self.unit}"
        worse = (bound > 0) == self.at_most  # the bound lies on the worse side of today's
        side = ("above" if bound > 0 else "below") + " today's on the same seeds"
        how = "at most" if worse else "at least"
        words = f"{how} {size} {side}".strip()
        return f"we are {percent(confidence)} sure the {self.metric_label} is {words}"

    def sentence(self) -> str:
        """E.g. "mean JCT at most 4.00 h" or "at least 95.0% of jobs start within 1 h"; against
        today's: "mean JCT no worse than today's cluster's on the same seeds"."""
        if self.versus_today:
            margin = f" (by at most {self.words(self.value)[1:]})" if self.value else ""
            return f"{self.metric_label} no worse than today's cluster's on the same seeds{margin}"
        if self.at_most:
            return f"{self.label} at most {self.words(self.value)}"
        return (
            f"at least {self.words(self.value)} of jobs start within "
            f"{within_words(self.start_within_s)}"
        )

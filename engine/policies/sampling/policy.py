"""Sampling-based multi-job placement with matching markets.

Liu, Wang, Huang, Pan, "Sampling-Based Multi-Job Placement for Heterogeneous Deep Learning
Clusters", IEEE TPDS 35(6), 2024, doi 10.1109/TPDS.2024.3390109. Only the abstract was available;
the rules below follow shared/docs/schedulers.md, section A. [P] from the abstract: minimize the
average JCT of jobs placed on heterogeneous workers, with job sizing and load balancing, by
proportional workload assignment, feasible-solution categories, matching markets and sampling
of the categories. Reconstructions [R]:

- **Proportional assignment.** A job's global batch (``scale_factor`` worker-batches) is split
  over its workers in proportion to their throughput: ``Grant.of_parts(..., "proportional")``,
  whose step time the engine models (:mod:`engine.step_time.progress`). A job on its full scale
  factor
  of one type gets a plain gang grant instead (the same split, at the measured rate).
- **Category**: a worker count per job, ``1 <= n_i <= scale_factor_i`` (also capped by the GPUs
  of the types it fits), ``sum n_i <= K`` GPUs (:mod:`engine.policies.sampling.categories`).
- **Matching market per category**: each job becomes ``n_i`` slots; slots are matched to workers
  by maximum-weight bipartite assignment (``linear_sum_assignment``, or an exact class-level
  solver on large clusters), valuing a worker at the job's one-GPU throughput (steps/s) on it:
  the ascending-price auction's outcome (:mod:`engine.policies.sampling.matching`). Slots only an
  unusable type could take stay empty. Which of the jobs with equal valuations gets which of
  their workers is a tie for the market: running jobs of unchanged size keep their GPUs where
  the share allows (no restart), and the rest take the fastest types biggest job first
  (remaining work; by the rearrangement inequality this minimizes the sum of work / speed), in
  contiguous runs so few jobs mix types.
- **Evaluation** of each category's matching with the engine's step-time model and the
  scenario's throughput matrix (compute + measured sync + ring all-reduce on the slowest link,
  which the policy estimates since the placement strategy picks the nodes;
  :mod:`engine.policies.sampling.model`). A job's
  estimated JCT is the restart it pays (checkpoint-restore cost if its GPUs change, or it
  resumes after a preemption) plus remaining steps / rate; the time it has already spent is the
  same in every category and left out. A job the market left without GPUs counts as finishing
  after the slowest placed job plus its ideal time.
- **Score** ``beta * mean + (1 - beta) * (1 - Jain) * mean`` of those JCTs; Jain's index is
  taken over each job's speed relative to its ideal (remaining steps over ``scale_factor`` GPUs
  of its fastest type, no sync), as in :mod:`engine.metrics`. The lowest score wins (ties: the
  first category scored).
- **Modes**: ``exact`` enumerates every category (falling back to sampling beyond
  :data:`EXACT_MAX_CATEGORIES`); ``sampled`` draws ``num_samples`` (half uniform, half biased
  to bigger jobs) plus, with ``include_current``, the running jobs' current sizes; ``auto`` is
  exact when there are at most ``exact_limit`` categories; ``equal_split`` scores only the GPUs
  divided evenly among the jobs (the paper's baseline; it still places through the market).
- **Online use**: re-plans at every arrival and completion (preemptive, no rounds); a job whose
  GPUs change pays the checkpoint-restore cost. With more jobs than GPUs, the ``K`` jobs of
  shortest ideal remaining time get one or more workers and the rest wait (SRTF-like).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from engine.errors import ConfigError
from engine.policies.base import (
    POLICIES,
    Allocation,
    Grant,
    Part,
    Policy,
    PolicyContext,
    SchedulerState,
)
from engine.policies.explain import Explanation
from engine.policies.sampling.categories import (
    count_categories,
    enumerate_categories,
    equal_split,
    fit_budget,
    sample_categories,
    unique_rows,
)
from engine.policies.sampling.model import bandwidths, link_model
from engine.policies.sampling.plan import Plan, build_plan, score_categories
from engine.policies.sampling.table import JobTable
from engine.state import JobState

MODES = ("auto", "exact", "sampled", "equal_split")
MODE_HELP = (
    "auto (exact when categories <= exact_limit, else sampled), exact, sampled, or equal_split "
    "(GPUs divided evenly: the paper's baseline)"
)
EXACT_MAX_CATEGORIES = 100_000
"""Exact mode samples instead when a decision has more categories than this."""
CHUNK = 2048  # categories scored at once


class SamplingExplanation(Explanation):
    """Sampling placement's rule (its categories and estimates are not in the run's records)."""

    rule: ClassVar[str] = (
        "Sampling placement tries worker counts per job, matches jobs to GPUs by throughput "
        "in each, and keeps the plan with the least estimated average JCT."
    )


class SamplingPlacement(Policy):
    """Sampling-based placement (Liu et al., TPDS 2024): job sizing by sampled categories,
    worker types by matching markets, proportional batch split; minimizes mean JCT.

    Re-plans at every arrival and completion; see the module docstring for the reconstructions.
    """

    explanation: ClassVar[type[Explanation]] = SamplingExplanation

    cost_s_per_job: ClassVar[float] = 0.00303  # run order: bench_select_all.py

    display_name = "Sampling placement"
    group = "Seed papers"

    preemptive = True
    uses_rounds = False

    @dataclass(frozen=True)
    class Params:
        mode: str = field(default="auto", metadata={"help": MODE_HELP})
        num_samples: int = field(
            default=64, metadata={"help": "Categories drawn per decision in sampled mode (N)"}
        )
        beta: float = field(
            default=1.0,
            metadata={"help": "Score = beta*meanJCT + (1-beta)*(1-Jain)*meanJCT; 1 = JCT only"},
        )
        exact_limit: int = field(
            default=256, metadata={"help": "Auto mode enumerates all categories up to this many"}
        )
        include_current: bool = field(
            default=True,
            metadata={"help": "Sampled mode also scores the running jobs' current sizes"},
        )

    def __init__(self, params: Params, context: PolicyContext) -> None:
        super().__init__(params, context)
        if params.mode not in MODES:
            raise ConfigError(
                f"sampling_placement: mode must be one of {MODES}, got {params.mode!r}"
            )
        if params.num_samples < 1 or params.exact_limit < 1 or not 0.0 <= params.beta <= 1.0:
            raise ConfigError(
                "sampling_placement: num_samples and exact_limit must be >= 1, beta in [0, 1]"
            )
        capacity = context.cluster.capacity()
        self.types = sorted(wt for wt, count in capacity.items() if count > 0)
        self.capacity = np.array([capacity[wt] for wt in self.types], dtype=np.int64)
        self.net = context.network
        self.links = link_model(context.cluster, self.types)
        self.matrix = context.matrix
        self._table = JobTable(self.types, self.net, self.matrix)
        self._steady_bw = None if self.net.congestion else bandwidths(self.links, self.net, 0.0)
        """The bandwidths at every time when no congestion episode is scheduled."""
        self.last_categories = 0
        """Categories scored by the latest decision (for tests and benchmarks)."""
        self.last_score = float("nan")
        """The winning category's score (s) at the latest decision."""

    def allocate(self, state: SchedulerState) -> Allocation:
        jobs = [*state.waiting, *state.running]
        if not jobs:
            return {}
        restore_s = self.context.rounds.checkpoint_restore_s
        plan = build_plan(jobs, self._table, self.capacity, state.now_s, restore_s)
        bw = self._steady_bw
        if bw is None:
            bw = bandwidths(self.links, self.net, state.now_s)
        best, best_score, scored = None, np.inf, 0
        for categories in self._candidates(plan):
            result = score_categories(plan, categories, self.links, bw, self.net, self.params.beta)
            k = int(result.scores.argmin())
            scored += len(categories)
            if best is None or result.scores[k] < best_score:
                best, best_score = result.counts(k, plan.current), float(result.scores[k])
        self.last_categories, self.last_score = scored, best_score
        assert best is not None
        return self._grants(plan, best)

    def _candidates(self, plan: Plan) -> Iterator[np.ndarray]:
        """Categories to score, in chunks (see the module docstring's modes)."""
        upper, budget, mode = plan.upper, int(self.capacity.sum()), self.params.mode
        if mode == "equal_split":
            yield equal_split(upper, budget)
            return
        if not (upper > 1).any():
            yield np.ones((1, len(upper)), dtype=np.int64)
            return
        limit = EXACT_MAX_CATEGORIES if mode == "exact" else self.params.exact_limit
        if mode != "sampled" and count_categories(upper, limit) <= limit:
            yield from enumerate_categories(upper, budget, CHUNK)
            return
        drawn = sample_categories(
            self.context.rng, upper, plan.work, budget, self.params.num_samples
        )
        if self.params.include_current and plan.held.any():
            current = fit_budget(np.minimum(np.maximum(plan.held, 1), upper)[None, :], budget)
            drawn = unique_rows(np.vstack([current, drawn]))
        yield drawn

    def _grants(self, plan: Plan, counts: np.ndarray) -> Allocation:
        """Grants of the winning category, jobs in selection order."""
        allocation: Allocation = {}
        unchanged = (counts == plan.current).all(axis=1).tolist()
        for job, row, same in zip(plan.jobs, counts.tolist(), unchanged, strict=True):
            if job.grant is not None and same:
                allocation[job.index] = job.grant
            elif any(row):
                allocation[job.index] = self._grant(job, row)
        return allocation

    def _grant(self, job: JobState, row: list[int]) -> Grant:
        """A plain gang for the full scale factor on one type it is measured on, else a
        proportional grant of one part per type."""
        parts = [Part(wt, count) for wt, count in zip(self.types, row, strict=True) if count]
        only = parts[0].worker_type
        if len(parts) == 1 and parts[0].num_gpus == job.scale_factor and job.steps_per_s[only]:
            return Grant(only, job.scale_factor)
        return Grant.of_parts(parts, combine="proportional")


POLICIES.register("sampling_placement", SamplingPlacement)


class SamplingPlacementExact(SamplingPlacement):
    """Sampling-based placement in exact mode (Liu et al., TPDS 2024): every category scored.

    ``sampling_placement`` with ``mode="exact"`` by default, under its own name so that a
    scenario, and the dashboard, can set it beside the sampled mode.
    """

    cost_s_per_job: ClassVar[float] = 0.003005  # run order: bench_select_all.py

    display_name = "Sampling placement (exact)"
    group = "Seed papers"

    @dataclass(frozen=True)
    class Params(SamplingPlacement.Params):
        mode: str = field(default="exact", metadata={"help": MODE_HELP})


POLICIES.register("sampling_placement_exact", SamplingPlacementExact)


class SamplingPlacementEqualSplit(SamplingPlacement):
    """Equal split (the baseline of Liu et al., TPDS 2024): GPUs divided evenly among the jobs.

    ``sampling_placement`` with ``mode="equal_split"`` by default, under its own name so that a
    scenario, and the dashboard, can set it beside the sampled mode.
    """

    cost_s_per_job: ClassVar[float] = 0.00152  # run order: bench_select_all.py

    display_name = "Equal split"
    group = "Seed papers"

    @dataclass(frozen=True)
    class Params(SamplingPlacement.Params):
        mode: str = field(default="equal_split", metadata={"help": MODE_HELP})


POLICIES.register("sampling_placement_equal_split", SamplingPlacementEqualSplit)

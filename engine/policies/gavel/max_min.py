"""Gavel: max-min fairness over time shares, applied round by round.

Narayanan, Santhanam, Kazhamiaka, Phanishayee, Zaharia, "Heterogeneity-Aware Cluster Scheduling
Policies for Deep Learning Workloads", OSDI 2020 (code: stanford-futuredata/gavel, MIT).

A policy is an LP over ``X[job][worker_type]``, the share of time a job should spend on each type
(:mod:`engine.policies.gavel.lp`). Each round the *round mechanism* turns ``X`` into grants:
``priority[j, k] = X[j, k] / received[j, k]``, where ``received`` is the share of rounds the job
has had on type ``k`` so far; (job, type) pairs are taken in decreasing priority, and a job gets
``scale_factor`` GPUs of type ``k`` if it has none yet this round and ``k`` still has room.

The round mechanism is :class:`RoundMechanism`: our share rounds
(:mod:`engine.policies.gavel.share_rounds`, with the rank-then-grant rule of
:mod:`engine.policies.gavel.priority`) by default. Reconstructions [R]:

- ``received[j, k]`` = rounds job ``j`` held type ``k`` / rounds it has been in the system,
  counted from the job's arrival and never reset when the LP is re-solved (so the mechanism
  keeps rotating jobs when the LP is re-solved often). Never received and ``X > 0`` means
  infinite priority. Ties: larger ``X``, then arrival.
- The heterogeneity-aware form normalizes by ``X^equal``: time split over the types the job
  fits in proportion to their GPU counts (the paper's equal share; Gavel's code normalizes by
  its agnostic LP solution instead, which is degenerate).
- A job that arrives between solves has ``X = 0``: like Gavel it gets no share until the next
  solve, but with ``work_conserving`` (default) it may use GPUs left after all shares. Solves
  and mid-round passes: :mod:`engine.policies.gavel.share_rounds`.
- Exact LP over classes of identical jobs, plus a small efficiency term (see the LP module).

Under ``RoundConfig.gavel_rules`` (the Gavel-compatible preset) the policy instead runs Gavel's
own mechanism (:mod:`engine.policies.gavel.queues`: per-type queues, deficits, late arrivals
held back until the next solve) in Gavel's round loop (:mod:`engine.lease_rounds`), and solves
Gavel's program over every (job, type) pair with Gavel's solver, ECOS
(:mod:`engine.policies.gavel.ecos`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import numpy as np
from mypy_extensions import mypyc_attr

from engine.policies.base import (
    POLICIES,
    Allocation,
    Policy,
    PolicyContext,
    SchedulerState,
)
from engine.policies.explain import Explanation
from engine.policies.gavel.book import RoundBook
from engine.policies.gavel.class_lp import ClassMaxMin
from engine.policies.gavel.ecos import max_min_coefficients_all_pairs, max_min_shares
from engine.policies.gavel.explain import GavelShares
from engine.policies.gavel.highs import HighsSolver
from engine.policies.gavel.lp import max_min_coefficients
from engine.policies.gavel.queues import GavelQueues
from engine.policies.gavel.share_rounds import ShareRounds
from engine.state import JobState


class RoundMechanism(Protocol):
    """How a Gavel policy turns its time shares into each round's grants: our share rounds
    (:class:`~engine.policies.gavel.share_rounds.ShareRounds`) or, under ``gavel_rules``,
    Gavel's own queues (:class:`~engine.policies.gavel.queues.GavelQueues`)."""

    def allocate(self, state: SchedulerState) -> Allocation: ...

    def force_reallocation(self) -> None: ...


@mypyc_attr(allow_interpreted_subclasses=True)  # FTF's and min total duration's Params
@dataclass(frozen=True)
class GavelParams:
    """The Gavel round policies' shared knobs (:attr:`GavelMaxMin.Params`)."""

    work_conserving: bool = field(
        default=True,
        metadata={
            "help": "Give GPUs left after all LP shares to jobs without a share "
            "(not under Gavel's simulator rules)"
        },
    )
    efficiency_epsilon: float = field(
        default=1e-3,
        metadata={
            "help": "Weight of the LP's use-leftover-capacity tie-break (0 = off; not "
            "under Gavel's simulator rules)"
        },
    )


@mypyc_attr(allow_interpreted_subclasses=True)  # Gavel FIFO, FTF, min total duration
class GavelMaxMin(Policy):
    """Gavel's max-min fairness (least attained service across jobs), solved as an LP."""

    # Compiled with mypyc: ClassVar attributes; the registered subclasses are registered after
    # their bodies with their docstrings, as engine.policies.base's module docstring says.
    preemptive: ClassVar[bool] = True
    uses_rounds: ClassVar[bool] = True
    needs_sync: ClassVar[bool] = False  # the LP and round priorities read no progress counters
    heterogeneity_aware: ClassVar[bool] = True
    explanation: ClassVar[type[Explanation]] = GavelShares
    lease_rounds: ClassVar[bool] = True  # runs in Gavel's round loop under gavel_rules
    forces_reallocation: ClassVar[bool] = True  # re-solves when that loop finds nothing to run
    skips_zero_priority: ClassVar[bool] = False  # Gavel's FIFO rule in its queues
    # max-min's own LP sets shares by job class; a policy with its own _solve sets False
    solves_by_class: ClassVar[bool] = True

    Params: ClassVar[type[Any]] = GavelParams  # subclasses extend GavelParams

    def __init__(self, params: Any, context: PolicyContext) -> None:
        # params: a GavelParams, or Gavel FIFO's own (Any: compiled code checks the class)
        super().__init__(params, context)
        capacity = context.cluster.capacity()
        self.worker_types = list(capacity)
        self.capacity = np.array([capacity[wt] for wt in self.worker_types], dtype=float)
        self.book = RoundBook(self.worker_types, self.capacity, self.heterogeneity_aware)
        self.class_lp: ClassMaxMin | None = None  # made at the first solve (subclasses: none)
        self.probe_solver = HighsSolver()  # finish-time fairness's and min total duration's LPs
        self._class_coefficients = np.zeros((0, len(self.worker_types)))
        self._class_scale_factors = np.zeros(0)  # GPUs per job of each class (_class_table)
        self.mechanism: RoundMechanism
        if context.rounds.gavel_rules:
            self.mechanism = GavelQueues(
                self.worker_types,
                self.capacity,
                context.rounds.round_duration_s,
                context.rounds.reallocation_interval_s,
                self.heterogeneity_aware,
                context.rng,
                skip_zero_priority=self.skips_zero_priority,
                book=self.book,
                solve=self._solve_gavel,
            )
        else:
            self.mechanism = ShareRounds(
                self.book,
                self.worker_types,
                context.rounds,
                self.params.work_conserving,
                self._store_shares,
            )

    def force_reallocation(self) -> None:
        """Gavel's forced re-solve when nothing runs and nothing arrives (micro-task loop)."""
        self.mechanism.force_reallocation()

    def allocate(self, state: SchedulerState) -> Allocation:
        return self.mechanism.allocate(state)

    def _store_shares(self, now_s: float, active: list[JobState], indices: list[int]) -> None:
        """Solves the LP for the active jobs (``indices``: their rows) and stores the shares
        in the book: by class for max-min's own LP (:attr:`solves_by_class`), each job getting
        its class's row, else :meth:`_solve`'s rows."""
        rows = np.array(indices, dtype=np.int64)
        if self.solves_by_class:
            present, class_shares = self._class_shares(rows)
            self.book.set_class_shares(indices, present.tolist(), class_shares)
        else:
            self.book.set_shares(rows, self._solve(now_s, active, rows))

    def _solve(self, now_s: float, active: list[JobState], rows: np.ndarray) -> np.ndarray:
        """Time shares X, shape (len(rows), worker types): our LP (max-min: the class LP),
        the program our share rounds serve."""
        present, class_shares = self._class_shares(rows)
        return class_shares[np.searchsorted(present, self.book.class_ids(rows))]

    def _solve_gavel(self, now_s: float, active: list[JobState], rows: np.ndarray) -> np.ndarray:
        """:meth:`_solve` as Gavel's simulator solves it, the program Gavel's queues serve
        (max-min: Gavel's program over every (job, type) pair, with Gavel's solver, ECOS,
        :mod:`engine.policies.gavel.ecos`)."""
        book = self.book
        coefficients = max_min_coefficients_all_pairs(
            book.throughputs(rows),
            book.scale_factors(rows),
            book.priority_weights(rows),
            self.capacity,
            self.heterogeneity_aware,
        )
        return max_min_shares(coefficients, book.scale_factors(rows), self.capacity)

    def _class_shares(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The max-min LP over the classes of the jobs ``rows``: the classes present (P,),
        ascending, and their shares (P, K)."""
        if self.class_lp is None:
            warm_start = getattr(self.params, "warm_start", False)  # MaxMinParams only
            self.class_lp = ClassMaxMin(self.capacity, self.params.efficiency_epsilon, warm_start)
        coefficients, scale_factors = self._class_table()
        counts = np.bincount(self.book.class_ids(rows), minlength=coefficients.shape[0])
        return self.class_lp.shares(coefficients, scale_factors, counts)

    def _class_table(self) -> tuple[np.ndarray, np.ndarray]:
        """(classes, K) the max-min LP's coefficient row of every job class seen so far
        (computed once per class from its first job: the row depends on the class only), and
        (classes,) each class's GPUs per job."""
        book, known = self.book, self._class_coefficients.shape[0]
        if known < len(book.class_rows):
            first = book.class_rows[known:]
            new = max_min_coefficients(
                book.throughputs(first),
                book.scale_factors(first),
                book.priority_weights(first),
                self.capacity,
                self.heterogeneity_aware,
            )
            self._class_coefficients = np.vstack([self._class_coefficients, new])
            self._class_scale_factors = book.scale_factors(book.class_rows)
        return self._class_coefficients, self._class_scale_factors

    def _reference_throughputs(self, throughputs: np.ndarray, every_type: bool) -> np.ndarray:
        """(n, K) the job's V100 (else fastest-type) throughput on every type it fits: how
        Gavel's agnostic finish-time-fairness and min-total-duration policies see the jobs
        (``every_type``: on every type, even where the job does not run, as Gavel's simulator
        does)."""
        if "v100" in self.worker_types:
            reference = throughputs[:, self.worker_types.index("v100")]
        else:
            reference = throughputs.max(axis=1)
        if every_type:
            return np.repeat(reference[:, None], throughputs.shape[1], axis=1)
        return np.where(throughputs > 0, reference[:, None], 0.0)


@dataclass(frozen=True)
class MaxMinParams(GavelParams):
    """The max-min policies' parameters: the shared ones and the LP's warm start."""

    warm_start: bool = field(
        default=False,
        metadata={
            "help": "Start each LP solve from the last optimal basis: faster, but may pick "
            "another of several optimal allocations (not under Gavel's simulator rules)"
        },
    )


_AWARE_DOC = """Gavel max-min fairness, heterogeneity-aware: equalizes throughput relative to an
equal share.

Narayanan et al., OSDI 2020. LP objective ``max min_j sum_k X_jk tput_jk sf_j /
(w_j tput_equal_j)``; the round mechanism serves each job where its share lags most.
"""

_AGNOSTIC_DOC = """Gavel max-min fairness, heterogeneity-agnostic: equalizes weighted GPU-time,
ignoring speed.

Narayanan et al., OSDI 2020 (their "max_min_fairness" baseline, i.e. LAS across jobs): every
worker type counts as equally fast.
"""


class GavelMaxMinAware(GavelMaxMin):
    cost_s_per_job: ClassVar[float] = 0.00045  # run order: bench_select_all.py
    display_name: ClassVar[str] = "Gavel max-min"
    group: ClassVar[str] = "Gavel"
    Params: ClassVar[type[Any]] = MaxMinParams

    heterogeneity_aware: ClassVar[bool] = True


class GavelMaxMinAgnostic(GavelMaxMin):
    cost_s_per_job: ClassVar[float] = 0.000635  # run order: bench_select_all.py
    display_name: ClassVar[str] = "Gavel max-min (agnostic)"
    group: ClassVar[str] = "Gavel"
    Params: ClassVar[type[Any]] = MaxMinParams

    heterogeneity_aware: ClassVar[bool] = False


POLICIES.register("gavel_maxmin", GavelMaxMinAware, doc=_AWARE_DOC)
POLICIES.register("gavel_maxmin_agnostic", GavelMaxMinAgnostic, doc=_AGNOSTIC_DOC)

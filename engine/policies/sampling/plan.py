"""One decision of the sampling-based placement policy: the jobs' arrays, and category scoring.

:func:`build_plan` selects the jobs that get workers and gathers what every category's market
and evaluation need; :func:`score_categories` runs the matching market of each category, hands
the workers to jobs and scores the result (see :mod:`engine.policies.sampling.policy` for the rules
and their sources).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from engine.config import NetworkConfig
from engine.policies.sampling.fill import split_fill
from engine.policies.sampling.matching import market
from engine.policies.sampling.model import JobInputs, LinkModel, model_arrays
from engine.policies.sampling.table import JobTable
from engine.state import JobState


class Plan(NamedTuple):
    """The selected jobs of one decision, as arrays (J jobs, T worker types, C classes).

    Attributes:
        jobs: the selected jobs, shortest ideal remaining time first.
        inputs: their step-time inputs.
        upper: (J,) most workers each may get.
        work: (J,) remaining work (seconds on one GPU of its fastest type).
        ideal: (J,) remaining seconds on ``scale_factor`` GPUs of the fastest type, no sync.
        remaining: (J,) remaining steps.
        current: (J, T) GPUs held now. held: (J,) their total (0 while waiting).
        lost_moved, lost_kept: (J,) seconds lost to restarts if the job's GPUs change / stay.
        job_class: (J,) class index; class_values, class_usable: (C, T) the market's valuation.
        capacity: (T,) GPUs per type.
        keep_order, line_order, type_order: arguments of
            :func:`engine.policies.sampling.fill.split_fill`.
    """

    jobs: list[JobState]
    inputs: JobInputs
    upper: np.ndarray
    work: np.ndarray
    ideal: np.ndarray
    remaining: np.ndarray
    current: np.ndarray
    held: np.ndarray
    lost_moved: np.ndarray
    lost_kept: np.ndarray
    job_class: np.ndarray
    class_values: np.ndarray
    class_usable: np.ndarray
    capacity: np.ndarray
    keep_order: np.ndarray
    line_order: np.ndarray
    type_order: np.ndarray


def build_plan(
    active: Sequence[JobState],
    table: JobTable,
    capacity: np.ndarray,
    now_s: float,
    restore_s: float,
) -> Plan:
    """Selects at most ``K`` jobs (shortest ideal remaining time first) and builds their arrays."""
    jobs, idx, remaining = _select(active, table, int(capacity.sum()))
    inputs = table.inputs(idx)
    work = remaining / table.best[idx]  # one_gpu.max(axis=1), kept in the table
    usable = inputs.one_gpu > 0
    upper = np.minimum(inputs.scale_factor, (usable * capacity).sum(axis=1))
    current = table.current(jobs, idx)
    held = current.sum(axis=1)
    first = np.array([j.first_start_s is None for j in jobs])
    restore_left = np.maximum(np.array([j.restore_until_s for j in jobs]) - now_s, 0.0)
    values, job_class = table.classes(idx)
    return Plan(
        jobs=jobs,
        inputs=inputs,
        upper=np.minimum(upper, capacity.sum() - len(jobs) + 1),
        work=work,
        ideal=work / inputs.scale_factor,
        remaining=remaining,
        current=current,
        held=held,
        lost_moved=np.where(first, 0.0, restore_s),
        lost_kept=np.where(held > 0, restore_left, np.where(first, 0.0, restore_s)),
        job_class=job_class,
        class_values=values,
        class_usable=values > 0,
        capacity=capacity,
        keep_order=_keep_order(job_class, held),
        line_order=np.lexsort((np.arange(len(jobs)), -work, job_class)),
        type_order=np.argsort(-values, axis=1, kind="stable"),
    )


def _select(
    active: Sequence[JobState], table: JobTable, budget: int
) -> tuple[list[JobState], np.ndarray, np.ndarray]:
    """The ``budget`` jobs of shortest ideal remaining time (ties: arrival, index), their
    indices and remaining steps."""
    idx = table.indices(active)
    remaining = np.fromiter((j.remaining_steps for j in active), dtype=float, count=len(active))
    ideal = remaining / (table.scale_factor[idx] * table.best[idx])
    order = np.lexsort((idx, table.arrival_s[idx], ideal))[:budget]
    return [active[i] for i in order.tolist()], idx[order], remaining[order]


def _keep_order(job_class: np.ndarray, held: np.ndarray) -> np.ndarray:
    """Running jobs by class, then selection order."""
    running = np.nonzero(held > 0)[0]
    return running[np.argsort(job_class[running], kind="stable")]


class Scored(NamedTuple):
    """Scored categories: (N,) ``scores`` (lower is better) and the workers per job, as the
    settled jobs (J,) that keep ``current`` in every category and (N, J - S, T) the others'."""

    scores: np.ndarray
    settled: np.ndarray
    others: np.ndarray

    def counts(self, k: int, current: np.ndarray) -> np.ndarray:
        """(J, T) GPUs of each type per job in category ``k``."""
        row = current.copy()
        row[~self.settled] = self.others[k]
        return row


def score_categories(
    plan: Plan,
    categories: np.ndarray,
    links: LinkModel,
    bw: np.ndarray,
    net: NetworkConfig,
    beta: float,
) -> Scored:
    """Matches, fills and scores (N, J) categories.

    A settled job (:mod:`engine.policies.sampling.fill`) has the same GPUs, rate and estimated
    JCT in every category: its rate is computed once. The JCTs
    (:func:`~engine.policies.sampling.kernels_rates.jct_rows`: the restart a job pays plus
    remaining steps over its :mod:`~engine.policies.sampling.model` rate; a job
    left without GPUs finishes after the slowest placed job plus its ideal time) are then
    scored over all jobs in order.
    """
    from engine.policies.sampling.kernels_rates import jct_rows  # Numba: loaded on first use

    class_counts = market(
        plan.class_values, plan.class_usable, _class_supply(categories, plan), plan.capacity
    )
    settled, others = split_fill(
        class_counts,
        categories,
        plan.job_class,
        plan.current,
        plan.keep_order,
        plan.line_order,
        plan.type_order,
    )
    model = model_arrays(plan.inputs, links, bw, net)
    args = (plan.lost_moved, plan.lost_kept, plan.remaining, plan.ideal)
    jct = jct_rows(settled, others, plan.current, model, *args)
    return Scored(_score(jct, plan.ideal, beta), settled, others)


def _class_supply(categories: np.ndarray, plan: Plan) -> np.ndarray:
    """(N, C) slots of each class: the sizes of its jobs added up (every class has a job)."""
    order = np.argsort(plan.job_class, kind="stable")
    starts = np.flatnonzero(np.diff(plan.job_class[order], prepend=-1))
    return np.add.reduceat(categories[:, order], starts, axis=1)


def _score(jct: np.ndarray, ideal: np.ndarray, beta: float) -> np.ndarray:
    """``beta * mean + (1 - beta) * (1 - Jain) * mean`` per row; Jain over ideal / jct (1 for a
    job with nothing left)."""
    mean = jct.mean(axis=1)
    if beta >= 1.0:
        return mean
    speed = np.where(jct > 0, ideal / np.maximum(jct, 1e-12), 1.0)
    jain = speed.sum(axis=1) ** 2 / (speed.shape[1] * np.square(speed).sum(axis=1))
    return beta * mean + (1 - beta) * (1 - jain) * mean

"""The default queues of a trace with teams and no ``"queues"``: quotas by each team's usage.

One ClusterQueue per team (a LocalQueue of the same name feeding it), all in one cohort, each
with a nominal quota of every worker type in proportion to the team's GPU-hours in the trace,
rounded to whole GPUs so that each worker type's quotas add up to the cluster's GPUs of that
type. Borrowing is unlimited, so a team may use the cohort's idle GPUs; Kueue's defaults
otherwise (BestEffortFIFO, no preemption) [R: our rule; Kueue ships no default quotas, and no
paper in ``shared/docs`` sets quotas from a trace].
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from fractions import Fraction

import pandas as pd

from engine.errors import ConfigError
from engine.quota.model import (
    ClusterQueue,
    Cohort,
    FlavorQuota,
    LocalQueue,
    QueueConfig,
    ResourceFlavor,
)

S_PER_H = 3600.0


def team_gpu_hours(jobs: pd.DataFrame) -> pd.Series:
    """Each team's GPU usage in the trace: the weight of its default quota.

    The usage of a job is ``scale_factor x duration_s / 3600`` GPU-hours. When some job's
    duration is unknown (NaN, e.g. a Gavel ``.trace``), every job's usage is instead
    ``scale_factor x total_steps`` GPU-steps (steps are the throughput matrix's, so this weighs
    jobs of different types only roughly), and the series is named ``gpu_steps``.

    Args:
        jobs: a canonical jobs table (`engine.traces.schema`) with the ``queue`` column.

    Returns:
        Team (the ``queue`` name) -> usage, sorted by team name; named ``gpu_hours`` (or
        ``gpu_steps``), index named ``queue``.

    Raises:
        ConfigError: when ``jobs`` has no ``queue`` column, no jobs, or a job naming no team.
    """
    teams = _teams(jobs)
    gpus = jobs["scale_factor"].astype(float)
    if jobs["duration_s"].notna().all():
        usage, name = gpus * jobs["duration_s"] / S_PER_H, "gpu_hours"
    else:
        usage, name = gpus * jobs["total_steps"], "gpu_steps"
    totals = usage.groupby(teams).sum().sort_index()
    totals.index.name = "queue"
    return totals.rename(name)


def default_queues(
    jobs: pd.DataFrame, capacity: Mapping[str, int], cohort: str = "all-teams"
) -> QueueConfig:
    """The default queue configuration of a trace with teams (see the module docstring).

    Args:
        jobs: a canonical jobs table with the ``queue`` column.
        capacity: GPUs per worker type (:meth:`engine.config.ClusterSpec.capacity`), in the
            cluster's order, which is the order of every ClusterQueue's flavors.
        cohort: the name of the one cohort all the teams' ClusterQueues belong to.

    Returns:
        A :class:`QueueConfig` that passes ``check(capacity)``: teams sorted by name; each
        worker type's nominal quotas are the largest-remainder rounding of the cluster's GPUs
        of that type split by :func:`team_gpu_hours`, so they add up to exactly those GPUs.

    Raises:
        ConfigError: as :func:`team_gpu_hours`, or for a team named like the cohort.
    """
    usage = team_gpu_hours(jobs)
    teams = [str(team) for team in usage.index]
    if cohort in teams:
        raise ConfigError(f"team {cohort!r} has the cohort's name; choose another cohort name")
    weights = [float(value) for value in usage]
    shares = {wt: largest_remainder(weights, gpus) for wt, gpus in capacity.items()}
    queues = tuple(
        ClusterQueue(
            team,
            flavors=tuple(FlavorQuota(wt, shares[wt][i]) for wt in capacity),
            cohort=cohort,
        )
        for i, team in enumerate(teams)
    )
    config = QueueConfig(
        cluster_queues=queues,
        cohorts=(Cohort(cohort),),
        local_queues=tuple(LocalQueue(team, team) for team in teams),
        flavors=tuple(ResourceFlavor(wt) for wt in capacity),
    )
    config.check(dict(capacity))
    return config


def largest_remainder(weights: Sequence[float], total: int) -> list[int]:
    """``total`` split in whole parts in proportion to ``weights`` (Hamilton's method).

    Each part is the floor of its exact share; the parts left over go one each to the largest
    fractional remainders, ties to the earlier weight. Computed in exact fractions, so the parts
    always add up to ``total``. Weights that add up to 0 count as equal.

    Raises:
        ConfigError: for no weights, a negative weight or a negative ``total``.
    """
    if not weights or total < 0 or any(not w >= 0 for w in weights):
        raise ConfigError(f"cannot split {total} GPUs by the weights {list(weights)}")
    exact = [Fraction(w) for w in weights]
    if sum(exact) == 0:
        exact = [Fraction(1)] * len(exact)
    whole = sum(exact)
    shares = [total * w / whole for w in exact]
    parts = [int(share) for share in shares]  # floor: shares are >= 0
    order = sorted(range(len(shares)), key=lambda i: (-(shares[i] - parts[i]), i))
    for i in order[: total - sum(parts)]:
        parts[i] += 1
    return parts


def _teams(jobs: pd.DataFrame) -> pd.Series:
    if "queue" not in jobs:
        raise ConfigError(
            "the jobs have no team column ('queue'): give the trace a queue column or set "
            "trace.team_column"
        )
    if jobs.empty:
        raise ConfigError("the trace has no jobs, so no teams")
    teams = jobs["queue"].astype(str).str.strip()
    blank = jobs.loc[teams == "", "job_id"]
    if len(blank):
        raise ConfigError(
            f"{len(blank)} job(s) name no team (the first: {blank.iloc[0]!r}); default quotas "
            "need every job's team"
        )
    return teams


def scaled_queues(queues: QueueConfig, capacity: Mapping[str, int]) -> QueueConfig:
    """The queues on another GPU mix, each owner keeping its share of the nominal GPUs [R: our
    rule, for the planner, which changes the mix under fixed teams].

    Per worker type of ``capacity``, the ClusterQueues' and cohorts' nominal GPUs are rescaled
    to the mix's GPUs of that type (largest remainder, ties to the owner listed first): in
    proportion to their nominal GPUs of that type, or, for a type the queues do not hold yet,
    to their nominal GPUs of every type. A flavor of a type the mix lacks is dropped; a new
    type gets a flavor of its own name in every ClusterQueue, after the others. Borrowing
    limits are kept; a lending limit is capped at the new nominal quota.
    """
    types = queues.flavor_types()
    owners: list[ClusterQueue | Cohort] = [*queues.cluster_queues, *queues.cohorts]
    held = {t: [sum(q.nominal_gpus for q in o.flavors if types.get(q.flavor, q.flavor) == t)
                for o in owners] for t in capacity}  # fmt: skip
    total = [sum(q.nominal_gpus for q in o.flavors) for o in owners]
    nominal = {
        t: largest_remainder(held[t] if sum(held[t]) else total, gpus) if sum(total) else
        [0] * len(owners) for t, gpus in capacity.items()
    }  # fmt: skip

    def flavors(
        i: int, owner_flavors: tuple[FlavorQuota, ...], add: bool
    ) -> tuple[FlavorQuota, ...]:
        kept = []
        seen = set()
        for q in owner_flavors:
            t = types.get(q.flavor, q.flavor)
            if t not in capacity:
                continue
            seen.add(t)
            gpus = nominal[t][i]
            lend = None if q.lending_limit_gpus is None else min(q.lending_limit_gpus, gpus)
            kept.append(FlavorQuota(q.flavor, gpus, q.borrowing_limit_gpus, lend))
        if add:
            kept += [FlavorQuota(t, nominal[t][i]) for t in capacity
                     if t not in seen and not sum(held[t])]  # fmt: skip
        return tuple(kept)

    n = len(queues.cluster_queues)
    cluster_queues = tuple(dataclasses.replace(cq, flavors=flavors(i, cq.flavors, True))
                           for i, cq in enumerate(queues.cluster_queues))  # fmt: skip
    cohorts = tuple(dataclasses.replace(c, flavors=flavors(n + i, c.flavors, False))
                    for i, c in enumerate(queues.cohorts))  # fmt: skip
    known = {f.name for f in queues.flavors}
    extra = tuple(ResourceFlavor(t) for t in capacity if t not in types.values() and t not in known)
    return dataclasses.replace(queues, cluster_queues=cluster_queues, cohorts=cohorts,
                               flavors=queues.flavors + extra)  # fmt: skip

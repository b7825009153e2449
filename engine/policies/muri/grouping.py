"""Muri's choice of the jobs that run or share, and their groups' grants.

Source: github.com/Rivendile/Muri (Apache-2.0), ``cluster_exp/run.py``,
``multi_resource_blossom_same_sim_jobs`` (Zhao et al., SIGCOMM 2022, section 4). Our own code of
its rules:

- **Candidates** (run.py: the scan after ``JOBS.runnable_jobs.sort``): jobs in priority order;
  a job not yet chosen that still fits the cluster (a trial placement that takes its GPUs,
  ``try_get_job_res(rjob, True)``) chooses itself and the next ``k - 1`` unchosen jobs of its
  GPU count (``packing_num``), which share its trial GPUs. Fit is counted in GPUs per worker
  type, each job on its fastest fitting type [R] (Muri's testbed has one type; its YARN
  placement also checks a node has room, which our placement strategy decides).
- **Groups**: the interleaving model groups the candidates with Muri's matching
  (:func:`engine.sharing.muri_groups`, ``Blossom_Same.run``); time slicing, which has no stage
  times to weigh a group by, groups them in priority order, ``k`` at a time, merging while the
  GPUs needed exceed the cluster's (Muri's ``blossom=False`` path of the same function).
- **Placement order**: groups of more GPUs first (``packings_keys.sort(reverse=True)``); a group
  that does not fit waits (its running jobs are preempted).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from engine.sharing import Candidate, StageTimes, muri_groups

Group = tuple[Candidate, ...]


def choose_candidates(
    jobs: Sequence[tuple[int, int, str]], capacity: Mapping[str, int], k: int
) -> dict[str, dict[int, list[int]]]:
    """Muri's candidates from jobs in priority order.

    Args:
        jobs: (job index, GPUs, fastest fitting worker type) in priority order.
        capacity: GPUs per worker type.
        k: most jobs per group.

    Returns:
        worker type -> GPU count -> chosen job indices, in priority order.
    """
    by_size: dict[tuple[str, int], list[int]] = {}
    for index, gpus, worker_type in jobs:
        by_size.setdefault((worker_type, gpus), []).append(index)
    chosen_upto = dict.fromkeys(by_size, 0)
    chosen: set[int] = set()
    free = dict(capacity)
    for index, gpus, worker_type in jobs:
        if index in chosen or free.get(worker_type, 0) < gpus:
            continue
        free[worker_type] -= gpus
        size = (worker_type, gpus)
        start = chosen_upto[size]
        chosen_upto[size] = min(start + k, len(by_size[size]))
        chosen.update(by_size[size][start : chosen_upto[size]])
    out: dict[str, dict[int, list[int]]] = {}
    for (worker_type, gpus), indices in by_size.items():
        if chosen_upto[(worker_type, gpus)]:
            out.setdefault(worker_type, {})[gpus] = indices[: chosen_upto[(worker_type, gpus)]]
    return out


def in_order_groups(
    candidates: Mapping[int, Sequence[Candidate]], cluster_gpus: int, k: int
) -> dict[int, list[Group]]:
    """Groups of ``k`` consecutive candidates, merged only while the GPUs needed exceed
    ``cluster_gpus`` (Muri's ``blossom=False`` path); same shape as :func:`muri_groups`."""
    need_gpus = sum(gpus * len(jobs) for gpus, jobs in candidates.items())
    out: dict[int, list[Group]] = {}
    for gpus, jobs in candidates.items():
        groups = out.setdefault(gpus, [])
        for start in range(0, len(jobs), k):
            group: Group = (jobs[start],)
            for job in jobs[start + 1 : start + k]:
                if need_gpus > cluster_gpus:
                    group += (job,)
                    need_gpus -= gpus
                else:
                    groups.append((job,))
            groups.append(group)
    return out


def form_groups(
    chosen: Mapping[int, list[int]],
    stages_of: Callable[[int], StageTimes],
    cluster_gpus: int,
    k: int,
    interleaving: bool,
) -> list[tuple[int, Group]]:
    """The chosen jobs of one worker type (GPU count -> indices) in groups, as (GPUs, group),
    groups of more GPUs first (then in the grouping's order)."""
    candidates = {
        gpus: [Candidate(i, gpus, stages_of(i)) for i in indices]
        for gpus, indices in chosen.items()
    }
    grouping = muri_groups if interleaving else in_order_groups
    by_gpus = grouping(candidates, cluster_gpus, k)
    return [(gpus, group) for gpus in sorted(by_gpus, reverse=True) for group in by_gpus[gpus]]

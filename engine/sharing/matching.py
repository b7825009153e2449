"""Muri's grouping of jobs into shared groups: weighted matching, in rounds, while demand exceeds
the cluster.

Source: github.com/Rivendile/Muri, ``cluster_exp/matching.py``, ``_Blossom_Same.run`` and
``blossom_one_round`` (Zhao et al., SIGCOMM 2022, section 4). Our own code of its rules:

- only jobs with the same GPU count are grouped (``Blossom_Same``: "only match jobs with the same
  #GPU");
- each round builds, per GPU count, a graph whose nodes are the current groups; two groups are
  joined by an edge when together they hold at most ``k`` jobs (``packing_num``) and their
  utilisation (:func:`engine.sharing.interleave.utilisation`) exceeds
  ``weight_lbd x jobs / 4`` (``weight_lbd`` = 0.0, ``run.py``'s default); a maximum-weight
  matching (Edmonds' blossom; Muri has its own, we use networkx's ``max_weight_matching``) pairs
  them;
- matched pairs merge only while the GPUs the groups need exceed the cluster's; each merge
  frees one group's GPUs. Rounds repeat (at most ``k``) until demand fits, so k = 4 forms
  groups of up to 4 by pairing pairs.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from engine.sharing.interleave import SLOTS, StageTimes, utilisation

WEIGHT_LBD = 0.0  # Muri's ``weight_lbd`` default (cluster_exp/run.py)
REL_TOL = 1e-5  # Muri's ``my_cmp``: weights this close count as equal


class Candidate(NamedTuple):
    """A job Muri may group: its job index, gang size (GPUs) and stage times."""

    job_id: int
    num_gpus: int
    stages: StageTimes


Group = tuple[Candidate, ...]


def _edge_weight(a: tuple[StageTimes, ...], b: tuple[StageTimes, ...], k: int) -> float | None:
    """The weight of joining groups ``a`` and ``b`` (their members' stage times), or None when
    Muri draws no edge."""
    jobs = len(a) + len(b)
    if jobs > k:
        return None
    weight = utilisation(a + b)
    floor = WEIGHT_LBD * jobs / SLOTS
    if weight <= floor or abs(weight - floor) <= REL_TOL * max(abs(weight), abs(floor)):
        return None
    return weight


def _pairs(groups: Sequence[Group], k: int) -> list[tuple[int, int]]:
    """Maximum-weight matching of ``groups`` (indices, the smaller first, by the larger)."""
    return _pairs_of(tuple(tuple(c.stages for c in group) for group in groups), k)


@functools.lru_cache(maxsize=4096)
def _pairs_of(groups: tuple[tuple[StageTimes, ...], ...], k: int) -> list[tuple[int, int]]:
    """:func:`_pairs` of groups given by their members' stage times, remembered: the matching
    depends on nothing else (the weights are the stage times' utilisation, the nodes' order is
    the groups' order), and a trace's jobs repeat a few (model, gang size) stage times, so the
    same sequence recurs from decision to decision. Callers must not edit the list returned."""
    import networkx as nx  # (here: importing the scenario's config must not load networkx)

    graph = nx.Graph()
    graph.add_nodes_from(range(len(groups)))
    for u in range(len(groups)):
        for v in range(u + 1, len(groups)):
            weight = _edge_weight(groups[u], groups[v], k)
            if weight is not None:
                graph.add_edge(u, v, weight=weight)
    matched = nx.max_weight_matching(graph) if graph.number_of_edges() else set()
    return sorted((tuple(sorted(pair)) for pair in matched), key=lambda p: (p[1], p[0]))


def _one_round(
    by_gpus: dict[int, list[Group]], k: int, need_gpus: int, cluster_gpus: int
) -> tuple[dict[int, list[Group]], int]:
    """One round of ``blossom_one_round``: match, then merge while demand exceeds the cluster."""
    merged: dict[int, list[Group]] = {}
    for num_gpus, groups in by_gpus.items():
        pairs = _pairs(groups, k)
        paired = {i for pair in pairs for i in pair}
        out = merged.setdefault(num_gpus, [])
        for u, v in pairs:
            if need_gpus > cluster_gpus:
                out.append(groups[u] + groups[v])
                need_gpus -= num_gpus
            else:
                out.extend((groups[u], groups[v]))
        out.extend(group for i, group in enumerate(groups) if i not in paired)
    return merged, need_gpus


def muri_groups(
    candidates: Mapping[int, Sequence[Candidate]], cluster_gpus: int, k: int
) -> dict[int, list[Group]]:
    """Groups ``candidates`` (by GPU count, in the policy's priority order) as Muri does.

    Args:
        candidates: GPU count -> the jobs chosen to run or share, each of that gang size.
        cluster_gpus: GPUs in the cluster.
        k: most jobs in a group (1 = no grouping).

    Returns:
        GPU count -> groups (tuples of 1 to ``k`` candidates); the GPUs they need is
        sum(count x groups), at most ``cluster_gpus`` when grouping can make it fit.
    """
    by_gpus: dict[int, list[Group]] = {g: [(c,) for c in jobs] for g, jobs in candidates.items()}
    need_gpus = sum(g * len(jobs) for g, jobs in candidates.items())
    for _ in range(k if k > 1 else 0):
        if need_gpus <= cluster_gpus:
            break
        by_gpus, need_gpus = _one_round(by_gpus, k, need_gpus, cluster_gpus)
    return by_gpus

"""Muri's interleaved iteration time of a group of jobs from their per-iteration stage times.

Source: Zhao et al., "Multi-Resource Interleaving for Deep Learning Training", SIGCOMM 2022, and
its code, github.com/Rivendile/Muri (Apache-2.0) at ``cluster_exp/matching.py``,
``_Packing.calc_iteration_time`` (``ordering=1``, best ordering; ``multi_resource = 4``, the
default of ``cluster_exp/run.py``, with three stage times per job). Our own code of that rule:

- one job alone runs at its own measured iteration time (not the sum of its stages);
- a group of n <= 4 jobs runs in a cycle of 4 slots. Slot t ends at ``f[t]``; in slot t+1 the
  job at position (t+1) mod 4 of the ordering communicates, the job at (t+2) mod 4 computes
  (each from ``f[t]``), and the job at (t+3) mod 4 loads data, which it started a slot earlier
  (from ``f[t-1]``: the loader is a thread spanning two slots, as in Muri's interleaving
  trainer ``cluster_exp/workloads/main_real_preenv.py``, where job i loads in stage i+1,
  computes in stage i+3 and communicates in stage i+4); ``f[t+1]`` is the latest of those
  ends. The group iteration
  time is ``f[t+1] - f[t-3]`` once two successive cycles agree within 0.1 %, else
  ``f[8] - f[4]`` (two cycles simulated);
- for two jobs a and b Muri also tries the alternation
  ``max(a.data, b.compute + b.comm) + max(b.data, a.compute + a.comm)``;
- the group's time is the least over all orderings (and that alternation).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from typing import NamedTuple

from engine.sharing.config import SharingError

SLOTS = 4  # Muri's multi_resource default (cluster_exp/run.py)
CYCLES = 2  # Muri's ``round = 2`` in calc_iteration_time


class StageTimes(NamedTuple):
    """One job's per-iteration times, seconds (Muri's trace ``resource_time_0..2`` in ms / 1000).

    The stages are those of Muri's interleaving trainer
    (``cluster_exp/workloads/main_real_preenv.py``: "data", "fp/bp", "comm"); the trace agrees:
    ``resource_time_2`` is 0 for every one-GPU job and grows with the gang size.

    Attributes:
        data_s: loading and pre-processing the batch (storage I/O and CPU; for the RL jobs a2c
            and dqn, the environment's simulation).
        compute_s: GPU forward and backward pass.
        comm_s: gradient synchronisation over the network (0 on one GPU).
        iteration_s: the job's measured iteration time alone (the trace's ``iteration_time``).
    """

    data_s: float
    compute_s: float
    comm_s: float
    iteration_s: float


def check_stage_times(job: object, stages: StageTimes) -> None:
    """Raises SharingError naming the job and field of a missing (NaN) or negative stage time."""
    for name, value in zip(StageTimes._fields, stages, strict=True):
        if value is None or not math.isfinite(value) or value < 0:
            raise SharingError(
                f"job {job}: {name} must be a finite time >= 0 for the interleaving model, "
                f"got {value!r}"
            )
    if stages.iteration_s <= 0:
        raise SharingError(f"job {job}: iteration_s must be > 0, got {stages.iteration_s!r}")


def _cycle_time_s(order: Sequence[StageTimes]) -> float:
    """Muri's 4-slot pipeline of one ordering (see the module docstring), seconds."""
    n = len(order)
    ends = [0.0] * (SLOTS * CYCLES + 1)
    for t in range(SLOTS * CYCLES):
        if (t + 1) % SLOTS < n:
            ends[t + 1] = max(ends[t + 1], ends[t] + order[(t + 1) % SLOTS].comm_s)
        if (t + 2) % SLOTS < n:
            ends[t + 1] = max(ends[t + 1], ends[t] + order[(t + 2) % SLOTS].compute_s)
        if t > 0 and (t + 3) % SLOTS < n:
            ends[t + 1] = max(ends[t + 1], ends[t - 1] + order[(t + 3) % SLOTS].data_s)
        if t >= SLOTS:
            cycle_s = ends[t + 1] - ends[t - 3]
            if math.isclose(cycle_s, ends[t] - ends[t - 4], rel_tol=1e-3) and cycle_s > 0:
                return cycle_s
    return ends[SLOTS * CYCLES] - ends[SLOTS * CYCLES - SLOTS]


def _alternation_s(a: StageTimes, b: StageTimes) -> float:
    """Muri's two-job alternation (``calc_iteration_time``, the ``len(jobs)==2`` case), s."""
    return max(a.data_s, b.compute_s + b.comm_s) + max(b.data_s, a.compute_s + a.comm_s)


def group_iteration_time_s(group: Sequence[StageTimes]) -> float:
    """The interleaved iteration time of ``group``, seconds (Muri's best ordering).

    Args:
        group: 1 to 4 jobs' stage times (validated with :func:`check_stage_times` by the caller
            that knows the job ids).

    Returns:
        Seconds per group iteration; every job of the group advances one iteration in it.

    Raises:
        SharingError: an empty group or more than 4 jobs (Muri's cycle has 4 slots).
    """
    if not 1 <= len(group) <= SLOTS:
        raise SharingError(f"an interleaved group holds 1 to {SLOTS} jobs, got {len(group)}")
    return _best_time_s(tuple(sorted(group)))


@functools.lru_cache(maxsize=65536)
def _best_time_s(group: tuple[StageTimes, ...]) -> float:
    """:func:`group_iteration_time_s` of a sorted group, remembered: the time is the least over
    all orderings (and the two-job alternation, symmetric in its jobs), so the members' order
    does not matter, and a trace's jobs repeat a few (model, gang size) stage times."""
    if len(group) == 1:
        return group[0].iteration_s
    best_s = min(_cycle_time_s(order) for order in itertools.permutations(group))
    if len(group) == 2:
        best_s = min(best_s, _alternation_s(group[0], group[1]))
    return best_s


def utilisation(group: Sequence[StageTimes]) -> float:
    """Muri's matching weight: busy stage time over the cycle's resource time, in [0, 1].

    ``sum of all stage times / (group iteration time x 4)`` (``_Packing.calc_used_ratio``).
    """
    busy_s = sum(stages.data_s + stages.compute_s + stages.comm_s for stages in group)
    return busy_s / (group_iteration_time_s(group) * SLOTS)

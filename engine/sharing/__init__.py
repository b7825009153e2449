"""Jobs that share GPUs (issue 35): a layer OFF by default.

Contract. A sharing policy may put up to ``k`` jobs of the same gang size on the same GPUs
(``k``: a parameter of the policies that share, :func:`check_sharing_factor`; ``k = 1``:
exclusive GPUs, today's engine, every result unchanged; the engine's seam is a grant's ``host``
and ``share_speed``, :class:`engine.allocation.grants.Grant`). A
shared group runs at one group iteration time; each of its jobs advances one iteration per
group iteration (Muri's testbed: ``cluster_exp/run.py``, ``multi_resource_blossom_same_sim_jobs``
credits every job of a packing with the packing's iterations). The group iteration time comes
from a model chosen per scenario (:class:`SharingConfig`):

- ``interleaving`` (:func:`group_iteration_time_s`): Muri's multi-resource interleaving from each
  job's per-iteration stage times (data loading, GPU compute, communication; the trace's
  ``resource_time_0..2``);
- ``time_slicing`` (:func:`sliced_iteration_time_s`): each job's own iteration time times the
  group size, divided by a packing efficiency, for traces without stage times.

The grouping (:func:`muri_groups`) is Muri's: maximum-weight matching of jobs with the same GPU
count, weight = the group's resource utilisation, repeated until demand fits the cluster.
This package imports nothing from the rest of the engine but its errors, so a policy, the
event loop or a benchmark can use it without an import circle.
"""

from engine.sharing.config import (
    MURI_GROUP_OVERHEADS,
    MURI_K,
    SHARING_MODELS,
    SharingConfig,
    SharingError,
    check_policy_sharing,
    check_sharing_factor,
)
from engine.sharing.interleave import StageTimes, group_iteration_time_s, utilisation
from engine.sharing.matching import Candidate, muri_groups
from engine.sharing.slicing import sliced_iteration_time_s

__all__ = [
    "MURI_GROUP_OVERHEADS",
    "MURI_K",
    "SHARING_MODELS",
    "Candidate",
    "SharingConfig",
    "SharingError",
    "StageTimes",
    "check_policy_sharing",
    "check_sharing_factor",
    "group_iteration_time_s",
    "muri_groups",
    "sliced_iteration_time_s",
    "utilisation",
]

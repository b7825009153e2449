"""How many jobs may share GPUs, and which model gives a shared group its speed.

``k`` (most jobs on the same GPUs) is a parameter of the policies that share
(:attr:`engine.policies.base.Policy.shares_gpus`; 1, exclusive GPUs, by default), so a scenario
can set a sharing policy beside exclusive ones; the speed model is the scenario's
(:class:`SharingConfig`, ``ScenarioConfig.sharing``). Validation raises :class:`SharingError`,
a ``ValueError`` naming the field, never a crash later in the run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.errors import ConfigError

SHARING_MODELS = ("interleaving", "time_slicing")
MURI_K = 4
"""Muri's testbed: up to 4 jobs on the same GPUs (``cluster_exp/run.sh``, ``packing_nums=("4")``;
also ``run.py``'s ``packing_num`` flag default)."""


MURI_GROUP_OVERHEADS = (1.33 / 1.015, 1.5 / 1.015, 1.37 / 1.015)
"""Real over modelled iteration time of Muri's groups of 2, 3 and 4 jobs on its testbed, net of
the 1.5% every job runs slower alone: Muri's own simulator (``simulator/jobs.py``,
``itertime_overhead_list[1:]``, applied in ``simulator/matching.py`` ``calc_iteration_time``)."""


class SharingError(ConfigError, ValueError):
    """Bad sharing input: the message names the field (and the job, for stage times)."""


def check_sharing_factor(k: object, where: str = "k") -> int:
    """``k`` as an int when it is a whole number >= 1.

    Raises:
        SharingError: naming ``where``, for a value < 1, not whole, or not a number.
    """
    if isinstance(k, bool) or not isinstance(k, (int, float)) or not math.isfinite(k):
        raise SharingError(
            f"{where} (jobs sharing the same GPUs) must be a whole number >= 1, got {k!r}"
        )
    if k < 1 or k != int(k):
        raise SharingError(
            f"{where} (jobs sharing the same GPUs) must be a whole number >= 1, got {k!r}"
        )
    return int(k)


@dataclass(frozen=True)
class SharingConfig:
    """The scenario's model of a shared group's speed.

    Attributes:
        model: ``interleaving`` (stage times; Muri) or ``time_slicing`` (no stage times).
        packing_efficiency: time slicing only, in (0, 1]: the fraction of a GPU's time that goes to
            the jobs' work when several share it. 1.0 = no switching loss [R] (no measured
            figure for our traces; Gandiva, OSDI 2018, time-slices at iteration boundaries to
            keep the loss small).
        group_overheads: interleaving only: what a group of 2, 3, 4 jobs really takes over the
            model's interleaved iteration time (a factor >= 1 per group size, from 2 on; empty:
            none). The ``muri_testbed`` preset sets Muri's measured ones
            (:data:`MURI_GROUP_OVERHEADS`).

    Raises:
        SharingError: ``model`` unknown; ``packing_efficiency`` outside (0, 1]; more than 3
            ``group_overheads`` or one below 1.
    """

    model: str = field(
        default="interleaving", metadata={"help": "group speed model: interleaving or time_slicing"}
    )
    packing_efficiency: float = field(
        default=1.0, metadata={"help": "time slicing: fraction of GPU time doing work, (0, 1]"}
    )
    group_overheads: tuple[float, ...] = field(
        default=(),
        metadata={"help": "interleaving: a group's real over modelled time, for 2, 3, 4 jobs"},
    )

    def __post_init__(self) -> None:
        if self.model not in SHARING_MODELS:
            raise SharingError(
                f"sharing.model must be one of {', '.join(SHARING_MODELS)}, got {self.model!r}"
            )
        eff = self.packing_efficiency
        if not (isinstance(eff, (int, float)) and math.isfinite(eff) and 0 < eff <= 1):
            raise SharingError(f"sharing.packing_efficiency must be in (0, 1], got {eff!r}")
        overheads = tuple(self.group_overheads)
        if len(overheads) > MURI_K - 1 or not all(
            isinstance(x, (int, float)) and math.isfinite(x) and x >= 1 for x in overheads
        ):
            raise SharingError(
                f"sharing.group_overheads: up to {MURI_K - 1} factors >= 1 (groups of 2 to "
                f"{MURI_K} jobs), got {self.group_overheads!r}"
            )
        object.__setattr__(self, "group_overheads", tuple(float(x) for x in overheads))

    def overhead(self, group_size: int) -> float:
        """The factor on the interleaved iteration time of a group of ``group_size`` jobs."""
        at = group_size - 2
        return self.group_overheads[at] if 0 <= at < len(self.group_overheads) else 1.0


def check_policy_sharing(
    policy: str, shares_gpus: bool, params: Mapping[str, Any], sharing_policies: Sequence[str] = ()
) -> None:
    """Refuses a sharing factor ``k`` for a policy that gives every job exclusive GPUs.

    Args:
        policy: the policy's name, for the message.
        shares_gpus: whether the policy shares GPUs.
        params: the policy's parameters as the scenario gives them.
        sharing_policies: the registry names of the policies that share, for the message.

    Raises:
        SharingError: naming ``k`` and the policy.
    """
    if "k" in params and not shares_gpus:
        names = f" ({', '.join(sharing_policies)})" if sharing_policies else ""
        raise SharingError(
            f"k = {params['k']!r} but policy {policy!r} does not share GPUs; remove k or pick a "
            f"policy that shares GPUs{names}"
        )

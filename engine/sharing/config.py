"""How many jobs may share GPUs, and which model gives a shared group its speed.

``k`` (most jobs on the same GPUs) is a parameter of the policies that share
(:attr:`engine.policies.base.Policy.shares_gpus`; 1, exclusive GPUs, by default), so a scenario
can set a sharing policy beside exclusive ones; the speed model is the scenario's
(:class:`SharingConfig`, ``ScenarioConfig.sharing``). Validation raises :class:`SharingError`,
a ``ValueError`` naming the field, never a crash later in the run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.errors import ConfigError

SHARING_MODELS = ("interleaving", "time_slicing")
MURI_K = 4
"""Muri's testbed: up to 4 jobs on the same GPUs (``cluster_exp/run.sh``, ``packing_nums=("4")``;
also ``run.py``'s ``packing_num`` flag default)."""


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

    Raises:
        SharingError: ``model`` unknown; ``packing_efficiency`` outside (0, 1].
    """

    model: str = field(
        default="interleaving", metadata={"help": "group speed model: interleaving or time_slicing"}
    )
    packing_efficiency: float = field(
        default=1.0, metadata={"help": "time slicing: fraction of GPU time doing work, (0, 1]"}
    )

    def __post_init__(self) -> None:
        if self.model not in SHARING_MODELS:
            raise SharingError(
                f"sharing.model must be one of {', '.join(SHARING_MODELS)}, got {self.model!r}"
            )
        eff = self.packing_efficiency
        if not (isinstance(eff, (int, float)) and math.isfinite(eff) and 0 < eff <= 1):
            raise SharingError(f"sharing.packing_efficiency must be in (0, 1], got {eff!r}")


def check_policy_sharing(policy: str, shares_gpus: bool, params: Mapping[str, Any]) -> None:
    """Refuses a sharing factor ``k`` for a policy that gives every job exclusive GPUs.

    Args:
        policy: the policy's name, for the message.
        shares_gpus: whether the policy shares GPUs.
        params: the policy's parameters as the scenario gives them.

    Raises:
        SharingError: naming ``k`` and the policy.
    """
    if "k" in params and not shares_gpus:
        raise SharingError(
            f"k = {params['k']!r} but policy {policy!r} does not share GPUs; remove k or pick a "
            "sharing policy (muri_s, muri_l)"
        )

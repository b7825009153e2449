"""How many jobs may share GPUs, and which model gives a shared group its speed.

Off by default (``k = 1``). Validation raises :class:`SharingError`, a ``ValueError`` naming
the field, never a crash later in the run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from engine.errors import ConfigError

SHARING_MODELS = ("interleaving", "time_slicing")


class SharingError(ConfigError, ValueError):
    """Bad sharing input: the message names the field (and the job, for stage times)."""


@dataclass(frozen=True)
class SharingConfig:
    """Sharing of GPUs by up to ``k`` jobs.

    Attributes:
        k: most jobs on the same GPUs (a whole number >= 1). 1 = exclusive GPUs (default).
            Muri's run script uses 4 (``cluster_exp/run.sh``, ``packing_nums=("4")``; also
            ``run.py``'s ``packing_num`` flag default).
        model: ``interleaving`` (stage times; Muri) or ``time_slicing`` (no stage times).
        packing_efficiency: time slicing only, in (0, 1]: the fraction of a GPU's time that goes to
            the jobs' work when several share it. 1.0 = no switching loss [R] (no measured
            figure for our traces; Gandiva, OSDI 2018, time-slices at iteration boundaries to
            keep the loss small).

    Raises:
        SharingError: ``k`` < 1 or not whole; ``model`` unknown; ``packing_efficiency`` outside
            (0, 1].
    """

    k: int = field(default=1, metadata={"help": "most jobs sharing the same GPUs (1 = exclusive)"})
    model: str = field(
        default="interleaving", metadata={"help": "group speed model: interleaving or time_slicing"}
    )
    packing_efficiency: float = field(
        default=1.0, metadata={"help": "time slicing: fraction of GPU time doing work, (0, 1]"}
    )

    def __post_init__(self) -> None:
        k: object = self.k
        if isinstance(k, bool) or not isinstance(k, (int, float)) or not math.isfinite(k):
            raise SharingError(f"sharing.k must be a whole number >= 1, got {k!r}")
        if k < 1 or k != int(k):
            raise SharingError(f"sharing.k must be a whole number >= 1, got {k!r}")
        object.__setattr__(self, "k", int(k))
        if self.model not in SHARING_MODELS:
            raise SharingError(
                f"sharing.model must be one of {', '.join(SHARING_MODELS)}, got {self.model!r}"
            )
        eff = self.packing_efficiency
        if not (isinstance(eff, (int, float)) and math.isfinite(eff) and 0 < eff <= 1):
            raise SharingError(f"sharing.packing_efficiency must be in (0, 1], got {eff!r}")

    @property
    def enabled(self) -> bool:
        """True when jobs may share GPUs (``k`` > 1)."""
        return self.k > 1


def check_policy_sharing(policy: str, supports_sharing: bool, sharing: SharingConfig) -> None:
    """Refuses ``k`` > 1 for a policy that gives every job exclusive GPUs.

    Raises:
        SharingError: naming ``sharing.k`` and the policy.
    """
    if sharing.enabled and not supports_sharing:
        raise SharingError(
            f"sharing.k = {sharing.k} but policy {policy!r} does not share GPUs; "
            "set sharing.k = 1 or pick a sharing policy (muri_s, muri_l)"
        )

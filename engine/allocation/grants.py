"""What a policy decides: grants of GPUs per job, and the decision that carries them.

A :class:`Grant` says how many GPUs of which worker type a job should hold for the coming lease
(optionally as several :class:`Part` s pinned to nodes, combined per :data:`COMBINE_MODES`); an
:data:`Allocation` maps job indices to grants; a :class:`Decision` adds what else the engine must
know (when to ask again, which jobs the policy holds back). See :mod:`engine.policies.base` for
the contract and :mod:`engine.step_time.progress` for how the parts of a grant make progress.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import NamedTuple

COMBINE_MODES = ("gang", "proportional", "relaxed", "copies")
"""How the workers of a grant make progress together (see :mod:`engine.step_time.progress`):

- ``gang``: synchronous data parallelism in lockstep; mixed types run at the slowest worker's pace.
- ``proportional``: each worker's share of the global batch is proportional to its throughput,
  so all finish a step together (Liu et al., TPDS 2024).
- ``relaxed``: Hare's relaxed fixed-scale synchronization: ``scale_factor`` tasks per training
  round run on the held GPUs in any order; the round ends when all are done (Chen et al., TCC 2024).
- ``copies``: one copy of the job per part, each confined to one node, all advancing one shared
  step counter, with a model consolidation at every round end (HadarE, Sultana et al., 2025).
"""


class Part(NamedTuple):
    """Some GPUs of one worker type within a grant.

    Attributes:
        worker_type: the GPUs' type.
        num_gpus: how many.
        node: a node index (GPU-mix order, see :class:`engine.allocation.layout.NodeLayout`) the
            GPUs must sit on, or -1 to let the placement strategy choose.
    """

    worker_type: str
    num_gpus: int
    node: int = -1


class Grant(NamedTuple):
    """GPUs granted to one job for the coming lease.

    The common case is ``Grant(worker_type, num_gpus)``: a gang of ``num_gpus`` GPUs of one type,
    placed by the scenario's placement strategy. :meth:`of_parts` builds a grant of several parts
    (mixed worker types, or GPUs pinned to nodes) with a ``combine`` mode from
    :data:`COMBINE_MODES`; ``worker_type`` is then the type of the largest part and ``num_gpus``
    the total.

    A sharing policy (issue 35, :mod:`engine.sharing`) puts up to ``k`` jobs on the same GPUs:
    the group's first job (its *host*) holds a plain grant, each other member a grant with
    ``host`` = the host's job index and the host's worker type and GPU count, placed on the
    host's GPUs and taking none of its own. ``share_speed`` is the fraction of its exclusive
    speed a member runs at in its group (its own iteration time over the group's, from the
    sharing model); both default to an exclusive gang.
    """

    worker_type: str
    num_gpus: int
    parts: tuple[Part, ...] = ()
    combine: str = "gang"
    host: int = -1
    share_speed: float = 1.0

    @classmethod
    def of_parts(cls, parts: Iterable[Part], combine: str = "gang") -> Grant:
        """A grant of several parts (kept in the given order)."""
        parts = tuple(parts)
        main = max(parts, key=lambda p: p.num_gpus)
        return cls(main.worker_type, sum(p.num_gpus for p in parts), parts, combine)

    def pieces(self) -> tuple[Part, ...]:
        """The grant's parts; a plain grant is one unpinned part."""
        return self.parts or (Part(self.worker_type, self.num_gpus),)


def shared_grant(worker_type: str, num_gpus: int, host: int, share_speed: float) -> Grant:
    """A member's grant in a shared group: ``host`` is the job index whose GPUs it shares (-1
    for the host itself), ``share_speed`` in (0, ...) its speed over its exclusive speed."""
    return Grant(worker_type, num_gpus, (), "gang", host, share_speed)


def gang_grant(worker_type: str, num_gpus: int) -> Grant:
    """``Grant(worker_type, num_gpus)``, one shared instance per pair: a grant is an immutable
    value, and a policy that starts a million gangs on a long trace (Tiresias LAS on the full
    Philly trace) need not build a tuple for each."""
    key = (worker_type, num_gpus)
    grant = _GANGS.get(key)
    if grant is None:
        grant = _GANGS[key] = Grant(worker_type, num_gpus)
    return grant


_GANGS: dict[tuple[str, int], Grant] = {}


def keeps_grant(grant: Grant | None, held: Grant | None) -> bool:
    """Whether ``grant`` is the grant ``held`` that a running job runs under: the same object
    (policies hand a kept job its own grant back) or an equal one. The engine neither checks
    nor moves such a job again."""
    return grant is held or (held is not None and grant == held)


Allocation = dict[int, Grant]
"""Job index -> grant, in priority order (the engine places jobs in this order)."""


class Decision(NamedTuple):
    """A policy's answer at a decision point, when it needs more than an :data:`Allocation`.

    ``Policy.allocate`` returns either a bare allocation (the same as ``Decision(allocation)``)
    or a decision; the engine keeps ``wake_at_s`` and ``held_for_consolidation`` until the
    policy's next decision replaces them.

    Attributes:
        allocation: job index -> grant (see :data:`Allocation`).
        wake_at_s: a time (s) at which the policy asks to decide again though nothing arrives or
            completes (e.g. when a delay timer expires); infinity for none. The engine treats it
            like an arrival: a decision if jobs may start mid-round.
        held_for_consolidation: indices of waiting jobs the policy holds back for a better
            consolidated placement (delay scheduling, Dally); the engine adds the time they
            spend waiting so to each job's ``consolidation_wait_s``.
        requeued: the policy moved a job to another priority class at this decision (Tiresias
            LAS's demotions and promotions). A testbed that relaunches its jobs whenever it
            re-plans counts it as an event (``RoundConfig.relaunch_on_event``, after Muri's
            ``demote_flag``); otherwise the engine ignores it.
    """

    allocation: Allocation
    wake_at_s: float = math.inf
    held_for_consolidation: frozenset[int] = frozenset()
    requeued: bool = False

    @classmethod
    def of(cls, answer: Allocation | Decision) -> Decision:
        """The decision a policy's answer stands for (a bare allocation: no wake-up, none held)."""
        return answer if isinstance(answer, Decision) else cls(answer)

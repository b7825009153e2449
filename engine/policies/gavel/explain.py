"""Gavel's account of its decisions (:class:`~engine.policies.explain.Explanation`).

Narayanan et al., OSDI 2020: every policy re-solves each job's share of time on each worker type
(an LP) and a round's leases go to the jobs furthest behind their share (priority = share over
rounds received). Gavel's FIFO gives each job, in arrival order, a share of 1 on one type. The
shares and priorities are the policy's internals, not in the run's records, so the key said is
the arrival order for FIFO and none for the others [R].
"""

from __future__ import annotations

from typing import ClassVar

from engine.policies.explain import ArrivalOrder, Explanation

_RULE = (
    "Gavel re-solves each job's share of time on each GPU type and jobs take turns round by "
    "round, those furthest behind their share first."
)


class GavelShares(Explanation):
    """Gavel's rule; no ranking key from the records."""

    rule: ClassVar[str] = _RULE


class GavelArrival(ArrivalOrder):
    """Gavel's rule, and arrival order (Gavel's FIFO)."""

    rule: ClassVar[str] = _RULE

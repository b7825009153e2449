"""Allocation: what a policy grants, on which nodes, and the checks at the policy boundary.

- :mod:`.grants`: :class:`Part`, :class:`Grant`, :data:`Allocation`, :data:`COMBINE_MODES` and a
  policy's :class:`Decision`.
- :mod:`.layout`: the cluster's nodes numbered once per run (:class:`NodeLayout`).
- :mod:`.validation`: the engine's checks on every allocation (:func:`validate_allocation`).

Placement (which GPUs of those nodes) lives in :mod:`engine.placement` and
:mod:`engine.cluster`; the policy contract in :mod:`engine.policies.base`.
"""

from engine import native

native.activate(__path__, __name__)  # compiled modules first, when built

from engine.allocation.grants import COMBINE_MODES, Allocation, Decision, Grant, Part
from engine.allocation.layout import NodeInfo, NodeLayout
from engine.allocation.validation import validate_allocation

__all__ = [
    "COMBINE_MODES",
    "Allocation",
    "Decision",
    "Grant",
    "NodeInfo",
    "NodeLayout",
    "Part",
    "validate_allocation",
]

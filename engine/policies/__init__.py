"""Scheduling policies, registered by name at import: baselines one module each, each seed
paper's family in its own subpackage (gavel, dally, hadar, sampling, hare).

Import this package to fill the registry; see :mod:`engine.policies.base` for the contract.
"""

from engine import native

native.activate(__path__, __name__)  # compiled modules first, when built

from engine.policies.base import (
    Allocation,
    Grant,
    Policy,
    PolicyContext,
    SchedulerState,
    get_policy,
    list_policies,
    register_policy,
)
from engine.registry import import_submodules

import_submodules(__name__, __path__)

__all__ = [
    "Allocation",
    "Grant",
    "Policy",
    "PolicyContext",
    "SchedulerState",
    "get_policy",
    "list_policies",
    "register_policy",
]

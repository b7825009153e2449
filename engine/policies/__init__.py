"""Scheduling policies, registered by name at import: baselines one module each, each seed
paper's family in its own subpackage (gavel, dally, hadar, sampling, hare).

Importing this package (or any module of it) fills the registry,
:data:`engine.policies.base.POLICIES`; see :mod:`engine.policies.base` for the contract.
"""

from engine import native

native.activate(__path__, __name__)  # compiled modules first, when built

from engine.policies.base import (
    POLICIES,
    Allocation,
    Grant,
    Policy,
    PolicyContext,
    SchedulerState,
    get_policy,
    list_policies,
)
from engine.registry import import_submodules

import_submodules(__name__, __path__)

__all__ = [
    "POLICIES",
    "Allocation",
    "Grant",
    "Policy",
    "PolicyContext",
    "SchedulerState",
    "get_policy",
    "list_policies",
]

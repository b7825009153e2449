"""Scheduling policies, one module each, registered by name at import.

Import this package to fill the registry; see :mod:`engine.policies.base` for the contract.
"""

import importlib
import pkgutil

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

for _module in pkgutil.iter_modules(__path__):
    if _module.name != "base":
        importlib.import_module(f"{__name__}.{_module.name}")

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

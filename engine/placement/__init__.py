"""Placement strategies: turn a grant (worker type, GPU count) into GPUs on nodes.

One module per strategy, registered with ``@register_placement("name")``. A strategy sees the free
GPU count of every node of the granted worker type and returns how many GPUs to take on which
nodes, or None when the type has too few free GPUs.
"""

import importlib
import pkgutil

from engine.placement.base import (
    PlacementStrategy,
    get_placement,
    list_placements,
    register_placement,
)

for _module in pkgutil.iter_modules(__path__):
    if _module.name != "base":
        importlib.import_module(f"{__name__}.{_module.name}")

__all__ = ["PlacementStrategy", "get_placement", "list_placements", "register_placement"]

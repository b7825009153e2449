"""Placement strategies: turn a grant (worker type, GPU count) into GPUs on nodes.

One module per strategy, registered by a call after the function,
``PLACEMENTS.register("name", strategy)`` (:class:`engine.registry.Registry`). A strategy sees
the free GPU count of every node of the granted worker type and returns how many GPUs to take on
which nodes, or None when the type has too few free GPUs.
"""

from engine import native

native.activate(__path__, __name__)  # compiled modules first, when built

from engine.placement.base import PLACEMENTS, PlacementStrategy, get_placement, list_placements
from engine.registry import import_submodules

import_submodules(__name__, __path__)

__all__ = ["PLACEMENTS", "PlacementStrategy", "get_placement", "list_placements"]

"""The placement-strategy contract and registry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from engine.errors import ConfigError


class PlacementStrategy(Protocol):
    """Chooses GPUs for one job.

    Args:
        free: free GPUs on each candidate node, shape (num_nodes,).
        racks: rack index of each candidate node, shape (num_nodes,).
        num_gpus: GPUs to place (<= free.sum(), checked by the caller).

    Returns:
        GPUs to take per candidate node, shape (num_nodes,), summing to ``num_gpus``.
    """

    def __call__(self, free: np.ndarray, racks: np.ndarray, num_gpus: int) -> np.ndarray: ...


_REGISTRY: dict[str, PlacementStrategy] = {}


def register_placement(name: str) -> Callable[[PlacementStrategy], PlacementStrategy]:
    """Function decorator adding a placement strategy under ``name``."""

    def wrap(fn: PlacementStrategy) -> PlacementStrategy:
        _REGISTRY[name] = fn
        return fn

    return wrap


def list_placements() -> list[str]:
    import engine.placement  # noqa: F401

    return sorted(_REGISTRY)


def get_placement(name: str) -> PlacementStrategy:
    """Raises ConfigError for an unknown name."""
    if name not in list_placements():
        raise ConfigError(f"unknown placement {name!r}; known: {list_placements()}")
    return _REGISTRY[name]

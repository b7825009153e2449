"""The placement-strategy contract and registry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from engine.errors import ConfigError


class PlacementStrategy(Protocol):
    """Chooses GPUs for one job.

    Args:
        free: free GPUs on each candidate node (all nodes of the granted worker type).
        racks: rack index of each candidate node, same length.
        num_gpus: GPUs to place (<= sum(free), checked by the caller).

    Returns:
        (candidate position, GPUs taken) pairs, positions distinct, GPUs summing to ``num_gpus``.
    """

    def __call__(
        self, free: list[int], racks: list[int], num_gpus: int
    ) -> list[tuple[int, int]]: ...


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

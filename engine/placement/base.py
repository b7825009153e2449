"""The placement-strategy contract and registry (:class:`engine.registry.Registry`)."""

from __future__ import annotations

from typing import Protocol

from engine.registry import Registry


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


PLACEMENTS: Registry[PlacementStrategy] = Registry("placement")
"""Every placement strategy by name (filled by importing :mod:`engine.placement`)."""


def list_placements() -> list[str]:
    """Registered placement strategy names, sorted."""
    return sorted(PLACEMENTS.names())


def get_placement(name: str) -> PlacementStrategy:
    """The strategy registered as ``name``.

    Raises:
        ConfigError: for an unknown name (listing the known ones).
    """
    return PLACEMENTS.get(name)

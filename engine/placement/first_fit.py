"""First-fit placement: lowest-position nodes with free GPUs first, ignoring locality.

The "no consolidation" baseline: a job lands wherever GPUs are free, so multi-GPU jobs often
span nodes or racks and pay the network model's extra communication.
"""

from __future__ import annotations

from engine.placement.base import PLACEMENTS


def first_fit(free: list[int], racks: list[int], num_gpus: int) -> list[tuple[int, int]]:
    taken = []
    for position, node_free in enumerate(free):
        if num_gpus == 0:
            break
        grab = min(num_gpus, node_free)
        if grab:
            taken.append((position, grab))
            num_gpus -= grab
    return taken


PLACEMENTS.register("first_fit", first_fit)

"""The heterogeneity-agnostic choice of worker type shared by FIFO and Tiresias LAS.

Compiled with mypyc (:mod:`engine.native`): Tiresias LAS calls it for every job it places on
a new worker type, about 1.4 million times on the full Philly trace; :mod:`engine.policies.fifo`
itself stays plain Python (tests subclass its policy, and an interpreted class cannot inherit
from a compiled one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.state import JobState


def most_free_type(job: JobState, free_gpus: dict[str, int]) -> str | None:
    """The worker type with the most free GPUs that fits ``job``'s gang, or None (ties: the
    first in ``free_gpus``' order). FIFO's rule [R], see :mod:`engine.policies.fifo`."""
    best, best_free = None, job.scale_factor - 1
    for worker_type, free in free_gpus.items():
        if free > best_free and job.steps_per_s.get(worker_type, 0.0) > 0:
            best, best_free = worker_type, free
    return best

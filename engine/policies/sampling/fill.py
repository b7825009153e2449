"""Hands each class's matched workers to its jobs (sampling-based placement, Liu et al., IEEE TPDS
35(6), 2024, doi 10.1109/TPDS.2024.3390109; [R] shared/docs/schedulers.md, section A).

The market (:mod:`engine.policies.sampling.matching`) decides how many workers of each type each
class of jobs gets; any split among the class's jobs is optimal for it. Running jobs first keep
their current GPUs where the class's share allows (no restart), and the rest take contiguous runs
of a per-class line of types, so few jobs mix worker types.

Most running jobs keep their GPUs in every category of a decision: a job that asks for its
current size in every category, and whose class's running jobs up to it (in keep order) hold no
more of any type than the class gets in the leanest category, is *settled*. :func:`split_fill`
copies the settled jobs' GPUs once and runs the hand-out on the other jobs only, with the settled
jobs' GPUs taken out of the class shares. The counts are those of handing out to every job
(``tests/engine/test_sampling_fill.py``): a job that asks to keep its GPUs is tested against the
jobs before it in keep order, and taking out a settled job that comes after it changes nothing,
since the running jobs up to that settled job, this one included, fit the leanest share.
"""

from __future__ import annotations

import numpy as np


def split_fill(
    class_counts: np.ndarray,
    sizes: np.ndarray,
    job_class: np.ndarray,
    current: np.ndarray,
    keep_order: np.ndarray,
    line_order: np.ndarray,
    type_order: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Hands each class's matched workers to its jobs (compiled:
    :func:`~engine.policies.sampling.kernels_fill.split_fill_rows`).

    Args:
        class_counts: (N, C, T) workers per class and type, from
            :func:`engine.policies.sampling.matching.market`.
        sizes: (N, J) workers each job asked for in each category.
        job_class: (J,) class of each job.
        current: (J, T) GPUs each job holds now (zeros for waiting jobs).
        keep_order: running jobs, those of a class contiguous, in the order they may keep
            their GPUs.
        line_order: (J,) job order along each class's line of types (jobs of a class
            contiguous).
        type_order: (C, T) each class's line of types.

    Returns:
        (J,) the settled jobs (their current GPUs in every category), and (N, J - S, T) the
        others' workers, jobs in order. A running job keeps exactly its current GPUs when its
        size is unchanged and, together with the jobs of its class before it in ``keep_order``
        that ask to keep theirs, it fits the class's share; the others take contiguous runs of
        the class's remaining workers along its line of types.
    """
    from engine.policies.sampling.kernels_fill import split_fill_rows

    arrays = (class_counts, sizes, job_class, current, keep_order, line_order, type_order)
    settled, out_rest = split_fill_rows(*_contiguous(arrays))
    return settled, out_rest


def _contiguous(arrays: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """The arrays as C-contiguous int64 (one compiled signature)."""
    return tuple(np.ascontiguousarray(a, dtype=np.int64) for a in arrays)

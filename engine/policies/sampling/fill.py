"""Hands each class's matched workers to its jobs (sampling-based placement, Liu et al., IEEE TPDS
35(6), 2024, doi 10.1109/TPDS.2024.3390109; [R] shared/docs/schedulers.md, section A).

The market (:mod:`engine.policies.sampling.matching`) decides how many workers of each type each
class of jobs gets; any split among the class's jobs is optimal for it. Running jobs first keep
their current GPUs where the class's share allows (no restart), and the rest take contiguous runs
of a per-class line of types, so few jobs mix worker types.

Most running jobs keep their GPUs in every category of a decision: a job that asks for its
current size in every category, and whose class's running jobs up to it (in keep order) hold no
more of any type than the class gets in the leanest category, is *settled*. :func:`fill_jobs`
copies the settled jobs' GPUs once and runs the hand-out on the other jobs only, with the settled
jobs' GPUs taken out of the class shares. The counts are those of handing out to every job
(``tests/engine/test_sampling_fill.py``): a job that asks to keep its GPUs is tested against the
jobs before it in keep order, and taking out a settled job that comes after it changes nothing,
since the running jobs up to that settled job, this one included, fit the leanest share.
"""

from __future__ import annotations

import numpy as np


def fill_jobs(*arrays: np.ndarray) -> np.ndarray:
    """(N, J, T) workers of each type per job: :func:`split_fill`'s two parts put together."""
    settled, out_rest = split_fill(*arrays)
    class_counts, sizes, current = arrays[0], arrays[1], arrays[3]
    out = np.empty(sizes.shape + (class_counts.shape[2],), dtype=np.int64)
    out[:, settled] = current[settled]
    out[:, ~settled] = out_rest
    return out


def split_fill(
    class_counts: np.ndarray,
    sizes: np.ndarray,
    job_class: np.ndarray,
    current: np.ndarray,
    keep_order: np.ndarray,
    line_order: np.ndarray,
    type_order: np.ndarray,
    *,
    settle: bool = True,
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
        settle: False hands out to every job, none settled (the rule settling must equal).

    Returns:
        (J,) the settled jobs (their current GPUs in every category), and (N, J - S, T) the
        others' workers, jobs in order. A running job keeps exactly its current GPUs when its
        size is unchanged and, together with the jobs of its class before it in ``keep_order``
        that ask to keep theirs, it fits the class's share; the others take contiguous runs of
        the class's remaining workers along its line of types.
    """
    from engine.policies.sampling.kernels_fill import split_fill_rows

    arrays = (class_counts, sizes, job_class, current, keep_order, line_order, type_order)
    settled, out_rest = split_fill_rows(*_contiguous(arrays), settle)
    return settled, out_rest


def hand_out(*arrays: np.ndarray) -> np.ndarray:
    """:func:`split_fill`'s (N, J, T) hand-out to every job, none settled."""
    return split_fill(*arrays, settle=False)[1]


def _settled(
    class_counts: np.ndarray,
    sizes: np.ndarray,
    job_class: np.ndarray,
    current: np.ndarray,
    keep_order: np.ndarray,
) -> np.ndarray:
    """(J,) jobs that keep their current GPUs in every category (see the module docstring)."""
    from engine.policies.sampling.kernels_fill import settle

    settled = np.zeros(len(job_class), dtype=bool)
    settle(*_contiguous((class_counts, sizes, job_class, current, keep_order)), settled)
    return settled


def _contiguous(arrays: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """The arrays as C-contiguous int64 (one compiled signature)."""
    return tuple(np.ascontiguousarray(a, dtype=np.int64) for a in arrays)

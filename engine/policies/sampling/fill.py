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

from engine.policies.sampling.types_axis import all_types, cumsum_types, sum_types


def fill_jobs(
    class_counts: np.ndarray,
    sizes: np.ndarray,
    job_class: np.ndarray,
    current: np.ndarray,
    keep_order: np.ndarray,
    line_order: np.ndarray,
    type_order: np.ndarray,
) -> np.ndarray:
    """Hands each class's matched workers to its jobs.

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
        (N, J, T) workers of each type per job. A running job keeps exactly its current GPUs when
        its size is unchanged and, together with the jobs of its class before it in
        ``keep_order`` that ask to keep theirs, it fits the class's share; the others take
        contiguous runs of the class's remaining workers along its line of types.
    """
    settled, out_rest = split_fill(
        class_counts, sizes, job_class, current, keep_order, line_order, type_order
    )
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
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`fill_jobs` as (J,) the settled jobs (their current GPUs in every category) and
    (N, J - S, T) the others' workers, jobs in order."""
    settled = _settled(class_counts, sizes, job_class, current, keep_order)
    if not settled.any():
        args = (class_counts, sizes, job_class, current, keep_order, line_order, type_order)
        return settled, hand_out(*args)
    rest = ~settled
    new_index = np.cumsum(rest) - 1
    held = np.zeros_like(class_counts[0])
    np.add.at(held, job_class[settled], current[settled])
    keep = keep_order[rest[keep_order]]
    line = line_order[rest[line_order]]
    out_rest = hand_out(
        class_counts - held,
        sizes[:, rest],
        job_class[rest],
        current[rest],
        new_index[keep],
        new_index[line],
        type_order,
    )
    return settled, out_rest


def _settled(
    class_counts: np.ndarray,
    sizes: np.ndarray,
    job_class: np.ndarray,
    current: np.ndarray,
    keep_order: np.ndarray,
) -> np.ndarray:
    """(J,) jobs that keep their current GPUs in every category (see the module docstring)."""
    settled = np.zeros(len(job_class), dtype=bool)
    if not keep_order.size:
        return settled
    want = current[keep_order]
    asks = (sizes[:, keep_order] == want.sum(axis=1)).all(axis=0)
    upper = _segment_cumsum(want[None], job_class[keep_order])[0]
    leanest = class_counts.min(axis=0)[job_class[keep_order]]
    settled[keep_order] = asks & (upper <= leanest).all(axis=1)
    return settled


def hand_out(
    class_counts: np.ndarray,
    sizes: np.ndarray,
    job_class: np.ndarray,
    current: np.ndarray,
    keep_order: np.ndarray,
    line_order: np.ndarray,
    type_order: np.ndarray,
) -> np.ndarray:
    """:func:`fill_jobs` for every job given."""
    out = np.zeros(sizes.shape + (class_counts.shape[2],), dtype=np.int64)
    pool = class_counts - _keep(class_counts, sizes, job_class, current, keep_order, out)
    need = (sizes - sum_types(out))[:, line_order]
    cls = job_class[line_order]
    lo = _segment_cumsum(need, cls) - need
    hi = lo + need
    types = type_order[cls]  # (J, T): each job's class line
    along = pool[:, cls[:, None], types]  # (N, J, T)
    type_hi = cumsum_types(along)
    share = np.minimum(hi[..., None], type_hi) - np.maximum(lo[..., None], type_hi - along)
    out[:, line_order[:, None], types] += np.clip(share, 0, None)
    return out


def _keep(
    class_counts: np.ndarray,
    sizes: np.ndarray,
    job_class: np.ndarray,
    current: np.ndarray,
    keep_order: np.ndarray,
    out: np.ndarray,
) -> np.ndarray:
    """Writes kept GPUs into ``out``; returns the (N, C, T) GPUs they take from each class."""
    if not keep_order.size:
        return np.zeros_like(class_counts)
    cls = job_class[keep_order]
    want = current[keep_order]
    asks = sizes[:, keep_order] == want.sum(axis=1)
    demand = asks[..., None] * want  # (N, R, T)
    fits = all_types(_segment_cumsum(demand, cls) <= class_counts[:, cls, :])
    kept = (asks & fits)[..., None] * want
    out[:, keep_order] = kept
    start = _run_starts(cls)
    taken = np.zeros_like(class_counts)
    taken[:, cls[start]] = np.add.reduceat(kept, start, axis=1)
    return taken


def _segment_cumsum(values: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """Cumulative sum along axis 1, restarting where ``segments`` (sorted runs) changes."""
    total = np.cumsum(values, axis=1)
    start = _run_starts(segments)
    first = np.repeat(start, np.diff(start, append=len(segments)))
    return total - total[:, first] + values[:, first]


def _run_starts(segments: np.ndarray) -> np.ndarray:
    """Where each run of equal values of ``segments`` (class indices, >= 0) starts."""
    return np.flatnonzero(np.diff(segments, prepend=-1))

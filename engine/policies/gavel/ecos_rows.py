"""The constraint matrices of Gavel's ECOS programs (:mod:`engine.policies.gavel.ecos`), built
as compressed columns from their entries.

Each program's matrix is listed as (row, column, value) entries and sorted into CSC once. That
gives the very arrays (values, row indices, column starts) that stacking the blocks with
``scipy.sparse`` gave, explicit zeros included (a pair where the job does not run keeps its
stored 0, as in the stacked blocks; ECOS orders its KKT system by the stored pattern), for a
fraction of the cost: the stacking took about 14 ms of a 19 ms finish-time fairness solve on
Gavel's 160-job trace (issue 11). ``tests/engine/test_policies_gavel_ecos_rows.py`` compares
the arrays with the stacked blocks'.

Shares are row-major: column ``j K + k`` is job ``j`` on worker type ``k``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

Entries = tuple[np.ndarray, np.ndarray, np.ndarray]  # rows, columns, values


def csc(entries: list[Entries], shape: tuple[int, int]) -> sp.csc_matrix:
    """The matrix of ``entries`` (no two at the same place), row indices ascending per column."""
    rows = np.concatenate([e[0] for e in entries])
    cols = np.concatenate([e[1] for e in entries])
    values = np.concatenate([e[2] for e in entries]).astype(float)
    order = np.lexsort((rows, cols))
    indptr = np.zeros(shape[1] + 1, dtype=np.int32)
    np.cumsum(np.bincount(cols, minlength=shape[1]), out=indptr[1:])
    return sp.csc_matrix(
        (values[order], rows[order].astype(np.int32), indptr), shape=shape, copy=False
    )


def base_entries(scale_factors: np.ndarray, capacity: np.ndarray, first_row: int) -> list[Entries]:
    """Gavel's base rows from ``first_row`` on: ``-x <= 0`` (n K rows), ``sum_j sf_j x[j, k]
    <= cap_k`` (K rows), ``sum_k x[j, k] <= 1`` (n rows)."""
    n, num_types = scale_factors.size, capacity.size
    m = n * num_types
    pairs = np.arange(m)
    job_of, type_of = pairs // num_types, pairs % num_types
    return [
        (first_row + pairs, pairs, np.full(m, -1.0)),
        (first_row + m + type_of, pairs, scale_factors[job_of]),
        (first_row + m + num_types + job_of, pairs, np.ones(m)),
    ]


def per_job_entries(values: np.ndarray, first_row: int) -> Entries:
    """Row ``first_row + j`` holds ``values[j, k]`` at share column ``j K + k`` (every pair)."""
    n, num_types = values.shape
    pairs = np.arange(n * num_types)
    return first_row + pairs // num_types, pairs, values.ravel()


def cone_entries(throughputs: np.ndarray, first_row: int, first_w_col: int) -> list[Entries]:
    """The finish-time fairness cones, three rows per job from ``first_row``: ``(-tput_j . x -
    w_j, 0, -tput_j . x + w_j)`` (``w_j`` at column ``first_w_col + j``; the middle row is the
    constant 2 of the right-hand side)."""
    n = throughputs.shape[0]
    jobs = np.arange(n)
    job_of, pairs, rate = per_job_entries(-throughputs, 0)
    return [
        (first_row + 3 * job_of, pairs, rate),
        (first_row + 3 * jobs, first_w_col + jobs, np.full(n, -1.0)),
        (first_row + 3 * job_of + 2, pairs, rate),
        (first_row + 3 * jobs + 2, first_w_col + jobs, np.ones(n)),
    ]

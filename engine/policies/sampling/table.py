"""Per-job inputs of the sampling-based placement policy, kept in arrays across decisions.

A job's step-time inputs (:func:`engine.policies.sampling.model.job_row`) never change, so the
policy reads them from the matrix once, the first time it sees the job, and stores them in rows
of arrays indexed by job index; a decision gathers its jobs' rows by fancy indexing instead of
stacking per-job arrays. The values are those of stacking
:func:`~engine.policies.sampling.model.job_row` per decision, bit for bit
(``tests/engine/test_sampling_table.py``). A job's current GPUs per type are kept while its
placement object stays the same,
and jobs with equal one-GPU rates share a valuation id, so a decision's job classes come from one
``np.unique`` over ids.

Memory: 8 x T x 4 bytes per job index seen, plus 8 x T x (scale factor + 1) bytes per job of scale
factor > 1 (a one-GPU job's sync row is all zeros and shares row 0).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.cluster import Placement
from engine.config import NetworkConfig
from engine.policies.sampling.model import JobInputs, job_row
from engine.state import JobState
from engine.step_time.throughput import ThroughputMatrix


class JobTable:
    """Step-time inputs and current GPUs of every job the policy has seen, by job index.

    Attributes:
        one_gpu, full: (capacity, T) as in :class:`~engine.policies.sampling.model.JobRow`.
        valuation: (capacity,) id of the job's ``one_gpu`` row among the distinct rows seen.
        held: (capacity, T) GPUs per type held at the placement last seen.
        best: (capacity,) ``one_gpu.max(axis=1)``. scale_factor: (capacity,) int.
        gradient_bytes, arrival_s: (capacity,).
        sync: (S, T, W) measured sync rows; row 0 is all zeros; ``sync_row`` (capacity,) maps a
            job to its row.
    """

    def __init__(self, types: list[str], net: NetworkConfig, matrix: ThroughputMatrix) -> None:
        self.types, self.net, self.matrix = types, net, matrix
        self.column = {worker_type: t for t, worker_type in enumerate(types)}
        self.known = np.zeros(0, dtype=bool)
        self.one_gpu = self.full = np.zeros((0, len(types)))
        self.best = self.gradient_bytes = self.arrival_s = np.zeros(0)
        self.scale_factor = self.sync_row = np.zeros(0, dtype=np.int64)
        self.sync = np.zeros((1, len(types), 2))
        self._sync_used = 1
        self.held = np.zeros((0, len(types)), dtype=np.int64)
        self.valuation = np.zeros(0, dtype=np.int64)
        self._placed: list[Placement | None] = []
        self._valuation_ids: dict[bytes, int] = {}

    def indices(self, jobs: Sequence[JobState]) -> np.ndarray:
        """(J,) the jobs' indices, reading the rows of jobs not seen before."""
        idx = np.fromiter((j.index for j in jobs), dtype=np.int64, count=len(jobs))
        if len(idx) and int(idx.max()) >= len(self.known):
            self._grow(int(idx.max()) + 1)
        new = np.nonzero(~self.known[idx])[0]
        for j in new.tolist():
            self._add(jobs[j])
        return idx

    def inputs(self, idx: np.ndarray) -> JobInputs:
        """The stacked inputs of jobs ``idx`` (sync as wide as their largest scale factor + 1)."""
        scale_factor = self.scale_factor[idx]
        width = int(scale_factor.max()) + 1
        sync = self.sync[self.sync_row[idx], :, :width]
        return JobInputs(
            self.one_gpu[idx], self.full[idx], sync, scale_factor, self.gradient_bytes[idx]
        )

    def current(self, jobs: Sequence[JobState], idx: np.ndarray) -> np.ndarray:
        """(J, T) GPUs each of ``jobs`` (indices ``idx``) holds now; a job's row is read again
        only when its placement object changes."""
        placed, held = self._placed, self.held
        for job in jobs:
            placement = job.placement
            if placement is not placed[job.index]:
                placed[job.index] = placement
                held[job.index] = 0
                if placement is not None:
                    for worker_type, count in placement.gpus_by_type().items():
                        held[job.index, self.column[worker_type]] = count
        return held[idx]

    def classes(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Distinct valuation rows (C, T) of jobs ``idx`` (their ``one_gpu``) in order of first
        appearance, and each job's row index."""
        class_of: dict[int, int] = {}  # valuation id -> class, in order of first appearance
        first: list[int] = []  # each class's first job
        job_class = []
        for j, valuation in enumerate(self.valuation[idx].tolist()):
            c = class_of.setdefault(valuation, len(class_of))
            if c == len(first):
                first.append(j)
            job_class.append(c)
        return self.one_gpu[idx[first]], np.array(job_class, dtype=np.int64)

    def _grow(self, size: int) -> None:
        size = max(size, 2 * len(self.known))
        extra = size - len(self.known)
        self.known = np.r_[self.known, np.zeros(extra, dtype=bool)]
        self.one_gpu = np.vstack([self.one_gpu, np.zeros((extra, len(self.types)))])
        self.full = np.vstack([self.full, np.zeros((extra, len(self.types)))])
        self.best, self.gradient_bytes, self.arrival_s = (
            np.r_[a, np.zeros(extra)] for a in (self.best, self.gradient_bytes, self.arrival_s)
        )
        self.scale_factor = np.r_[self.scale_factor, np.zeros(extra, dtype=np.int64)]
        self.sync_row = np.r_[self.sync_row, np.zeros(extra, dtype=np.int64)]
        self.valuation = np.r_[self.valuation, np.zeros(extra, dtype=np.int64)]
        self.held = np.vstack([self.held, np.zeros((extra, len(self.types)), dtype=np.int64)])
        self._placed.extend([None] * extra)

    def _add(self, job: JobState) -> None:
        row = job_row(job, self.types, self.net, self.matrix)
        i = job.index
        self.known[i] = True
        self.one_gpu[i], self.full[i], self.best[i] = row.one_gpu, row.full, row.one_gpu.max()
        self.scale_factor[i], self.gradient_bytes[i] = job.scale_factor, job.gradient_bytes
        self.arrival_s[i] = job.arrival_s
        key = row.one_gpu.tobytes()
        self.valuation[i] = self._valuation_ids.setdefault(key, len(self._valuation_ids))
        if job.scale_factor + 1 > self.sync.shape[2]:
            pad = job.scale_factor + 1 - self.sync.shape[2]
            self.sync = np.pad(self.sync, ((0, 0), (0, 0), (0, pad)))
        if row.sync.any():
            if self._sync_used == len(self.sync):
                self.sync = np.concatenate([self.sync, np.zeros_like(self.sync)])
            self.sync[self._sync_used, :, : row.sync.shape[1]] = row.sync
            self.sync_row[i] = self._sync_used
            self._sync_used += 1

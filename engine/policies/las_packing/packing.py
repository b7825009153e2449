"""Packing LAS's choice of the running job whose GPUs a waiting job shares.

Rules [R] (ours, in the spirit of Gandiva, Xiao et al., OSDI 2018, section 4.2: it packs jobs on
the same GPUs when the cluster is oversubscribed and picks the pairing its profile says runs
best): a waiting job may join a granted job of the same gang size on a worker type the job runs
on, while that group holds fewer than ``k`` jobs. Time slicing: the group with the fewest jobs,
ties to the host of lowest LAS priority (the most served is slowed, not the least); a job that
shared a host's GPUs before the decision prefers that host (no needless relaunch).
Interleaving: the group whose jobs and the newcomer use their resources most (Muri's weight,
:func:`engine.sharing.utilisation`), ties as under time slicing.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence

from engine.sharing import StageTimes, utilisation

Key = tuple[str, int]  # (worker type, GPUs)


class OpenGroup:
    """A granted job's GPUs and the jobs packed onto them: job indices, the host first."""

    def __init__(self, worker_type: str, num_gpus: int, host: int, rank: int) -> None:
        self.worker_type = worker_type
        self.num_gpus = num_gpus
        self.members = [host]
        self.rank = rank  # the host's place in LAS order (higher: less priority)


Entry = tuple[int, int, OpenGroup]  # (jobs in the group when pushed, -rank, the group)


class Packer:
    """The open groups of one decision, by (worker type, GPUs): a heap each, fewest jobs then
    lowest priority first (entries whose group grew since are refreshed when they surface).

    Args:
        k: most jobs in a group.
        stages_of: a job index's stage times (interleaving), or None under time slicing.
    """

    def __init__(self, k: int, stages_of: Callable[[int], StageTimes] | None) -> None:
        self.k = k
        self.stages_of = stages_of
        self.open: dict[Key, list[Entry]] = {}
        self.by_host: dict[int, OpenGroup] = {}
        self.open_by_size: dict[int, int] = {}  # GPUs -> groups still open

    def add_host(self, worker_type: str, num_gpus: int, host: int, rank: int) -> None:
        """A job granted GPUs of its own (in LAS order): a group others may join."""
        group = OpenGroup(worker_type, num_gpus, host, rank)
        heapq.heappush(self.open.setdefault((worker_type, num_gpus), []), (1, -rank, group))
        self.by_host[host] = group
        self.open_by_size[num_gpus] = self.open_by_size.get(num_gpus, 0) + 1

    def join(self, index: int, num_gpus: int, types: Sequence[str], host: int) -> OpenGroup | None:
        """The group job ``index`` joins (added to its members), or None when none is open.

        Args:
            index: the waiting job.
            num_gpus: its gang size.
            types: worker types it runs on.
            host: the host whose GPUs it shared before the decision (-1: none).
        """
        group = self.by_host.get(host)
        if (
            group is None
            or group.num_gpus != num_gpus
            or len(group.members) >= self.k
            or group.worker_type not in types
        ):
            group = self._best(index, num_gpus, types)
        if group is None:
            return None
        group.members.append(index)
        if len(group.members) >= self.k:
            self.open_by_size[num_gpus] -= 1
        return group

    def _best(self, index: int, num_gpus: int, types: Sequence[str]) -> OpenGroup | None:
        """The open group the rules pick for job ``index`` (module docstring)."""
        if self.stages_of is not None:
            return self._best_interleaved(index, num_gpus, types)
        best: Entry | None = None
        for worker_type in types:
            entry = self._head((worker_type, num_gpus))
            if entry is not None and (best is None or entry[:2] < best[:2]):
                best = entry
        return None if best is None else best[2]

    def _head(self, key: Key) -> Entry | None:
        """The heap's first open group, its entry up to date (full groups dropped)."""
        heap = self.open.get(key)
        while heap:
            size, rank, group = heap[0]
            now = len(group.members)
            if now == size:
                return heap[0]
            heapq.heappop(heap)
            if now < self.k:
                heapq.heappush(heap, (now, rank, group))
        return None

    def _best_interleaved(
        self, index: int, num_gpus: int, types: Sequence[str]
    ) -> OpenGroup | None:
        """Interleaving: the open group of most utilisation with job ``index``, then as
        :meth:`_best` (a scan: the traces with stage times are small)."""
        stages_of = self.stages_of
        assert stages_of is not None
        best: OpenGroup | None = None
        best_key = (0.0, 0, 0)
        for worker_type in types:
            for _, _, group in self.open.get((worker_type, num_gpus), ()):
                size = len(group.members)
                if size >= self.k:
                    continue
                weight = utilisation([stages_of(i) for i in [*group.members, index]])
                key = (weight, -size, group.rank)
                if best is None or key > best_key:
                    best, best_key = group, key
        return best

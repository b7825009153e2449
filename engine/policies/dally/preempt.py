"""Network-sensitive preemption for Dally (Sharma et al., arXiv 2401.16492, 2024), reconstructed.

When a sensitive waiting job (network sensitivity >= theta) cannot get a placement at its allowed
level, :class:`Evictor` looks for a well-consolidated slot (one node, or one rack when the job's
timers allow rack) that evicting running jobs would open. Candidates are strictly less sensitive
than the job and in the same or a lower-priority LAS queue; within a slot they go least sensitive
first, then lowest priority (most attained service). A slot is taken only if the time the job
saves beats the victims' cost [R]:

- saved = the job's remaining runtime at its best placement available now (or across racks on its
  fastest type, if nothing is free) minus its runtime in the slot;
- cost = for each victim, the checkpoint-restore cost plus its expected wait to restart: zero if
  enough GPUs of its type are free once the job is placed, else the time until running jobs'
  completions (clairvoyant: remaining steps over current rate) free enough GPUs for the victim
  and for the waiting jobs ahead of it in LAS order (a fluid estimate: every job's GPUs are
  counted on the victim's type, and the victims' own completions are not removed).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate
from typing import NamedTuple

from engine.policies.dally.levels import NODE, RACK, Board, DallyLayout, LevelModel, Option
from engine.state import JobState

QueueFn = Callable[[JobState], int]


class Eviction(NamedTuple):
    """A slot to open: the job's placement there, its victims, and the net time saved (s)."""

    option: Option
    victims: tuple[JobState, ...]
    net_saved_s: float


class Evictor:
    """Finds beneficial evictions during one decision (see module docstring)."""

    def __init__(
        self,
        running: Iterable[JobState],
        board: Board,
        model: LevelModel,
        now_s: float,
        restore_s: float,
        queue: QueueFn,
        waiting: Sequence[JobState] = (),
    ) -> None:
        self.board, self.model, self.now_s = board, model, now_s
        self.restore_s, self.queue = restore_s, queue
        assert isinstance(board.topology, DallyLayout)  # Dally's boards are built on its layout
        self.topology = board.topology
        self.on_node: dict[int, list[tuple[JobState, int]]] = {}
        for job in running:
            placement = job.placement
            if placement is not None and not placement.node_types:
                for node, count in zip(placement.nodes, placement.counts, strict=True):
                    self.on_node.setdefault(node, []).append((job, count))
        self._ahead_keys = [self._priority(job) for job in waiting]  # sorted by the caller
        self._ahead_gpus = list(accumulate(job.scale_factor for job in waiting))
        self._curves = _completion_curves(running, now_s)

    def plan(self, job: JobState, allowed: int, alt_runtime_s: float) -> Eviction | None:
        """The most beneficial eviction for ``job`` at a level <= min(allowed, RACK), or None."""
        best: Eviction | None = None
        for wt in self.topology.fitting_types(job):
            first = self.topology.best_level(wt, job.scale_factor)
            for level in range(first, min(allowed, RACK) + 1):
                saved = alt_runtime_s - self.model.runtime_s(job, wt, level, self.now_s)
                if saved <= self.restore_s:
                    continue
                for slot in self._slots(wt, level):
                    found = self._open(job, wt, slot, saved)
                    if found is not None and (best is None or found.net_saved_s > best.net_saved_s):
                        best = found
        return best

    def evicted(self, victim: JobState) -> None:
        """Forgets a victim as a holder (it no longer runs in this decision)."""
        placement = victim.placement
        assert placement is not None
        for node in placement.nodes:
            self.on_node[node] = [(j, c) for j, c in self.on_node[node] if j is not victim]

    def _slots(self, worker_type: str, level: int) -> list[list[int]]:
        """Candidate slots: each node of the type, or each rack's nodes of the type."""
        nodes = self.topology.type_nodes[worker_type]
        if level == NODE:
            return [[n] for n in nodes]
        by_rack: dict[str, list[int]] = {}
        for node in nodes:
            by_rack.setdefault(self.topology.rack_of[node], []).append(node)
        return list(by_rack.values())

    def _open(self, job: JobState, wt: str, slot: list[int], saved_s: float) -> Eviction | None:
        free = self.board.free
        capacity = sum(free[n] for n in slot) + sum(
            c for n in slot for _, c in self.on_node.get(n, ())
        )
        need = job.scale_factor - sum(free[n] for n in slot)
        if capacity < job.scale_factor or need <= 0:
            return None
        in_slot: dict[int, tuple[JobState, int]] = {}
        for node in slot:
            for holder, count in self.on_node.get(node, ()):
                if self._eligible(holder, job):
                    prev = in_slot.get(holder.index, (holder, 0))[1]
                    in_slot[holder.index] = (holder, prev + count)
        ordered = sorted(in_slot.values(), key=lambda hc: self._victim_key(hc[0]))
        victims, got = [], 0
        for holder, count in ordered:
            if got >= need:
                break
            victims.append(holder)
            got += count
        if got < need:
            return None
        net = saved_s - self._cost(victims, wt, job.scale_factor)
        if net <= 0:
            return None
        counts = {n: free[n] for n in slot}
        for victim in victims:
            assert victim.placement is not None
            for node, count in zip(victim.placement.nodes, victim.placement.counts, strict=True):
                if node in counts:
                    counts[node] += count
        parts = _fill(counts, job.scale_factor)
        level = NODE if len(parts) == 1 else RACK
        return Eviction(Option(wt, level, parts), tuple(victims), net)

    def _eligible(self, holder: JobState, job: JobState) -> bool:
        """Never evict a job for an equally or less sensitive one, nor a higher-priority one."""
        if holder.network_sensitivity >= job.network_sensitivity:
            return False
        return self.queue(holder) >= self.queue(job)

    def _victim_key(self, holder: JobState) -> tuple[float, int, float, int]:
        return (holder.network_sensitivity, -self.queue(holder),
                -holder.attained_service_gpu_s, -holder.index)  # fmt: skip

    def _cost(self, victims: list[JobState], worker_type: str, job_gpus: int) -> float:
        pool = self.board.type_free[worker_type] - job_gpus + sum(v.num_gpus for v in victims)
        cost = 0.0
        for victim in victims:
            cost += self.restore_s
            if pool >= victim.num_gpus:
                pool -= victim.num_gpus
                continue
            cost += self._wait_s(worker_type, victim.num_gpus + self._ahead(victim) - max(0, pool))
        return cost

    def _priority(self, job: JobState) -> tuple[int, float, int]:
        return (self.queue(job), job.arrival_s, job.index)

    def _ahead(self, victim: JobState) -> int:
        """GPUs wanted by waiting jobs ahead of the victim in LAS order."""
        at = bisect_left(self._ahead_keys, self._priority(victim))
        return self._ahead_gpus[at - 1] if at > 0 else 0

    def _wait_s(self, worker_type: str, gpus: int) -> float:
        """Time until running jobs of ``worker_type`` complete and free ``gpus`` GPUs."""
        finish_s, freed = self._curves.get(worker_type, ([], []))
        at = bisect_left(freed, gpus)
        if at >= len(freed):
            return float("inf")
        return max(0.0, finish_s[at] - self.now_s)


def _completion_curves(
    running: Iterable[JobState], now_s: float
) -> dict[str, tuple[list[float], list[int]]]:
    """Per worker type: running jobs' expected finish times, sorted, and the GPUs freed by then
    (cumulative). Clairvoyant: remaining steps over the current rate."""
    finishes: dict[str, list[tuple[float, int]]] = {}
    for job in running:
        placement = job.placement
        if placement is None or placement.node_types:
            continue
        done_s = job.finish_time_s(now_s) if job.rate > 0 else float("inf")
        finishes.setdefault(placement.worker_type, []).append((done_s, placement.num_gpus))
    curves = {}
    for worker_type, rows in finishes.items():
        rows.sort()
        curves[worker_type] = ([t for t, _ in rows], list(accumulate(g for _, g in rows)))
    return curves


def _fill(counts: dict[int, int], num_gpus: int) -> tuple[tuple[int, int], ...]:
    """Takes ``num_gpus`` from the nodes with the most room first (ties: lower node)."""
    taken = []
    for node in sorted(counts, key=lambda n: (-counts[n], n)):
        grab = min(num_gpus, counts[node])
        if grab:
            taken.append((node, grab))
            num_gpus -= grab
        if num_gpus == 0:
            break
    return tuple(sorted(taken))

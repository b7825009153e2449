"""What the per-team results need, booked at each decision: each job's wait split by cause, and
each ClusterQueue's GPU usage over time.

A job's queueing delay is split as Jeon et al. (ATC'19) split Philly's: *quota* wait (its
ClusterQueue's head did not fit the quota: their "fair-share delay") and *placement* wait (the
quota fit, but the worker type had too few free GPUs: their "fragmentation delay"). Each
ClusterQueue keeps a clock of the time it spent blocked for each cause; a job's wait of each
cause is its queue's clock when it leaves the queue minus the clock when it entered [R: a job
waits for the cause its queue's head waits for].

Compiled with mypyc (:mod:`engine.native`): it runs once per scheduling decision.
"""

from __future__ import annotations

from engine.quota.tree import QuotaNode


class WaitLedger:
    """Per-job quota and placement wait, from per-queue clocks of blocked time.

    Args:
        jobs: number of jobs (indices 0 .. jobs - 1).

    Attributes:
        quota_wait_s: per job index, seconds its queue's head waited for quota.
        placement_wait_s: per job index, seconds it waited for free GPUs of the flavor.
    """

    def __init__(self, jobs: int) -> None:
        self.quota_wait_s = [0.0] * jobs
        self.placement_wait_s = [0.0] * jobs
        self._quota_clock_s: dict[str, float] = {}
        self._placement_clock_s: dict[str, float] = {}
        self._blocked: dict[str, str] = {}  # queue -> "quota" or "placement", since _last_s
        self._entered: dict[int, tuple[float, float]] = {}
        self._last_s = 0.0

    def advance(self, now_s: float) -> None:
        """Adds the time since the last decision to each blocked queue's clock."""
        elapsed = now_s - self._last_s
        if elapsed > 0:
            for queue, why in self._blocked.items():
                clock = self._quota_clock_s if why == "quota" else self._placement_clock_s
                clock[queue] = clock.get(queue, 0.0) + elapsed
        self._last_s = now_s

    def block(self, blocked: dict[str, str]) -> None:
        """Each queue's cause of waiting from now on (queue -> "quota" or "placement")."""
        self._blocked = blocked

    def enter(self, index: int, queue: str) -> None:
        """Job ``index`` joins ``queue`` (on arrival, or again after an eviction)."""
        self._entered[index] = self._clocks(queue)

    def leave(self, index: int, queue: str) -> None:
        """Job ``index`` is admitted: its waits since it entered are booked."""
        quota_s, placement_s = self._clocks(queue)
        entered = self._entered.pop(index, (quota_s, placement_s))
        self.quota_wait_s[index] += quota_s - entered[0]
        self.placement_wait_s[index] += placement_s - entered[1]

    def add_quota_wait(self, index: int, wait_s: float) -> None:
        """Books quota wait the clocks did not see (the engine asked no decision)."""
        self.quota_wait_s[index] += wait_s

    def _clocks(self, queue: str) -> tuple[float, float]:
        return self._quota_clock_s.get(queue, 0.0), self._placement_clock_s.get(queue, 0.0)


class UsageLog:
    """Each ClusterQueue's GPU usage per flavor, a row each time it changes.

    Attributes:
        rows: (time s, ClusterQueue, flavor, GPUs in use) in time order.
    """

    def __init__(self) -> None:
        self.rows: list[tuple[float, str, str, int]] = []
        self._last: dict[str, dict[str, int]] = {}  # ClusterQueue -> flavor -> GPUs

    def record(self, now_s: float, touched: set[str], nodes: dict[str, QuotaNode]) -> None:
        """Adds a row for each flavor whose usage changed in the ``touched`` ClusterQueues
        (names, sorted for a deterministic order), then clears ``touched``."""
        if not touched:
            return
        for name in sorted(touched) if len(touched) > 1 else touched:
            last = self._last.get(name)
            if last is None:
                last = self._last[name] = {}
            for flavor, gpus in nodes[name].usage.items():
                if last.get(flavor, 0) != gpus:
                    last[flavor] = gpus
                    self.rows.append((now_s, name, flavor, gpus))
        touched.clear()

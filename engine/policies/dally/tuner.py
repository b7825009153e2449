"""Dally's auto-tuner for the delay timers (Sharma et al., arXiv 2401.16492, 2024), reconstructed.

[P] The paper tunes the delay timers automatically. [R] Here the timers are ``gamma`` times what
consolidation saves (:meth:`engine.policies.dally.levels.LevelModel.timers_s`), and every tuning
period the tuner re-chooses the global factor ``gamma`` from a small grid by replaying the window
that just ended in a cheap model and keeping the ``gamma`` with the least total JCT there.

The cheap model is :mod:`engine.policies.dally.replay`; at most ``MAX_REPLAY_JOBS`` jobs (the
earliest) are replayed. Ties keep the current ``gamma``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from engine.policies.dally.levels import NETWORK, NODE, RACK, DallyLayout, LevelModel
from engine.policies.dally.replay import ReplayJob, Window, replay
from engine.state import JobState

__all__ = ["MAX_REPLAY_JOBS", "AutoTuner", "ReplayJob", "Window", "replay"]

MAX_REPLAY_JOBS = 200
"""Replay at most this many jobs per window (bounds the tuner's cost on busy clusters)."""


class AutoTuner:
    """Re-chooses ``gamma`` every ``period_s`` by replaying the last window (module docstring)."""

    def __init__(
        self,
        topology: DallyLayout,
        model: LevelModel,
        grid: Sequence[float],
        period_s: float,
        queue: Callable[[JobState], int],
        placement: str = "consolidated",
    ) -> None:
        self.topology, self.model, self.grid = topology, model, tuple(grid)
        self.period_s, self.queue, self.placement = period_s, queue, placement
        self.next_s = 0.0
        self.window: Window | None = None
        self.jobs: list[tuple[JobState, float]] = []  # (job, remaining steps on entering)
        self.history: list[tuple[float, float]] = []  # (time, chosen gamma)

    def arrived(self, jobs: Iterable[JobState]) -> None:
        self.jobs.extend((job, job.remaining_steps) for job in jobs)

    def retune(
        self,
        now_s: float,
        gamma: float,
        waiting: Iterable[JobState],
        running: Iterable[JobState],
        node_free: Sequence[int],
    ) -> float:
        """The gamma for the next period (``gamma`` if the tuner is not due), and a new window."""
        if now_s < self.next_s:
            return gamma
        self.next_s = now_s + self.period_s
        if self.window is not None and self.jobs:
            jobs = [self._replay_job(job, steps, now_s) for job, steps in self.jobs]
            jobs = sorted(jobs, key=lambda j: j.enter_s)[:MAX_REPLAY_JOBS]
            scores = {
                g: replay(self.topology, self.window, jobs, g, self.placement) for g in self.grid
            }
            best = min(scores.values())
            if scores.get(gamma, float("inf")) > best:
                gamma = next(g for g in self.grid if scores[g] == best)
            self.history.append((now_s, gamma))
        self._snapshot(now_s, waiting, running, node_free)
        return gamma

    def _snapshot(
        self,
        now_s: float,
        waiting: Iterable[JobState],
        running: Iterable[JobState],
        node_free: Sequence[int],
    ) -> None:
        busy = []
        for job in running:
            placement = job.placement
            if placement is None or job.rate <= 0:
                continue
            busy.append(
                (job.finish_time_s(now_s), placement.worker_type, placement.nodes,
                 placement.counts)
            )  # fmt: skip
        self.window = Window(now_s, tuple(node_free), tuple(busy))
        self.jobs = [(job, job.remaining_steps) for job in waiting]

    def _replay_job(self, job: JobState, steps: float, now_s: float) -> ReplayJob:
        assert self.window is not None
        runtimes = []
        for wt in self.topology.fitting_types(job):
            node_s = steps / job.steps_per_s[wt]
            slowdowns = self.model.slowdowns(job, wt, now_s)
            runtimes.append((wt, tuple(node_s * s for s in slowdowns)))
        best = min(
            (self.topology.best_level(wt, job.scale_factor) for wt, _ in runtimes),
            default=NETWORK,
        )
        fastest = min(runtimes, key=lambda r: r[1][NODE], default=("", (0.0, 0.0, 0.0)))[1]
        timers = (fastest[RACK] - fastest[NODE], max(0.0, fastest[NETWORK] - fastest[RACK]))
        return ReplayJob(
            (self.queue(job), job.arrival_s, job.index), job.arrival_s,
            max(job.arrival_s, self.window.start_s), job.scale_factor, best, timers,
            tuple(runtimes),
        )  # fmt: skip

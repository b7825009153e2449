"""Gavel's round loop of leases: each round grants leases, each lease runs one micro-task.

Used under ``RoundConfig.gavel_rules`` for a policy that declares ``lease_rounds`` (Gavel's
family); :func:`engine.simulator.simulate` picks it. It extends the engine's event loop
(:class:`engine.event_loop.Simulation`) with Gavel's own round rules.

Narayanan et al., OSDI 2020; the rules are those of ``Scheduler.simulate`` in
stanford-futuredata/gavel (``scheduler/scheduler.py``, commit c4fa400, MIT), modelled here in our
own code:

- A round starts when the previous one ends, or at the next arrival when nothing ran. Jobs that
  arrived by then are admitted; nothing is admitted in between.
- Each granted job runs one micro-task of ``min(floor(throughput x round), remaining)`` steps,
  which takes ``steps / throughput`` seconds; a job whose last steps fit in the micro-task
  completes when it ends (JCT = that time - arrival).
- The round ends when the longest micro-task ends; only then are GPUs freed and the policy
  asked again. A job granted the same GPUs again keeps them (Gavel's lease extension).
- If nothing runs, no arrival is left and jobs still wait (the allocation excluded them),
  Gavel forces a new allocation: a policy that declares ``forces_reallocation`` is asked to
  re-solve (``Policy.force_reallocation``) once; otherwise, or a second time, the run stops.

The checkpoint-restore cost, when the scenario sets one, delays a restarted micro-task.
"""

from __future__ import annotations

import math

from engine.errors import SimulationCancelled
from engine.event_loop import CHECK_EVERY, CancelFn, ProgressFn, Simulation
from engine.results import SimulationResult
from engine.state import JobState


class LeaseRoundSimulation(Simulation):
    """One run in Gavel's round loop of leases (module docstring); use
    :func:`engine.simulator.simulate`."""

    round_counter = 0  # rounds asked so far (the policies' round index)

    def _round_index(self) -> int:
        return self.round_counter

    def run(
        self, on_progress: ProgressFn | None, should_cancel: CancelFn | None
    ) -> SimulationResult:
        plans: dict[int, tuple[float, float]] = {}
        now_s = self.jobs[0].arrival_s if self.jobs else 0.0
        forced = False
        while True:
            self._advance(now_s)
            self._end_micro_tasks(plans)
            self._admit_arrivals()
            if not (self.waiting or self.running or self.next_arrival < len(self.jobs)):
                break
            plans = self._run_round()
            if plans:
                now_s, forced = max(end_s for _, end_s in plans.values()), False
            elif self.next_arrival < len(self.jobs):
                now_s = max(now_s, self.jobs[self.next_arrival].arrival_s)
            else:
                forced = self._force_reallocation(forced)
            if self.round_counter % CHECK_EVERY == 0:
                if should_cancel and should_cancel():
                    raise SimulationCancelled(f"{self.policy_name}: cancelled")
                if on_progress:
                    done = sum(job.completion_s is not None for job in self.jobs)
                    on_progress(done / max(1, len(self.jobs)))
        return self._result()

    def _run_round(self) -> dict[int, tuple[float, float]]:
        """Asks the policy, applies its grants and plans every running job's micro-task."""
        allocation, _ = self._ask_policy(sync_running=False)
        self.round_counter += 1
        self._preempt_ungranted(allocation)
        self._start_all(allocation, strict=True)
        self.recorder.utilization(self.now_s, self.cluster.free_gpus)
        return {job.index: self._plan(job) for job in self.running.values()}

    def _plan(self, job: JobState) -> tuple[float, float]:
        """(steps done when the micro-task ends, when it ends) for a running job."""
        start_s = max(self.now_s, job.restore_until_s)
        usable_s = max(0.0, self.now_s + self.round_s - start_s)
        steps = min(math.floor(job.rate * usable_s), job.remaining_steps)
        if steps <= 0:  # slower than one step per round: run the round's fraction of a step
            steps = min(job.rate * usable_s, job.remaining_steps)
        return job.steps_done + steps, start_s + steps / job.rate

    def _end_micro_tasks(self, plans: dict[int, tuple[float, float]]) -> None:
        """Round end: books each micro-task's steps; jobs with none left complete."""
        for index, (steps_done, end_s) in plans.items():
            job = self.jobs[index]
            job.sync(self.now_s)
            job.steps_done = steps_done
            if steps_done >= job.total_steps:
                job.steps_done = job.total_steps
                job.completion_s = end_s
                self.area_at_end[index] = self.area
                self._release(job, "completed")
                del self.running[index]
        self.recorder.utilization(self.now_s, self.cluster.free_gpus)

    def _force_reallocation(self, forced: bool) -> bool:
        """Nothing runs and nothing arrives: make the policy re-solve, once."""
        if forced or not self.policy.forces_reallocation:
            raise self._stuck_error()
        self.policy.force_reallocation()
        return True

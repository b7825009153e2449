"""Gavel's round loop of leases: each round grants leases, each lease runs one micro-task.

Used under ``RoundConfig.gavel_rules`` for a policy that declares ``lease_rounds`` (Gavel's
family); :func:`engine.simulator.simulate` picks it. It runs the engine's event loop's parts
(:class:`engine.event_loop.Simulation`) by Gavel's own round rules.

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

:class:`LeaseRounds` is a step object composed with the engine's event loop
(:class:`engine.event_loop.Simulation`): it drives the loop's parts in Gavel's order through
their public methods (the clock's :meth:`~engine.event_loop.Simulation.advance`, the arrival
handler, the decision step's ``ask``/``preempt_ungranted``/``start_all`` and the job moves'
``retire``), and keeps only its own round counter and micro-task plans.
"""

from __future__ import annotations

import math

from engine.event_loop import CHECK_EVERY, CancelFn, ProgressFn, Simulation, check_in
from engine.results import SimulationResult
from engine.state import JobState

Plans = dict[int, tuple[float, float]]
"""Job index -> (steps done when its micro-task ends, when it ends (s))."""


class LeaseRounds:
    """Gavel's round loop of leases (module docstring) over the parts of ``sim``; use
    :func:`engine.simulator.simulate`."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.round_counter = 0  # rounds asked so far (the policies' round index)

    def run(
        self, on_progress: ProgressFn | None, should_cancel: CancelFn | None
    ) -> SimulationResult:
        """Round after round until no job is left; the result tables."""
        sim = self.sim
        sets, arrivals = sim.sets, sim.arrivals
        plans: Plans = {}
        now_s = sim.jobs[0].arrival_s if sim.jobs else 0.0
        forced = False
        while True:
            sim.advance(now_s)
            self._end_micro_tasks(plans)
            sim.on_arrivals()
            if not (sets.waiting or sets.running or arrivals.pending()):
                break
            plans = self._run_round()
            if plans:
                now_s, forced = max(end_s for _, end_s in plans.values()), False
            elif arrivals.pending():
                now_s = max(now_s, arrivals.next_s())
            else:
                forced = self._force_reallocation(forced)
            if self.round_counter % CHECK_EVERY == 0:
                done = sum(job.completion_s is not None for job in sim.jobs)
                check_in(sim.policy_name, done, len(sim.jobs), on_progress, should_cancel)
        return sim.result()

    def _run_round(self) -> Plans:
        """Asks the policy, applies its grants and plans every running job's micro-task."""
        sim = self.sim
        allocation, _ = sim.decisions.ask(False, self.round_counter)
        self.round_counter += 1
        sim.decisions.preempt_ungranted(allocation)
        sim.decisions.start_all(allocation, strict=True)
        sim.recorder.utilization(sim.clock.now_s, sim.cluster.free_gpus)
        return {job.index: self._plan(job) for job in sim.sets.running.values()}

    def _plan(self, job: JobState) -> tuple[float, float]:
        """(steps done when the micro-task ends, when it ends) for a running job."""
        now_s = self.sim.clock.now_s
        start_s = max(now_s, job.restore_until_s)
        usable_s = max(0.0, now_s + self.sim.rules.round_s - start_s)
        steps = min(math.floor(job.rate * usable_s), job.remaining_steps)
        if steps <= 0:  # slower than one step per round: run the round's fraction of a step
            steps = min(job.rate * usable_s, job.remaining_steps)
        return job.steps_done + steps, start_s + steps / job.rate

    def _end_micro_tasks(self, plans: Plans) -> None:
        """Round end: books each micro-task's steps; jobs with none left complete."""
        sim = self.sim
        now_s = sim.clock.now_s
        for index, (steps_done, end_s) in plans.items():
            job = sim.jobs[index]
            job.sync(now_s)
            job.steps_done = steps_done
            if steps_done >= job.total_steps:
                job.steps_done = job.total_steps
                sim.moves.retire(job, end_s)
        sim.recorder.utilization(now_s, sim.cluster.free_gpus)

    def _force_reallocation(self, forced: bool) -> bool:
        """Nothing runs and nothing arrives: make the policy re-solve, once."""
        sim = self.sim
        if forced or not sim.policy.forces_reallocation:
            raise sim.decisions.stuck_error()
        sim.policy.force_reallocation()
        return True

"""Node failures as the event loop meets them (:mod:`engine.faults` is the failure process).

:class:`FaultHandling` is made by the event loop only when the scenario turns failures on
(:class:`engine.config.FailureConfig`). It holds the spare nodes out of the schedulable cluster,
applies the failure events in their order (a failing node's jobs are stopped by the loop before
the node leaves service; a returning node goes back in service), and keeps each job's
checkpoint books: the interval of each segment (the scenario's, else Young's for the job's MTBF
on its nodes), the checkpoint time and lost restore of each closing segment, and the work a
failure takes back (everything since the job's last completed checkpoint). The rules and their
sources are :mod:`engine.faults`'.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.allocation.layout import NodeLayout
from engine.cluster import ClusterState, Placement
from engine.config import ScenarioConfig
from engine.faults import (
    FAIL,
    RACK_FAIL,
    RETURN,
    FaultModel,
    check_jobs,
    checkpoint_keep,
    checkpoint_time_s,
    since_checkpoint_s,
    young_interval_s,
)
from engine.state import JobState

StopJobsFn = Callable[[int, str], None]
"""``stop_jobs_on(node, cause)``: the event loop stops the running jobs on a failing node."""


class FaultHandling:
    """The failure process of one run and the checkpoint books of its jobs (module docstring).

    Raises:
        ConfigError: at construction, for jobs that could never finish
            (:func:`engine.faults.check_jobs`).
    """

    def __init__(
        self,
        config: ScenarioConfig,
        layout: NodeLayout,
        cluster: ClusterState,
        jobs: list[JobState],
        restore_s: float,
    ) -> None:
        failures = config.failures
        seed = config.seed if failures.seed is None else failures.seed
        self.model = FaultModel(failures, layout, seed)
        self.cluster = cluster
        self.cost_s = failures.checkpoint_cost_s
        self.interval_s = failures.checkpoint_interval_s  # None: Young's, per placement
        for node in sorted(self.model.reserved):
            cluster.take_node(node)
        check_jobs(jobs, cluster.capacity, self.model, failures, restore_s)

    def apply_due(self, now_s: float, stop_jobs_on: StopJobsFn) -> bool:
        """Applies the failure events due by ``now_s`` in order; True when a node failed or
        came back."""
        model = self.model
        changed = False
        while model.next_s <= now_s:
            kind, node, rack = model.pop()
            if kind == FAIL:
                changed = self._fail(node, now_s, f"node n{node} failed", stop_jobs_on) or changed
            elif kind == RETURN:
                model.returned(node, now_s)
                self.cluster.return_node(node)
                changed = True
            elif kind == RACK_FAIL:
                cause = f"rack {rack} failed"
                for member in model.rack_failed(rack, now_s):
                    changed = self._fail(member, now_s, cause, stop_jobs_on) or changed
            else:  # SPARE_READY
                model.spare_ready(node)
        return changed

    def _fail(self, node: int, now_s: float, cause: str, stop_jobs_on: StopJobsFn) -> bool:
        """Stops the jobs on a failing node and takes it out of service (False: already down)."""
        if not self.model.fail(node, now_s):
            return False
        stop_jobs_on(node, cause)
        self.cluster.take_node(node)
        return True

    def plan_checkpoints(self, job: JobState, placement: Placement) -> None:
        """The starting segment's checkpoint interval (the scenario's, else Young's for the
        job's MTBF on these nodes) and the share of wall time that progresses."""
        cost_s = self.cost_s
        interval_s = self.interval_s
        if interval_s is None:
            mtbf_s = self.model.job_mtbf_s(placement.nodes, placement.racks)
            interval_s = young_interval_s(cost_s, mtbf_s)
        job.checkpoint_interval_s = interval_s
        job.checkpoint_keep = checkpoint_keep(interval_s, cost_s) if interval_s > 0 else 1.0

    def lose_unsaved(self, job: JobState, placement: Placement, now_s: float) -> float:
        """A failure stops the synced job now: takes back the steps since its last completed
        checkpoint, books them as lost work and returns their wall time (s)."""
        productive_s = now_s - max(job.segment_start_s, job.restore_until_s)
        if job.checkpoint_interval_s <= 0 or productive_s <= 0:
            return 0.0
        unsaved_s = since_checkpoint_s(productive_s, job.checkpoint_interval_s, self.cost_s)
        job.steps_done = max(0.0, job.steps_done - job.rate * unsaved_s)
        job.lost_work_gpu_s += unsaved_s * placement.num_gpus
        return unsaved_s

    def book_segment(
        self, job: JobState, placement: Placement, now_s: float, unsaved_s: float
    ) -> None:
        """Books a closing segment's checkpoint time (up to the last completed checkpoint when
        a failure lost ``unsaved_s``) and, after a failure, its restore as lost work."""
        start_s = job.segment_start_s
        restored_s = min(max(job.restore_until_s, start_s), now_s)  # the restore's end
        if job.failed_last:
            job.lost_work_gpu_s += (restored_s - start_s) * placement.num_gpus
            job.failed_last = False
        productive_s = now_s - restored_s - unsaved_s
        if job.checkpoint_interval_s > 0 and productive_s > 0:
            job.checkpoint_gpu_s += placement.num_gpus * checkpoint_time_s(
                productive_s, job.checkpoint_interval_s, self.cost_s
            )

"""A shared group's speeds under the scenario's model: what every policy that shares asks.

The group speed rules themselves are :func:`engine.sharing.group_iteration_time_s`
(interleaving, Muri) and :func:`engine.sharing.sliced_iteration_time_s` (time slicing); this
module holds the per-run state around them (the trace's stage times, checked once per job) so
Muri's policies and packing LAS ask the same questions of one object.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.sharing.config import SharingConfig, SharingError
from engine.sharing.interleave import StageTimes, check_stage_times, group_iteration_time_s
from engine.sharing.slicing import sliced_iteration_time_s
from engine.sharing.stages import trace_stage_times

if TYPE_CHECKING:
    import pandas as pd

NO_STAGES = StageTimes(0.0, 0.0, 0.0, 1.0)  # time slicing groups without stage times


class GroupSpeeds:
    """Stage times and member speeds of shared groups for one run of one policy.

    Args:
        k: most jobs on the same GPUs (the policy's ``k``).
        sharing: the scenario's sharing model.
        stage_rows: the trace's stage rows (None when it has none).
        file: the trace's name, for messages.
        interleaving: whether groups run under the interleaving model (else time slicing).

    Raises:
        SharingError: interleaving on a trace without stage times, or a bad stage time
            (:func:`engine.sharing.stages.trace_stage_times`).
    """

    def __init__(
        self,
        k: int,
        sharing: SharingConfig,
        stage_rows: pd.DataFrame | None,
        file: str,
        interleaving: bool,
    ) -> None:
        self.sharing = sharing
        self.interleaving = interleaving
        model = sharing if interleaving else SharingConfig("time_slicing")
        self.stage_times = trace_stage_times(k, model, stage_rows, file)
        self._stages: dict[int, StageTimes] = {}

    def stages_of(self, index: int, job_id: str) -> StageTimes:
        """The job's stage times (checked once), or :data:`NO_STAGES` under time slicing.

        Raises:
            SharingError: the trace has no stage times for the job, or a bad one.
        """
        if not self.interleaving:
            return NO_STAGES
        stages = self._stages.get(index)
        if stages is None:
            stages = self.stage_times.get(job_id)
            if stages is None:
                raise SharingError(
                    f"job {job_id}: no stage times (resource_time_0..2) for the "
                    "interleaving model; use sharing.model = time_slicing"
                )
            check_stage_times(job_id, stages)
            self._stages[index] = stages
        return stages

    def shares(self, members: Sequence[tuple[int, str]]) -> list[float]:
        """Each member's speed in the group over its exclusive speed.

        Args:
            members: (job index, job id) of the group's 2 or more jobs.

        Returns:
            Interleaving: its own iteration time over the group's (times the scenario's
            overhead for the group's size); time slicing: 1 / the sliced factor, the same for all.
        """
        if not self.interleaving:
            share = 1.0 / sliced_iteration_time_s(
                1.0, len(members), self.sharing.packing_efficiency
            )
            return [share] * len(members)
        stages = [self.stages_of(index, job_id) for index, job_id in members]
        group_s = group_iteration_time_s(stages) * self.sharing.overhead(len(stages))
        return [s.iteration_s / group_s for s in stages]

"""Per-job simulation state, advanced lazily.

A running job progresses at a constant rate between events, so the engine stores progress as of
``last_update_s`` and brings it up to date (:meth:`JobState.sync`) only when something reads or
changes it. Policies receive these objects read-only; before a preemptive policy decides, the
engine syncs every running job, so ``remaining_steps`` and ``attained_service_gpu_s`` are current.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.cluster import Placement

if TYPE_CHECKING:
    from engine.allocation.grants import Grant
    from engine.step_time.network import StepModel


class JobState:
    """One job's static description and dynamic progress.

    Static: index (position in the arrival-sorted jobs table), job_id, arrival_s, job_type,
    scale_factor, total_steps, priority_weight, steps_per_s (worker type -> measured steps/s at
    the job's scale factor; 0 = does not fit), gradient_bytes, ref_speed (worker type -> one-GPU
    speed relative to the slowest type in the cluster that fits the job, for attained service in
    reference-GPU-seconds as in Hare's HLAS), network_sensitivity (``t_step(cross-rack) /
    t_step(node-local)`` on the worker type where the job runs fastest, no congestion; see
    :func:`engine.step_time.network.network_sensitivity`).

    Dynamic: ``grant`` is the grant the job runs under (None when waiting); ``ref_gpus`` is the
    reference-speed-weighted GPU count of its placement; ``attained_service_ref_gpu_s``
    accumulates held time x ``ref_gpus``. ``consolidation_wait_s`` is time spent waiting while
    the policy held the job back for a better consolidated placement. ``final_s`` is how long the
    job holds its GPUs after its last step (the final model consolidation of a ``copies`` grant of
    several copies, see :mod:`engine.step_time.progress`; 0 otherwise) and ``last_step_s`` when
    that last
    step was done (None before). With failures on (:mod:`engine.faults`),
    ``checkpoint_interval_s`` and ``checkpoint_keep`` describe the running segment's
    checkpoints, and ``num_failures``, ``lost_work_gpu_s`` and ``checkpoint_gpu_s`` count what
    failures and checkpoints cost the job.
    """

    __slots__ = (
        "index", "job_id", "arrival_s", "job_type", "scale_factor", "total_steps",
        "priority_weight", "steps_per_s", "gradient_bytes",
        "placement", "rate", "comm_share", "steps_done", "attained_service_gpu_s",
        "last_update_s", "restore_until_s", "first_start_s", "completion_s", "num_preemptions",
        "comm_s", "productive_s", "held_s", "first_type", "first_type_gpu_s", "other_types_gpu_s",
        "version",
        "area_at_arrival", "segment_start_s", "grant", "ref_speed", "ref_gpus",
        "attained_service_ref_gpu_s", "network_sensitivity", "consolidation_wait_s",
        "bandwidth_gbps", "final_s", "last_step_s", "gang_rate", "kept_stamp",
        "checkpoint_interval_s", "checkpoint_keep", "num_failures", "lost_work_gpu_s",
        "checkpoint_gpu_s", "failed_last",
    )  # fmt: skip

    def __init__(
        self,
        index: int,
        job_id: str,
        arrival_s: float,
        job_type: str,
        scale_factor: int,
        total_steps: float,
        priority_weight: float,
        steps_per_s: dict[str, float],
        gradient_bytes: float,
        ref_speed: dict[str, float] | None = None,
        network_sensitivity: float = 1.0,
    ) -> None:
        self.index = index
        self.job_id = job_id
        self.arrival_s = arrival_s
        self.job_type = job_type
        self.scale_factor = scale_factor
        self.total_steps = total_steps
        self.priority_weight = priority_weight
        self.steps_per_s = steps_per_s
        self.gradient_bytes = gradient_bytes
        self.placement: Placement | None = None
        self.rate = 0.0
        self.comm_share = 0.0
        self.steps_done = 0.0
        self.attained_service_gpu_s = 0.0
        self.last_update_s = arrival_s
        self.restore_until_s = 0.0
        self.first_start_s: float | None = None
        self.completion_s: float | None = None
        self.num_preemptions = 0
        self.comm_s = 0.0
        self.productive_s = 0.0
        self.held_s = 0.0
        self.first_type = ""  # the first worker type it held GPUs of, and its GPU-seconds there
        self.first_type_gpu_s = 0.0
        self.other_types_gpu_s: dict[str, float] | None = None  # any others, in the order met
        self.version = 0
        self.area_at_arrival = 0.0
        self.segment_start_s = 0.0
        self.grant: Grant | None = None
        self.ref_speed = ref_speed or {}
        self.ref_gpus = 0.0
        self.attained_service_ref_gpu_s = 0.0
        self.network_sensitivity = network_sensitivity
        self.consolidation_wait_s = 0.0
        self.bandwidth_gbps = 0.0  # bottleneck share of its links while running (Gb/s)
        self.final_s = 0.0
        self.last_step_s: float | None = None
        self.gang_rate: GangRate | None = None  # memo of engine.step_time.rates.JobRates.of
        self.kept_stamp = -1  # the last decision whose allocation kept the job's grant
        # with failures on (engine.faults): the running segment's checkpoint interval (s of
        # work; 0 = none needed) and share of wall time that progresses, failures that stopped
        # the job, GPU-seconds of work they lost and GPU-seconds spent writing checkpoints
        self.checkpoint_interval_s = 0.0
        self.checkpoint_keep = 1.0
        self.num_failures = 0
        self.lost_work_gpu_s = 0.0
        self.checkpoint_gpu_s = 0.0
        self.failed_last = False  # its last segment ended in a failure (its restore is lost)

    @property
    def worker_type(self) -> str | None:
        """Worker type of the GPUs held now, or None when waiting."""
        return self.placement.worker_type if self.placement else None

    @property
    def num_gpus(self) -> int:
        return self.placement.num_gpus if self.placement else 0

    @property
    def remaining_steps(self) -> float:
        return max(0.0, self.total_steps - self.steps_done)

    def sync(self, now_s: float) -> None:
        """Brings progress and service counters up to ``now_s``.

        GPU-seconds by worker type are added by the engine when a segment ends
        (:meth:`add_service`), not here.
        """
        last = self.last_update_s
        held = now_s - last
        placement = self.placement
        if placement is not None and held > 0:
            restore_until = self.restore_until_s
            productive = now_s - restore_until if restore_until > last else held
            if productive > 0:
                steps = self.steps_done + self.rate * productive
                if steps >= self.total_steps and self.last_step_s is None:
                    needed_s = (self.total_steps - self.steps_done) / self.rate
                    self.last_step_s = now_s - productive + needed_s
                self.steps_done = steps if steps < self.total_steps else self.total_steps
                self.comm_s += self.comm_share * productive
                self.productive_s += productive
            self.attained_service_gpu_s += held * placement.num_gpus
            self.attained_service_ref_gpu_s += held * self.ref_gpus
            self.held_s += held
        if now_s > last:
            self.last_update_s = now_s

    def add_service(self, worker_type: str, gpu_s: float) -> None:
        """Adds ``gpu_s`` GPU-seconds held on ``worker_type`` (when a segment ends). The first
        type is kept in two fields and the others in a dict made only when a second type comes:
        most jobs run on one type, and an empty dict per job and its first entry were ~280 of a
        1,000,000-job run's bytes per job (issue 37)."""
        if worker_type == self.first_type or not self.first_type:
            self.first_type = worker_type
            self.first_type_gpu_s += gpu_s
            return
        others = self.other_types_gpu_s
        if others is None:
            others = self.other_types_gpu_s = {}
        others[worker_type] = others.get(worker_type, 0.0) + gpu_s

    def main_worker_type(self) -> str:
        """The worker type of the job's most GPU-seconds (the first met of equals; "" before any
        segment ends)."""
        best, best_gpu_s = self.first_type, self.first_type_gpu_s
        if self.other_types_gpu_s:
            for worker_type, gpu_s in self.other_types_gpu_s.items():
                if gpu_s > best_gpu_s:
                    best, best_gpu_s = worker_type, gpu_s
        return best

    def finish_time_s(self, now_s: float) -> float:
        """When the job completes if nothing changes (call right after :meth:`sync`): its last
        step, plus ``final_s``."""
        if self.last_step_s is not None:
            return max(now_s, self.last_step_s + self.final_s)
        restore_until = self.restore_until_s
        start = restore_until if restore_until > now_s else now_s  # max(now_s, restore_until)
        remaining = self.total_steps - self.steps_done
        if not remaining > 0.0:  # remaining_steps, without the property call
            remaining = 0.0
        return start + remaining / self.rate + self.final_s


class GangRate:
    """One of a job's recent one-type gang rates and what it depends on besides the job's own
    static fields (job type, scale factor, gradient bytes): a per-job memo that spares building
    and hashing the run-wide memo's 7-item key when a preempted job restarts on a gang it ran
    on before. A job's memos form a chain, newest first (``next``), of at most
    :data:`GANG_RATES_MAX` entries (``depth`` counts the entries from this one to the end)."""

    __slots__ = (
        "worker_type", "num_gpus", "bandwidth_gbps", "noise_scale_ratio", "model", "next", "depth",
    )  # fmt: skip

    def __init__(
        self,
        worker_type: str,
        num_gpus: int,
        bandwidth_gbps: float,
        noise_scale_ratio: float,
        model: StepModel,
        next_rate: GangRate | None = None,
    ) -> None:
        self.worker_type = worker_type
        self.num_gpus = num_gpus
        self.bandwidth_gbps = bandwidth_gbps
        self.noise_scale_ratio = noise_scale_ratio
        self.model = model
        self.next = next_rate
        self.depth: int = 1 if next_rate is None else next_rate.depth + 1


GANG_RATES_MAX = 6
"""Most gang rates a job remembers (:class:`GangRate`): a preempted job under Tiresias LAS
restarts on whichever worker type has room, so it meets a few (type, GPUs) gangs; on the full
Philly trace the job's last gang alone missed on 70% of restarts (November 2026). A full chain
starts anew. [R] a bound of our choosing; any bound gives the same rates."""

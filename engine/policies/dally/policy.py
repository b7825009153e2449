"""Dally: network-sensitive delay scheduling, and the consolidation baselines it is compared with.

Sharma, Bhasi, Singh, Kesidis, Kandemir, Das, "GPU Cluster Scheduling for Network-Sensitive Deep
Learning", arXiv 2401.16492, 2024 (the scheduler is called Dally). [P] It consolidates a job's
GPUs by proximity according to the job's sensitivity to network delay, with three parts:
(i) delay scheduling for placement and consolidation, (ii) network-sensitive preemption and
(iii) an auto-tuner for the delay timers. Each part is a switch here.

Reconstructions [R] (shared/docs/schedulers.md, section E; the paper's full text was not
available):

- Levels: node < rack < network (:data:`engine.step_time.network.LEVELS`). The policy decides the
level a
  job accepts; the scenario's placement strategy picks the nodes within it through the placement
  layer (:func:`engine.placement.levels.place_within`; with the default "consolidated" strategy,
  best fit on the best level free). The result is a node-pinned gang of one worker type;
  running jobs keep their grants. An eviction fills the slot it opened, most room first.
- Priority underneath: Tiresias LAS (queues by attained GPU-seconds, FIFO by arrival inside a
  queue; Gu et al., NSDI 2019), without starvation promotion. A job that cannot start is skipped,
  so later jobs pass it (no head-of-line blocking).
- (i) Delay scheduling: a waiting job accepts only its best reachable level until its node timer
  has run since its arrival, then also rack until its rack timer has run too, then any level
  (:func:`engine.policies.dally.levels.allowed_level`). Timers start at arrival and are not
  reset by a preemption, so a preempted job restarts at any level. They are re-read at every
  decision (arrivals, completions, and round boundaries, so an expiry is acted on within one
  ``round_duration_s``). Held-back jobs are named in the returned ``Decision``.
- Timers: ``T_node = gamma (s_rack - 1) runtime`` and ``T_rack = gamma (s_net - s_rack) runtime``:
  ``gamma`` times the time the better level saves, where ``s_level`` is the iteration-time
  slowdown over node-local under the congestion in force (engine step model, all racks touched)
  and ``runtime`` the remaining node-local runtime on the job's fastest type (clairvoyant, from
  the job's steps). With the auto-tuner off, ``gamma`` is fixed (default 1: wait at most what
  the better placement would save).
- (ii) Preemption, at round boundaries only: see :mod:`engine.policies.dally.preempt`. Victims are
  strictly less sensitive than the job they make room for (engine ``network_sensitivity``, no
  congestion) and in the same or a lower-priority LAS queue; a victim restarts at once if GPUs
  are free, else it waits in the queue.
- (iii) Auto-tuner: every ``tuning_period_s`` it replays the window that just ended in a cheap
  model for each ``gamma`` of ``gamma_grid`` and keeps the best; see
  :mod:`engine.policies.dally.tuner`.
- Heterogeneous clusters: among the worker types the job fits, the placement with the highest
  estimated speed (measured throughput over the level's slowdown) at an allowed level.

Baselines (same skeleton, :mod:`engine.policies.dally.core`): ``consolidation_strict`` waits for
the job's best level (one node when it fits on one); ``consolidation_none`` places first fit
anywhere; ``consolidation_tiresias`` consolidates jobs whose sensitivity >= ``theta`` (strictly)
and places the others first fit anywhere [R: Tiresias consolidates models with high skew and
places the rest anywhere; sensitivity stands in for skew].
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from engine.errors import ConfigError
from engine.policies.base import POLICIES, PolicyContext
from engine.policies.dally.core import ConsolidationScheduler
from engine.policies.dally.levels import NETWORK, allowed_level, next_timer_s
from engine.policies.dally.tuner import AutoTuner
from engine.policies.explain import KeyTerm
from engine.policies.las.explain import LasExplanation
from engine.policies.las.keys import THRESHOLDS_GPU_S, THRESHOLDS_HELP
from engine.state import JobState

_THETA_HELP = "Network sensitivity (cross-rack / node-local step time) at which a job is sensitive"


def parse_grid(text: str) -> tuple[float, ...]:
    """``"0, 0.5, 1"`` -> ``(0.0, 0.5, 1.0)``.

    Raises:
        ConfigError: if the grid is empty or holds a negative or non-numeric value.
    """
    try:
        values = tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError as exc:
        raise ConfigError(f"dally: gamma_grid {text!r} is not a list of numbers") from exc
    if not values or any(v < 0 for v in values):
        raise ConfigError(f"dally: gamma_grid {text!r} must hold numbers >= 0")
    return values


class DallyExplanation(LasExplanation):
    """Dally ranks as LAS does (without promotion) and adds the job's network sensitivity."""

    rule: ClassVar[str] = (
        "Dally ranks jobs as LAS does (lowest queue first) and, at a round boundary, may "
        "preempt a job less network-sensitive (step time across racks over node-local) to give "
        "a more sensitive one a consolidated placement."
    )

    def extra_terms(self, job: str) -> tuple[KeyTerm, ...]:
        sensitivity = self.records.job_value(job, "network_sensitivity")
        return (KeyTerm("network sensitivity {}×", sensitivity, "ratio"),)


class Dally(ConsolidationScheduler):
    """Dally: delay scheduling over node/rack/network levels, network-sensitive preemption, and
    an auto-tuner for the delay timers.

    Sharma et al., arXiv 2401.16492, 2024. LAS order underneath; switch each part on or off.
    """

    cost_s_per_job: ClassVar[float] = 0.000735  # run order: bench_select_all.py

    display_name = "Dally"
    explanation = DallyExplanation
    group = "Network-aware"

    @dataclass(frozen=True)
    class Params:
        delay_scheduling: bool = field(
            default=True,
            metadata={"help": "(i) Hold a job back for a better level until its timers expire"},
        )
        preemption: bool = field(
            default=True,
            metadata={"help": "(ii) Evict less sensitive jobs to consolidate a sensitive one"},
        )
        auto_tuner: bool = field(
            default=True,
            metadata={"help": "(iii) Re-choose the timer scale gamma by replaying recent jobs"},
        )
        gamma: float = field(
            default=1.0,
            metadata={"help": "Timer scale: fixed with the auto-tuner off, its start when on"},
        )
        theta: float = field(default=1.2, metadata={"help": _THETA_HELP})
        tuning_period_s: float = field(
            default=3600.0, metadata={"help": "Seconds between auto-tuner runs"}
        )
        gamma_grid: str = field(
            default="0, 0.25, 0.5, 1, 2, 4",
            metadata={"help": "Comma-separated gamma values the auto-tuner tries"},
        )
        queue_thresholds_gpu_s: str = field(
            default=THRESHOLDS_GPU_S, metadata={"help": THRESHOLDS_HELP}
        )

    def __init__(self, params: Params, context: PolicyContext) -> None:
        super().__init__(params, context)
        if params.gamma < 0 or params.theta < 1 or params.tuning_period_s <= 0:
            raise ConfigError("dally: gamma must be >= 0, theta >= 1, tuning_period_s > 0")
        self.gamma = params.gamma
        if params.preemption:
            self.theta = params.theta
        if params.auto_tuner and params.delay_scheduling:
            grid = parse_grid(params.gamma_grid)
            self.tuner = AutoTuner(
                self.topology, self.model, grid, params.tuning_period_s, self.queue, self.placement
            )

    def allowed_level(self, job: JobState, now_s: float) -> int:
        if not self.params.delay_scheduling:
            return NETWORK
        return allowed_level(self.topology, self.model, job, now_s, self.gamma)

    def next_timer_s(self, job: JobState, now_s: float) -> float:
        return next_timer_s(self.topology, self.model, job, now_s, self.gamma)


POLICIES.register("dally", Dally)


class StrictConsolidation(ConsolidationScheduler):
    """Strict consolidation: every job waits for its best level (one node when it fits on one).

    Baseline of Dally (Sharma et al., arXiv 2401.16492, 2024); LAS order, no preemption.
    """

    cost_s_per_job: ClassVar[float] = 0.000565  # run order: bench_select_all.py

    display_name = "Strict consolidation"
    group = "Network-aware"

    def allowed_level(self, job: JobState, now_s: float) -> int:
        return self.topology.job_best_level(job)


POLICIES.register("consolidation_strict", StrictConsolidation)


class NoConsolidation(ConsolidationScheduler):
    """No consolidation: every job starts first fit wherever GPUs are free.

    Baseline of Dally (Sharma et al., arXiv 2401.16492, 2024); LAS order, no preemption.
    """

    cost_s_per_job: ClassVar[float] = 0.0007  # run order: bench_select_all.py

    display_name = "No consolidation"
    group = "Network-aware"
    honours_placement = False
    placement_note = "Places every job first fit, by definition (the no-consolidation baseline)."

    def locality_blind(self, job: JobState) -> bool:
        return True


POLICIES.register("consolidation_none", NoConsolidation)


class TiresiasConsolidation(ConsolidationScheduler):
    """Tiresias-style consolidation: sensitive jobs wait for their best level, the others start
    first fit anywhere.

    Gu et al., NSDI 2019 (skew-based consolidation), as a baseline of Dally (Sharma et al.,
    arXiv 2401.16492, 2024); LAS order, no preemption.
    """

    cost_s_per_job: ClassVar[float] = 0.00062  # run order: bench_select_all.py

    display_name = "Tiresias consolidation"
    group = "Network-aware"
    honours_placement = False
    placement_note = (
        "Places the jobs below theta first fit, by definition; sensitive jobs wait for their "
        "best level, where the scenario's strategy picks the nodes."
    )

    @dataclass(frozen=True)
    class Params:
        theta: float = field(default=1.2, metadata={"help": _THETA_HELP})
        queue_thresholds_gpu_s: str = field(
            default=THRESHOLDS_GPU_S, metadata={"help": THRESHOLDS_HELP}
        )

    def __init__(self, params: Params, context: PolicyContext) -> None:
        super().__init__(params, context)
        if params.theta < 1:
            raise ConfigError("consolidation_tiresias: theta must be >= 1")

    def allowed_level(self, job: JobState, now_s: float) -> int:
        if self.locality_blind(job):
            return NETWORK
        return self.topology.job_best_level(job)

    def locality_blind(self, job: JobState) -> bool:
        return job.network_sensitivity < self.params.theta


POLICIES.register("consolidation_tiresias", TiresiasConsolidation)

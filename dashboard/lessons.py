"""Lessons: small built-in scenarios a teacher loads with one click on the Step-through page.

Each lesson is a :class:`engine.config.ScenarioConfig` (a few GPUs, four policies at most) and a
canonical jobs CSV of a handful of jobs, written here in readable units (GPUs, minutes of work
on one worker type) and turned into step counts with the throughput matrix (Gavel's measured
steps/s, ``engine/data/``). The trace goes in as an uploaded file named ``lesson_<key>.csv``,
so a lesson's link reproduces like any uploaded trace. The jobs are ours, made up to show one
effect each [R]; the rules that act on them are the policies' own.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.config import (
    ClusterSpec,
    NodeGroup,
    PolicySpec,
    RoundConfig,
    ScenarioConfig,
    TraceSpec,
)
from engine.step_time.throughput import load_matrix


@dataclass(frozen=True)
class LessonJob:
    """One job of a lesson: ``minutes`` of work when run on ``scale_factor`` GPUs of
    ``on_type`` (its step count is that time x the matrix's steps/s there)."""

    job_id: str
    arrival_s: float
    job_type: str
    scale_factor: int
    minutes: float
    on_type: str = "v100"
    stage_ms: tuple[float, float, float] | None = None
    """Per-iteration ms in the data-loading, GPU-compute and communication stages (a Muri
    trace's ``resource_time_0..2``): a lesson whose jobs carry them is written as a Muri trace,
    each job's own speed their sum, ``job_type`` its model name (batch size 32)."""


@dataclass(frozen=True)
class Lesson:
    """A built-in scenario with what to look for.

    Attributes:
        key: short name, used in the trace's file name.
        title: what the lesson shows.
        look_for: a few lines (Markdown) on what to watch and when.
        moments: simulated times worth stepping to (s), in order, each with what happens then.
        cluster, policies, rounds: the scenario's GPU mix, policies and round rules.
        jobs: the lesson's jobs.
    """

    key: str
    title: str
    look_for: str
    moments: tuple[tuple[float, str], ...]
    cluster: ClusterSpec
    policies: tuple[PolicySpec, ...]
    jobs: tuple[LessonJob, ...]
    rounds: RoundConfig = RoundConfig(round_duration_s=300.0, checkpoint_restore_s=30.0)

    @property
    def moments_s(self) -> tuple[float, ...]:
        return tuple(time_s for time_s, _ in self.moments)

    @property
    def file_name(self) -> str:
        return f"lesson_{self.key}.csv"

    @property
    def staged(self) -> bool:
        """True when the jobs carry stage times (a Muri trace; the sharing lesson)."""
        return any(job.stage_ms is not None for job in self.jobs)

    @property
    def upload(self) -> tuple[str, bytes]:
        """The lesson's trace as an uploaded file: (``lesson_<key>.csv``, its bytes)."""
        return self.file_name, self.trace_bytes()

    def trace_bytes(self) -> bytes:
        """The lesson's jobs as a canonical CSV (sample_traces/CANONICAL_FORMAT.md), or as a
        Muri trace when they carry stage times (:func:`muri_trace_bytes`)."""
        if self.staged:
            return muri_trace_bytes(self.jobs)
        matrix = load_matrix()
        lines = []
        for job in self.jobs:
            rate = matrix.steps_per_s(job.job_type, job.on_type, job.scale_factor)
            steps = round(job.minutes * 60.0 * rate)
            lines.append(
                f'{job.job_id},{job.arrival_s:g},"{job.job_type}",{job.scale_factor},{steps}'
            )
        return _csv_bytes("job_id,arrival_s,job_type,scale_factor,total_steps", lines)

    def config(self, seed: int = 0) -> ScenarioConfig:
        """The lesson's scenario (its trace as the upload ``lesson_<key>.csv``; speeds of a
        Muri trace from its own iteration times, measured on V100s)."""
        source = f"upload:{self.file_name}"
        trace = (
            TraceSpec(source=source, format="muri", assumed_worker_type="v100")
            if self.staged
            else TraceSpec(source=source, format="canonical")
        )
        return ScenarioConfig(
            trace=trace,
            cluster=self.cluster,
            rounds=self.rounds,
            policies=self.policies,
            seed=seed,
        )


def muri_trace_bytes(jobs: tuple[LessonJob, ...]) -> bytes:
    """Jobs with stage times as a Muri trace (:mod:`engine.traces.muri`; times in ms): each
    iteration takes the sum of its stages alone, ``minutes`` of work sets the iterations."""
    lines = []
    for job in jobs:
        stages = job.stage_ms or (0.0, 0.0, 0.0)
        iteration_ms = sum(stages)
        iterations = round(job.minutes * 60_000.0 / iteration_ms)
        lines.append(
            f"{job.job_id},{job.scale_factor},{job.arrival_s * 1000:g},{iterations},"
            f"{job.job_type},32,{job.minutes * 60_000:g},0,{iteration_ms:g},"
            + ",".join(f"{ms:g}" for ms in stages)
            + ",0"
        )
    header = (
        "job_id,num_gpu,submit_time,iterations,model_name,batch_size,duration,interval,"
        "iteration_time,resource_time_0,resource_time_1,resource_time_2,priority"
    )
    return _csv_bytes(header, lines)


def _csv_bytes(header: str, lines: list[str]) -> bytes:
    """A CSV file's bytes: the header, one line a row, each ending with a newline (UTF-8)."""
    return ("\n".join([header, *lines]) + "\n").encode("utf-8")


DATA_BOUND_MS = (4000.0, 1000.0, 1000.0)
"""A job whose iteration waits mostly on data loading (ms per stage; made up [R])."""
COMM_BOUND_MS = (1000.0, 1000.0, 4000.0)
"""A job whose iteration waits mostly on its all-reduce [R]."""
COMPUTE_BOUND_MS = (1000.0, 4000.0, 1000.0)
"""A job whose iteration waits mostly on the GPU [R]."""

RESNET = "ResNet-18 (batch size 64)"
SMALL = "ResNet-18 (batch size 32)"
TRANSFORMER = "Transformer (batch size 64)"

LESSONS: tuple[Lesson, ...] = (
    Lesson(
        key="fifo_hol",
        title="Head-of-line blocking under FIFO",
        look_for=(
            "Job **big** asks for all 8 GPUs and arrives third. Under **FIFO** it waits for "
            "both nodes, and the four one-GPU jobs behind it wait too, although 4 GPUs sit "
            "idle from about 30 min (their reason: *lower priority*, GPUs free but the queue "
            "is blocked). **FIFO + backfill** lets the small jobs use those GPUs. **SRTF** "
            "and **LAS** serve the short jobs first and preempt the long ones."
        ),
        moments=(
            (150.0, "small jobs queue"),
            (1900.0, "4 GPUs idle"),
            (7300.0, "big runs at last"),
        ),  # fmt: skip
        cluster=ClusterSpec((NodeGroup("v100", 2, 4),)),
        policies=(  # a second instance of a policy last, as the Scenario page orders them
            PolicySpec("fifo", label="FIFO"),
            PolicySpec("srtf"),
            PolicySpec("las"),
            PolicySpec("fifo", {"backfill": True}, label="FIFO + backfill"),
        ),
        jobs=(
            LessonJob("long", 0, RESNET, 4, 120),
            LessonJob("mid", 30, RESNET, 4, 30),
            LessonJob("big", 60, RESNET, 8, 30),
            *(LessonJob(f"s{i}", 120 + 30 * i, SMALL, 1, 15) for i in range(1, 5)),
        ),
    ),
    Lesson(
        key="las_starve",
        title="LAS starving a long job",
        look_for=(
            "Job **long** needs all 4 GPUs for 2 h. Every 15 min a short 4-GPU job arrives. "
            "Under **LAS**, once **long** has attained 1 GPU-h (3,600 GPU-s, the queue "
            "threshold) it drops to queue 2 and every newcomer (queue 1) preempts it at the "
            "next round. Step to the preemptions and read why. At 0:40:00 **LAS** brings it "
            "back to queue 1, having waited twice its last run (promotion), and it preempts "
            "**q2**; **LAS, no promotion** never does, so **long** runs only in the gaps. "
            "**FIFO** never preempts."
        ),
        moments=(
            (900.0, "long preempted"),
            (2400.0, "LAS promotes long"),
            (5400.0, "who runs now?"),
        ),  # fmt: skip
        cluster=ClusterSpec((NodeGroup("v100", 1, 4),)),
        policies=(
            PolicySpec("las"),
            PolicySpec("fifo", label="FIFO"),
            PolicySpec("srtf"),
            PolicySpec("las", {"promote_knob": 0.0}, label="LAS, no promotion"),
        ),
        jobs=(
            LessonJob("long", 0, RESNET, 4, 120),
            *(LessonJob(f"q{i}", 900 * i, SMALL, 4, 12) for i in range(1, 9)),
        ),
    ),
    Lesson(
        key="v100",
        title="Why a job prefers a V100",
        look_for=(
            "Two V100 and two K80 GPUs. A **ResNet-50** runs about 7x faster on a V100 than "
            "on a K80; a **Recommendation** model runs *faster on a K80*. **FIFO** gives "
            "each job the type with the most free GPUs, blind to speed: **res2** lands on a "
            "K80 and runs for hours. **Gavel max-min** (heterogeneity-aware) puts the "
            "ResNets on the V100s and the Recommendation jobs on the K80s, and rotates the "
            "jobs round by round to even out their progress; the **agnostic** variant "
            "rotates them blind to speed. Read the rates in the decisions (steps/s before "
            "and after each move)."
        ),
        moments=(
            (150.0, "FIFO: ResNet on a K80"),
            (900.0, "Gavel moves jobs"),
            (3600.0, "who is done?"),
        ),  # fmt: skip
        cluster=ClusterSpec((NodeGroup("v100", 1, 2), NodeGroup("k80", 1, 2))),
        policies=(
            PolicySpec("fifo", label="FIFO"),
            PolicySpec("gavel_maxmin_agnostic"),
            PolicySpec("gavel_maxmin"),
        ),
        jobs=(
            LessonJob("rec1", 0, "Recommendation (batch size 512)", 1, 60),
            LessonJob("rec2", 60, "Recommendation (batch size 512)", 1, 60),
            LessonJob("res1", 120, "ResNet-50 (batch size 64)", 1, 60),
            LessonJob("res2", 180, "ResNet-50 (batch size 64)", 1, 60),
            LessonJob("res3", 240, "ResNet-50 (batch size 64)", 1, 40),
        ),
    ),
    Lesson(
        key="one_rack",
        title="A network-sensitive job waiting for one rack",
        look_for=(
            "Two racks of two 4-GPU nodes. **tf8**, a Transformer on 8 GPUs, runs at about "
            "half speed when its ring crosses racks. **Dally** preempts **b**, a less "
            "network-sensitive job, at the next round to give **tf8** a whole rack. When "
            "**short** finishes, 8 "
            "GPUs are free but on two racks: **No consolidation** starts **tf8** across "
            "them; **Strict consolidation** holds it (*held for consolidation*) until **a** "
            "finishes and frees a rack. Compare when **tf8** starts and when it finishes."
        ),
        moments=(
            (120.0, "tf8 waits"),
            (300.0, "Dally preempts b"),
            (1300.0, "8 GPUs free, two racks"),
            (3700.0, "a rack frees up"),
        ),  # fmt: skip
        cluster=ClusterSpec((NodeGroup("v100", 2, 4, "rack0"), NodeGroup("v100", 2, 4, "rack1"))),
        policies=(
            PolicySpec("dally"),
            PolicySpec("consolidation_strict"),
            PolicySpec("consolidation_none"),
        ),
        jobs=(
            LessonJob("a", 0, RESNET, 4, 60),
            LessonJob("short", 10, RESNET, 4, 20),
            LessonJob("b", 20, RESNET, 4, 90),
            LessonJob("tf8", 60, TRANSFORMER, 8, 45),
        ),
    ),
    Lesson(
        key="share_gpus",
        title="Two jobs that share a GPU well, and two that do not",
        look_for=(
            "Four jobs, 20 min of work each, on 3 GPUs. **data** waits mostly on data "
            "loading and **comm** on its all-reduce: Muri interleaves them on one GPU, "
            "one's loading while the other computes, so both finish at 20 min, as alone. "
            "**cnn1** and **cnn2** (2 GPUs each) both wait on the GPU: together each "
            "iteration takes 9 s instead of 6 s, so both finish at 30 min (slowdown ×1.5). "
            "In the GPU view a shared GPU shows both jobs side by side; hover for the "
            "slowdown. **Muri-S, GPUs to itself** (k = 1) runs the two cnn jobs one after "
            "the other, done at 40 and 60 min."
        ),
        moments=(
            (60.0, "two pairs share 3 GPUs"),
            (1230.0, "the good pair is done"),
            (1830.0, "the bad pair is done"),
        ),  # fmt: skip
        cluster=ClusterSpec((NodeGroup("v100", 1, 3),)),
        policies=(
            PolicySpec("muri_s", {"k": 2}, label="Muri-S, 2 jobs per GPU"),
            PolicySpec("muri_s", {"k": 1}, label="Muri-S, GPUs to itself"),
        ),
        jobs=(
            LessonJob("data", 0, "data-heavy", 1, 20, stage_ms=DATA_BOUND_MS),
            LessonJob("comm", 0, "comm-heavy", 1, 20, stage_ms=COMM_BOUND_MS),
            LessonJob("cnn1", 0, "compute-heavy", 2, 20, stage_ms=COMPUTE_BOUND_MS),
            LessonJob("cnn2", 0, "compute-heavy", 2, 20, stage_ms=COMPUTE_BOUND_MS),
        ),
        rounds=RoundConfig(round_duration_s=300.0, checkpoint_restore_s=0.0),
    ),
)


def lesson(key: str) -> Lesson:
    """The lesson named ``key``.

    Raises:
        KeyError: naming the known keys.
    """
    for found in LESSONS:
        if found.key == key:
            return found
    raise KeyError(f"no lesson {key!r}; known: {[each.key for each in LESSONS]}")

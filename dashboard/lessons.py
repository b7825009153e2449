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
from engine.throughput import load_matrix


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


@dataclass(frozen=True)
class Lesson:
    """A built-in scenario with what to look for.

    Attributes:
        key: short name, used in the trace's file name.
        title: what the lesson shows.
        look_for: a few lines (Markdown) on what to watch and when.
        moments_s: simulated times worth stepping to, in order (s).
        cluster, policies, rounds: the scenario's GPU mix, policies and round rules.
        jobs: the lesson's jobs.
    """

    key: str
    title: str
    look_for: str
    moments_s: tuple[float, ...]
    cluster: ClusterSpec
    policies: tuple[PolicySpec, ...]
    jobs: tuple[LessonJob, ...]
    rounds: RoundConfig = RoundConfig(round_duration_s=300.0, checkpoint_restore_s=30.0)

    @property
    def file_name(self) -> str:
        return f"lesson_{self.key}.csv"

    def trace_bytes(self) -> bytes:
        """The lesson's jobs as a canonical CSV (sample_traces/CANONICAL_FORMAT.md)."""
        matrix = load_matrix()
        lines = ["job_id,arrival_s,job_type,scale_factor,total_steps"]
        for job in self.jobs:
            rate = matrix.steps_per_s(job.job_type, job.on_type, job.scale_factor)
            steps = round(job.minutes * 60.0 * rate)
            lines.append(
                f'{job.job_id},{job.arrival_s:g},"{job.job_type}",{job.scale_factor},{steps}'
            )
        return ("\n".join(lines) + "\n").encode("utf-8")

    def config(self, seed: int = 0) -> ScenarioConfig:
        """The lesson's scenario (its trace as the upload ``lesson_<key>.csv``)."""
        return ScenarioConfig(
            trace=TraceSpec(source=f"upload:{self.file_name}", format="canonical"),
            cluster=self.cluster,
            rounds=self.rounds,
            policies=self.policies,
            seed=seed,
        )


def _rack(worker_type: str, nodes: int, gpus: int, rack: str = "rack0") -> NodeGroup:
    return NodeGroup(worker_type, nodes, gpus, rack)


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
        moments_s=(150.0, 1900.0, 7300.0),
        cluster=ClusterSpec((_rack("v100", 2, 4),)),
        policies=(
            PolicySpec("fifo", label="FIFO"),
            PolicySpec("fifo", {"backfill": True}, label="FIFO + backfill"),
            PolicySpec("srtf"),
            PolicySpec("las"),
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
            "next round. Step to the preemptions and read why. **LAS** brings it back to "
            "queue 1 after it has waited twice its last run (promotion); **LAS, no "
            "promotion** never does, so **long** runs only in the gaps. **FIFO** never "
            "preempts."
        ),
        moments_s=(960.0, 1800.0, 5400.0),
        cluster=ClusterSpec((_rack("v100", 1, 4),)),
        policies=(
            PolicySpec("las"),
            PolicySpec("las", {"promote_knob": 0.0}, label="LAS, no promotion"),
            PolicySpec("fifo", label="FIFO"),
            PolicySpec("srtf"),
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
            "each job the type with the most free GPUs, blind to speed. **Gavel max-min "
            "(aware)** puts the ResNets on the V100s and moves jobs between types when "
            "that evens out their progress: read the rates in the decisions (steps/s before "
            "and after a migration)."
        ),
        moments_s=(150.0, 900.0, 3600.0),
        cluster=ClusterSpec((_rack("v100", 1, 2), _rack("k80", 1, 2))),
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
            "Two racks of two 4-GPU nodes. **tf8**, a Transformer on 8 GPUs, is slowed down "
            "a lot when its ring crosses racks. When **short** finishes, 8 GPUs are free, "
            "but on two racks. **Consolidation: none** starts **tf8** across racks at once; "
            "**Dally** holds it (*held for consolidation*) until its delay timer runs out "
            "or one rack frees up; **strict consolidation** waits for one rack whatever "
            "it costs. Compare when **tf8** starts and when it finishes."
        ),
        moments_s=(120.0, 1300.0, 3700.0),
        cluster=ClusterSpec((_rack("v100", 2, 4, "rack0"), _rack("v100", 2, 4, "rack1"))),
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

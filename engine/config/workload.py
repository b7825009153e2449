"""The jobs of a scenario: the trace's source, the synthetic workloads (Gavel's mix, the
LLM-era mix) and the load what-if (part of :class:`engine.config.ScenarioConfig`).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class JobClass:
    """One class of the LLM-era synthetic mix (:mod:`engine.traces.llm_mix`).

    Sizes are powers of two in ``[min_gpus, max_gpus]``, each equally likely; the duration on
    the mix's reference GPU type at that size is log-uniform in ``[min_hours, max_hours]``.
    """

    name: str = field(metadata={"help": "Class name, e.g. fine-tune"})
    share: float = field(metadata={"help": "Share of the jobs (shares are normalised)"})
    min_gpus: int = field(metadata={"help": "Smallest job (GPUs)"})
    max_gpus: int = field(metadata={"help": "Largest job (GPUs)"})
    job_types: str = field(metadata={"help": "Comma-separated job types, drawn uniformly"})
    min_hours: float = field(metadata={"help": "Shortest run on the reference GPU type (h)"})
    max_hours: float = field(metadata={"help": "Longest run on the reference GPU type (h)"})


DEFAULT_LLM_CLASSES = (
    JobClass("small", 0.60, 1, 8, "bert,dlrm_dcnv2,retinanet,rgat", 0.25, 4.0),
    JobClass("fine-tune", 0.37, 8, 64, "llama2_70b_lora,stable_diffusion,llama31_8b", 1.0, 12.0),
    JobClass("pre-training", 0.03, 256, 512, "llama31_405b", 6.0, 48.0),
)
"""[R] The LLM-era mix: mostly small jobs, fine-tunes on 8-64 GPUs, a few pre-training runs
on 256-512 GPUs (raise ``max_gpus`` to 2,048 for a cluster that holds them)."""


@dataclass(frozen=True)
class LLMMixSpec:
    """The LLM-era synthetic workload: job classes, a daily arrival cycle, a reference GPU."""

    classes: tuple[JobClass, ...] = DEFAULT_LLM_CLASSES
    daily_amplitude: float = field(
        default=0.5,
        metadata={"help": "Arrival rate swing over a day, 0-1 (0: constant; 0.5: peak 3x trough)"},
    )
    peak_hour: float = field(default=14.0, metadata={"help": "Hour of the day arrivals peak"})
    reference_worker_type: str = field(
        default="H100-SXM", metadata={"help": "GPU type the durations are stated on"}
    )


@dataclass(frozen=True)
class SyntheticSpec:
    """Poisson-arrival synthetic workload: Gavel's Philly-derived duration and size mix
    (``workload="gavel"``) or the LLM-era mix (``workload="llm"``, :class:`LLMMixSpec`)."""

    num_jobs: int = field(default=200, metadata={"help": "Number of jobs"})
    jobs_per_hour: float = field(default=10.0, metadata={"help": "Poisson arrival rate"})
    workload: str = field(default="gavel", metadata={"help": "gavel or llm"})
    llm: LLMMixSpec = LLMMixSpec()


@dataclass(frozen=True)
class TraceSpec:
    """Where the jobs come from.

    Attributes:
        source: ``"sample:<file name>"`` (a file in ``sample_traces/``), ``"synthetic"``,
            ``"upload:<file name>"`` (an uploaded file), or, in a local scenario only, a path
            to a trace file (:mod:`engine.sources`).
        format: importer name or ``"auto"`` to detect it from the file.
        assumed_worker_type: GPU type the trace's durations were observed on, for traces
            that lack step counts (Philly, ITP); for a trace with its own measured iteration
            times (Muri's), the GPU type they were measured on.
        max_jobs: keep only the first N jobs by arrival (None keeps all).
        drop_oversized: drop jobs larger than the cluster (they are counted and reported);
            False rejects such a trace with an error.
        team_column: a column of the trace file naming each job's team (its Kueue LocalQueue),
            e.g. ``cluster`` in Philly's CSV or ``vc`` in Helios'; read for any format with a
            header and set as the jobs' ``queue`` (:mod:`engine.traces.teams`). "" reads none
            (a canonical CSV's own ``queue`` column needs none).
    """

    source: str = "sample:philly_2000.csv"
    format: str = "auto"
    assumed_worker_type: str = "p100"
    max_jobs: int | None = None
    drop_oversized: bool = False
    synthetic: SyntheticSpec = SyntheticSpec()
    team_column: str = field(
        default="", metadata={"help": "Column of the trace file naming each job's team (queue)"}
    )


@dataclass(frozen=True)
class LoadConfig:
    """Load as a what-if: the trace's jobs at a higher or lower rate, or more or fewer of them.

    Applied after ``TraceSpec.max_jobs`` and before the cluster-fit check, in this order
    (:func:`engine.traces.load.apply_load`) [R: our rule, no paper defines it]:

    1. ``num_jobs``: keep the first N jobs by arrival, or, when N exceeds the trace, repeat the
       trace back to back (copy k arrives ``k x (span + mean inter-arrival gap)`` later, job ids
       suffixed ``~k``, job types and step counts copied) until N jobs, then cut at N.
    2. ``arrival_scale``: divide every arrival time by the factor, so inter-arrival times are
       compressed by it and the arrival rate is multiplied by it (1.5 = 1.5x the load).

    For a synthetic trace, ``trace.synthetic.jobs_per_hour`` sets the rate directly; these
    apply on top. The defaults change nothing.
    """

    arrival_scale: float = field(
        default=1.0, metadata={"help": "Arrival-rate multiplier (inter-arrival times / factor)"}
    )
    num_jobs: int | None = field(
        default=None, metadata={"help": "Trim or repeat the trace to this many jobs"}
    )

"""From a `TraceSpec` to a validated jobs table: read, draw, fit.

``spec.source`` is ``"sample:<name>"`` (a file in ``sample_traces/``), ``"synthetic"``,
``"upload:<name>"`` (the file's bytes passed in: :data:`TraceFile`) or, for a local scenario, a
filesystem path (which names a scenario may use is decided when it is loaded:
:mod:`engine.sources`). :func:`read_trace_file` is the one place a trace's bytes are read.
The trace rng is derived from the trace seed on its own stream, so it does not shift the
simulator's draws.

Resolution has two steps: :func:`draw_trace` (read, apply the rules of `engine.traces.rules`,
read the team column (:mod:`engine.traces.teams`), cut, apply the load what-if) never sees the
cluster, so the workload drawn from a trace is the same for every GPU mix; :func:`fit_trace`
then drops or rejects the jobs larger than the cluster.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from engine.config import ClusterSpec, LoadConfig, TraceSpec
from engine.errors import TraceError
from engine.sources import SAMPLE_DIR, list_samples
from engine.step_time.throughput import ThroughputMatrix
from engine.traces.cluster_fit import check_cluster_fit
from engine.traces.llm_mix import generate_llm_mix, llm_mix_note
from engine.traces.load import apply_load, load_note
from engine.traces.registry import FORMATS, Loaded, load_trace
from engine.traces.rules import job_type_options
from engine.traces.synthetic import REFERENCE_WORKER_TYPE, generate_synthetic
from engine.traces.teams import with_team_column

TRACE_RNG_STREAM = 0x7ACE  # second word of the trace rng's seed: [seed, TRACE_RNG_STREAM]
NO_LOAD = LoadConfig()  # the default load: no change
TraceFile = tuple[str, bytes]
"""A trace file as (file name as the user knows it, bytes)."""


@dataclass(frozen=True)
class TraceLoad:
    """A resolved trace.

    Attributes:
        jobs: the canonical jobs table (`engine.traces.schema`), after max_jobs and drops.
        format: the importer used (e.g. ``"philly"``), or ``"synthetic"``.
        notes: human-readable notes on the assumptions made, for display.
        dropped_job_ids: ids of jobs dropped as larger than the cluster.
        file_name: the file name as the user knows it.
        throughputs: the trace's own measured speeds (:attr:`Loaded.throughputs`), which the
            run adds to the scenario's matrix (:meth:`ThroughputMatrix.merged`); None for most
            traces.
        stage_rows: the trace's per-stage iteration times as in its file
            (:attr:`engine.traces.registry.Loaded.stage_rows`); None for most traces.
    """

    jobs: pd.DataFrame
    format: str
    notes: tuple[str, ...]
    dropped_job_ids: tuple[str, ...]
    file_name: str
    throughputs: ThroughputMatrix | None = None
    stage_rows: pd.DataFrame | None = None


def trace_rng(seed: int) -> np.random.Generator:
    """The generator for a scenario's trace rules, derived from the scenario seed."""
    return np.random.default_rng([seed, TRACE_RNG_STREAM])


def draw_trace(
    spec: TraceSpec,
    matrix: ThroughputMatrix,
    seed: int,
    file: TraceFile | None = None,
    load: LoadConfig = NO_LOAD,
) -> TraceLoad:
    """The trace's jobs before any cluster check: independent of the GPU mix.

    Args:
        file: the trace's bytes (:func:`read_trace_file`); needed for an ``"upload:<name>"``
            source, read from disk for a sample or path when None; ignored for synthetic.

    Raises:
        TraceError, ConfigError: for a bad source, trace, team column, ``max_jobs`` or load.
    """
    rng = trace_rng(seed)
    if spec.source == "synthetic":
        if spec.team_column:
            raise TraceError(
                f"a synthetic trace has no column {spec.team_column!r} to read teams from; "
                "leave trace.team_column empty",
                file="synthetic",
            )
        loaded, file_name = _synthetic(spec, matrix, rng), "synthetic"
        jobs = loaded.jobs
    else:
        file_name, raw = read_trace_file(spec, file)
        loaded = load_trace(
            raw, file_name, matrix, rng,
            format=spec.format, assumed_worker_type=spec.assumed_worker_type,
        )  # fmt: skip
        jobs = loaded.jobs
        if spec.team_column:
            jobs = with_team_column(jobs, raw, file_name, spec.team_column, loaded.format)
    if spec.max_jobs is not None:
        if spec.max_jobs < 1:
            raise TraceError(f"max_jobs must be >= 1, got {spec.max_jobs}", file=file_name)
        jobs = jobs.head(spec.max_jobs).reset_index(drop=True)
    before = len(jobs)
    jobs = apply_load(jobs, load)
    note = load_note(load, before, len(jobs))
    notes = loaded.notes + ((note,) if note else ())
    return TraceLoad(
        jobs, loaded.format, notes, (), file_name, loaded.throughputs, loaded.stage_rows
    )


def fit_trace(
    drawn: TraceLoad, cluster: ClusterSpec, matrix: ThroughputMatrix, drop_oversized: bool
) -> TraceLoad:
    """Drops (reported in notes and ``dropped_job_ids``) or rejects jobs larger than ``cluster``,
    judged on ``matrix`` with the trace's own speeds added.

    Raises:
        OversizedJobsError: for such jobs when ``drop_oversized`` is False.
        TraceError: when no job is left.
    """
    file_name = drawn.file_name
    matrix = matrix.merged(drawn.throughputs)
    jobs, dropped = check_cluster_fit(drawn.jobs, cluster, matrix, drop_oversized, file=file_name)
    notes = drawn.notes
    if dropped:
        notes += (f"dropped {len(dropped)} job(s) larger than the cluster",)
    if jobs.empty:
        raise TraceError(
            "no jobs left after dropping those larger than the cluster", file=file_name
        )
    return TraceLoad(
        jobs, drawn.format, notes, tuple(dropped), file_name, drawn.throughputs, drawn.stage_rows
    )


def draw_misfit(
    drawn: TraceLoad, spec: TraceSpec, cluster: ClusterSpec, matrix: ThroughputMatrix
) -> str:
    """Why another seed's draw of the trace could not run on ``cluster`` ("" if none is known).

    A format that draws each job's type from its size (rule 1, ``TraceFormat.draws_job_types``:
    Philly, ITP raw, Kueue Workloads) gives a job of S GPUs any of
    :func:`engine.traces.rules.job_type_options` on the assumed GPU type, seed by seed; the
    sizes are the trace's own, the same on every seed. A job of type J and S GPUs runs on a
    worker type only at a positive rate there at S GPUs (``ThroughputMatrix.steps_per_s``, the
    rate :func:`engine.jobs.job_states` gives it), so no policy can ever start it when the
    worker types with such a rate hold fewer than S GPUs together [R: a necessary condition; a
    policy that keeps a gang on one type needs S GPUs of one type, which this does not check].
    For other formats (types recorded or mapped from model names) and synthetic traces (sizes
    drawn too) this says nothing: "".
    """
    trace_format = FORMATS.get(drawn.format) if drawn.format in FORMATS else None
    if trace_format is None or not trace_format.draws_job_types:
        return ""
    matrix = matrix.merged(drawn.throughputs)
    capacity = cluster.capacity()
    for size in sorted({int(sf) for sf in drawn.jobs["scale_factor"]}):
        for job_type in job_type_options(matrix, spec.assumed_worker_type, size):
            usable = [wt for wt in capacity if matrix.steps_per_s(job_type, wt, size) > 0]
            if sum(capacity[wt] for wt in usable) < size:
                where = " + ".join(f"{capacity[wt]} {wt}" for wt in usable) or "none"
                return (
                    f"a {size}-GPU job of the trace may be of job type {job_type} on another "
                    f"seed (its type is drawn from its size, rule 1), and the GPUs that run "
                    f"{job_type} at {size} GPUs are too few ({where})"
                )
    return ""


def _synthetic(spec: TraceSpec, matrix: ThroughputMatrix, rng: np.random.Generator) -> Loaded:
    if spec.synthetic.workload == "llm":
        jobs = generate_llm_mix(spec.synthetic, matrix, rng)
        return Loaded(jobs, (llm_mix_note(spec.synthetic),), "synthetic")
    if spec.synthetic.workload != "gavel":
        raise TraceError(
            f"trace.synthetic.workload must be 'gavel' or 'llm', got {spec.synthetic.workload!r}"
        )
    jobs = generate_synthetic(spec.synthetic, matrix, rng)
    note = (
        f"synthetic workload: {spec.synthetic.num_jobs} jobs, Poisson arrivals at "
        f"{spec.synthetic.jobs_per_hour:g} jobs/h, Gavel's Philly-derived size and duration "
        f"mix; step counts on {REFERENCE_WORKER_TYPE}"
    )
    return Loaded(jobs, (note,), "synthetic")


def read_trace_file(spec: TraceSpec, file: TraceFile | None = None) -> TraceFile:
    """The bytes of the file a (non-synthetic) trace ``spec`` names: ``file`` when given (an
    upload's, or bytes already read), else the sample or path (a path only a local scenario
    names: :mod:`engine.sources`), read from disk as a file, never fetched.

    Raises:
        TraceError: for an upload without its bytes, an unknown sample or an unreadable file.
    """
    if file is not None:
        return file
    source = spec.source
    if source.startswith("upload:"):
        raise TraceError(
            "the uploaded file is no longer available; upload it again",
            file=source.removeprefix("upload:"),
        )
    path = source_path(source)
    try:
        return path.name, path.read_bytes()
    except OSError as exc:
        raise TraceError(f"cannot read the file: {exc.strerror}", file=str(path)) from exc


def source_path(source: str) -> Path:
    """The file a ``sample:<name>`` or path source names.

    Raises:
        TraceError: for an unknown sample name (lists the samples).
    """
    if not source.startswith("sample:"):
        return Path(source)
    name = source.removeprefix("sample:")
    if name not in list_samples():
        raise TraceError(f"no sample trace {name!r}; available: {', '.join(list_samples())}")
    return SAMPLE_DIR / name

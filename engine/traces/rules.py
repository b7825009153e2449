"""The rules that fill in what a trace does not record: job type and step count.

All assumptions made by the importers live here, so they can be read (and changed) in one place.

1. **No model recorded** (Philly, ITP raw): each job's type is drawn uniformly, with the
   scenario's seeded ``numpy.random.Generator``, from the matrix's job types that fit on the
   assumed worker type at the job's scale factor (``steps_per_s(job_type, assumed, sf) > 0``);
   see :func:`draw_job_types`. With the MLPerf matrix, only the benchmarks of the job's size
   class count (:func:`job_types_of_size`: 1-8 GPUs single-node benchmarks, 9-128 fine-tunes
   and mid-size models, more LLM pre-training).
2. **Model names that are not Gavel job types** (Tiresias ``model_name``, Pollux ``application``,
   ITP ElasticFlow ``model_name``): the name is mapped to the closest Gavel job type by
   :data:`MODEL_TO_JOB_TYPE` (first matching prefix, longest prefix first).
3. **Step count from an observed duration** (all of the above except Pollux):
   ``total_steps = duration_s * steps_per_s(job_type, assumed_worker_type, scale_factor)``:
   the job runs as long on the assumed GPU type as in the trace (:func:`steps_from_duration`).
4. **No duration at all** (Pollux workloads): each application gets a fixed amount of work,
   :data:`POLLUX_GPU_HOURS` GPU-hours on the assumed GPU type, so
   ``duration_s = gpu_hours * 3600 / scale_factor`` and rule 3 applies. [R] The classes follow
   the Pollux paper's (Qiao et al., OSDI 2021, Table 1) size classes S/M/L/XL of 0-1, 1-10,
   10-100 and 100-1000 GPU-hours as we recall them; we use 0.5 for S and the geometric middle of
   the others.

The assumed worker type is ``TraceSpec.assumed_worker_type`` (default ``"p100"``, the most common
GPU in Philly-era clusters); importers report it back in a note.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from engine.errors import TraceError
from engine.step_time.throughput import ThroughputMatrix
from engine.traces.reading import read_csv_text, require_columns

# model-name prefix (lower case) -> Gavel job type. Reason in the comment of each group.
MODEL_TO_JOB_TYPE: dict[str, str] = {
    # ImageNet-class CNNs: Gavel's only ImageNet model is ResNet-50 (ImageNet, batch 64).
    "resnet": "ResNet-50 (batch size 64)",  # resnet50/101/152 (resnet18: see below)
    "imagenet": "ResNet-50 (batch size 64)",  # Pollux: ResNet-50 on ImageNet
    "vgg": "ResNet-50 (batch size 64)",
    "alexnet": "ResNet-50 (batch size 64)",
    "inception": "ResNet-50 (batch size 64)",
    "googlenet": "ResNet-50 (batch size 64)",
    "yolo": "ResNet-50 (batch size 64)",  # YOLOv3: a large CNN (Darknet-53) on images
    # Small-image CNNs: Gavel's ResNet-18 is trained on CIFAR-10, as is Pollux's cifar10 job.
    "resnet18": "ResNet-18 (batch size 128)",
    "cifar": "ResNet-18 (batch size 128)",
    # Attention models: Gavel's Transformer (translation, Multi30k).
    "bert": "Transformer (batch size 64)",
    "gpt": "Transformer (batch size 64)",
    "transformer": "Transformer (batch size 64)",
    # Recurrent sequence models: Gavel's LM is an LSTM language model (Wikitext-2).
    "deepspeech": "LM (batch size 20)",
    "lstm": "LM (batch size 20)",
    "lm": "LM (batch size 20)",
    # Collaborative filtering: Gavel's Recommendation (autoencoder on MovieLens ML-20M).
    "ncf": "Recommendation (batch size 2048)",
}

# Pollux application -> GPU-hours of work on the assumed GPU type (rule 4 above).
POLLUX_GPU_HOURS: dict[str, float] = {
    "cifar10": 0.5,  # S
    "ncf": 0.5,  # S
    "bert": 3.0,  # M
    "deepspeech2": 3.0,  # M
    "yolov3": 30.0,  # L
    "imagenet": 300.0,  # XL
}


def read_csv_for_assumed_type(
    text: str, file: str, required: list[str], fmt: str, matrix: ThroughputMatrix, worker_type: str
) -> pd.DataFrame:
    """The prologue of every loader whose step counts come from rule 3: reads the CSV, checks
    its columns, and checks the assumed worker type.

    Raises:
        TraceError: naming the file (and column) of the first problem.
    """
    raw = read_csv_text(text, file)
    require_columns(raw, required, file, fmt)
    check_worker_type(matrix, worker_type, file)
    return raw


def check_worker_type(matrix: ThroughputMatrix, worker_type: str, file: str) -> None:
    """Raises TraceError unless the assumed worker type is in the matrix and runs some job type."""
    if worker_type not in matrix.worker_types:
        raise TraceError(
            f"assumed GPU type {worker_type!r} is not in the throughput matrix "
            f"({', '.join(matrix.worker_types)})",
            file=file,
        )
    if not any(matrix.fits(jt, worker_type) for jt in matrix.job_types):
        raise TraceError(f"no job type of the throughput matrix runs on {worker_type!r}", file=file)


def draw_job_types(
    scale_factors: np.ndarray,
    matrix: ThroughputMatrix,
    worker_type: str,
    rng: np.random.Generator,
    file: str,
) -> list[str]:
    """Rule 1: per job, a job type drawn uniformly from those that run on ``worker_type`` at the
    job's scale factor (``steps_per_s > 0``; e.g. Gavel measured ResNet-50 at batch size 128 on
    one K80 but not on 2, 4 or 8), among :func:`job_types_of_size`.

    One uniform draw per job, so the types of the first jobs do not depend on later rows.

    Raises:
        TraceError: if no job type runs on ``worker_type`` at some job's scale factor.
    """
    sizes = np.asarray(scale_factors, dtype=np.int64)
    options = {int(sf): job_type_options(matrix, worker_type, int(sf)) for sf in np.unique(sizes)}
    missing = [sf for sf, names in options.items() if not names]
    if missing:
        row = int(np.flatnonzero(np.isin(sizes, missing))[0])
        sf = scale_factors[row]
        raise TraceError(f"no job type runs on {sf} {worker_type} GPUs", file=file, row=row + 1)
    u = rng.random(len(sizes))
    out = np.empty(len(sizes), dtype=object)
    for sf, names in options.items():  # per size at once: names[int(draw * len(names))] per job
        rows = np.flatnonzero(sizes == sf)
        out[rows] = np.asarray(names, dtype=object)[(u[rows] * len(names)).astype(np.int64)]
    return out.tolist()


def job_type_options(matrix: ThroughputMatrix, worker_type: str, scale_factor: int) -> list[str]:
    """Rule 1's options for a ``scale_factor``-GPU job: the job types of its size
    (:func:`job_types_of_size`) that run on ``worker_type`` at that size (``steps_per_s > 0``).
    A seed picks one (:func:`draw_job_types`); any of them may be a job's type on some seed."""
    return [
        jt
        for jt in job_types_of_size(matrix, scale_factor)
        if matrix.steps_per_s(jt, worker_type, scale_factor) > 0
    ]


def job_types_of_size(matrix: ThroughputMatrix, gpus: int) -> list[str]:
    """The job types a ``gpus``-GPU trace job may be mapped onto: the class of its size in
    ``matrix.job_types_by_gpus`` (the MLPerf matrix's rule, :data:`engine.mlperf.JOB_TYPES_BY_GPUS`:
    a 4-GPU Philly job becomes a single-node benchmark, a 512-GPU job LLM pre-training), or
    every job type when the matrix has no such rule (Gavel's)."""
    for limit, names in matrix.job_types_by_gpus:
        if gpus <= limit:
            return [jt for jt in names if matrix.has_job_type(jt)]
    return matrix.job_types


def map_model_names(names: Sequence[str], file: str, column: str) -> list[str]:
    """Rule 2: Gavel job type per model name (row i + 1 at position i).

    Raises:
        TraceError: naming the row and column of a model name with no entry.
    """
    prefixes = sorted(MODEL_TO_JOB_TYPE, key=len, reverse=True)
    out = []
    for i, name in enumerate(names, start=1):
        key = name.strip().lower()
        match = next((p for p in prefixes if key.startswith(p)), None)
        if match is None:
            raise TraceError(
                f"unknown model {name!r}; known model names start with: "
                f"{', '.join(sorted(MODEL_TO_JOB_TYPE))}",
                file=file,
                row=i,
                column=column,
            )
        out.append(MODEL_TO_JOB_TYPE[match])
    return out


def steps_from_duration(
    job_types: Sequence[str],
    scale_factors: np.ndarray,
    duration_s: np.ndarray,
    matrix: ThroughputMatrix,
    worker_type: str,
    file: str,
    column: str | None = None,
    setting: str = "assumed GPU type",
) -> np.ndarray:
    """Rule 3: ``duration_s * steps_per_s(job_type, worker_type, scale_factor)`` per job (float64).

    Args:
        column: the source column the job type came from, for the error message.
        setting: the scenario setting that chose ``worker_type``, for the error message.

    Raises:
        TraceError: if a (mapped) job type does not run on ``worker_type`` at its scale factor.
    """
    type_codes, types = pd.factorize(np.asarray(job_types, dtype=object))
    size_codes, sizes = pd.factorize(np.asarray(scale_factors, dtype=np.int64))
    rates = np.array(
        [[matrix.steps_per_s(jt, worker_type, int(sf)) for sf in sizes] for jt in types]
    ).reshape(len(types), len(sizes))  # each (job type, scale factor) looked up once
    rate = rates[type_codes, size_codes]
    bad = np.flatnonzero(~(rate > 0))
    if bad.size:
        i = int(bad[0])
        raise TraceError(
            f"job type {job_types[i]!r} does not run on {scale_factors[i]} {worker_type} GPUs in "
            f"the throughput matrix; choose another {setting}",
            file=file,
            row=i + 1,
            column=column,
        )
    return np.asarray(duration_s, dtype=np.float64) * rate


DURATIONS_MEASURED_ON = "Durations were measured on"
"""The trace setting :func:`assumed_type_note` names, as the dashboard's control is labelled."""
SPEEDS_MEASURED_ON = "Iteration times were measured on"
"""The same setting for a trace that carries its own speeds (Muri's), as labelled."""


def assumed_type_note(source: str, worker_type: str) -> str:
    """The note telling the user which GPU type step counts assume, naming the setting."""
    return (
        f"{source} does not record GPU types; assumed {worker_type} for step counts "
        f'(the trace setting "{DURATIONS_MEASURED_ON}")'
    )


def drawn_types_note(source: str, matrix: ThroughputMatrix, worker_type: str) -> str:
    """The note telling the user that job types were drawn at random (rule 1)."""
    count = sum(matrix.fits(jt, worker_type) for jt in matrix.job_types)
    return (
        f"{source} does not record models; each job's type was drawn uniformly (seeded) from "
        f"the {count} job types that run on {worker_type}"
    )


MAPPED_NOTE = (
    "model names were mapped to the closest Gavel job types "
    "(table MODEL_TO_JOB_TYPE in engine/traces/rules.py)"
)

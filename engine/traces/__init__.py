"""Trace import: one loader per format -> the canonical jobs table (`engine.traces.schema`).

Importing this package imports every module of it (:func:`engine.registry.import_submodules`), so
every format module's registration call runs (``list_formats()``); a new format is one module, and
its ``detect_order`` says where detection tries it. A run takes its trace with
:func:`draw_trace` (independent of the GPU mix) then :func:`fit_trace`
(:func:`engine.scenario.load_scenario_trace`); the other names are for the trace panel (column
mapping, format picker) and for tests.
"""

from engine.registry import import_submodules
from engine.traces.canonical import (
    apply_column_mapping,
    optional_canonical_columns,
    required_canonical_columns,
    to_canonical_csv,
)
from engine.traces.cluster_fit import check_cluster_fit
from engine.traces.load import apply_load
from engine.traces.registry import (
    FORMATS,
    Loaded,
    TraceInfo,
    accepted_suffixes,
    carries_speeds,
    detect_format,
    format_description,
    inspect_trace,
    list_formats,
    load_trace,
    uses_assumed_worker_type,
)
from engine.traces.resolve import (
    TraceLoad,
    draw_trace,
    fit_trace,
    list_samples,
    trace_rng,
)
from engine.traces.rules import MODEL_TO_JOB_TYPE, POLLUX_GPU_HOURS
from engine.traces.schema import JOB_COLUMNS, JOB_DTYPES, OPTIONAL_JOB_COLUMNS, OPTIONAL_JOB_DTYPES
from engine.traces.synthetic import generate_synthetic

import_submodules(__name__, __path__, skip=())  # registers every format

__all__ = [
    "FORMATS",
    "JOB_COLUMNS",
    "JOB_DTYPES",
    "MODEL_TO_JOB_TYPE",
    "OPTIONAL_JOB_COLUMNS",
    "OPTIONAL_JOB_DTYPES",
    "POLLUX_GPU_HOURS",
    "Loaded",
    "accepted_suffixes",
    "TraceInfo",
    "TraceLoad",
    "apply_column_mapping",
    "apply_load",
    "carries_speeds",
    "check_cluster_fit",
    "detect_format",
    "draw_trace",
    "fit_trace",
    "format_description",
    "generate_synthetic",
    "inspect_trace",
    "list_formats",
    "list_samples",
    "load_trace",
    "optional_canonical_columns",
    "required_canonical_columns",
    "to_canonical_csv",
    "trace_rng",
    "uses_assumed_worker_type",
]

"""The registry of trace formats: one importer per format (:data:`FORMATS`).

A format module registers its loader by a call after it, ``FORMATS.register("philly",
TraceFormat(description=..., detect=..., load=load_philly, detect_order=50))``
(:class:`engine.registry.Registry`); the registry fills at import (``engine.traces`` imports every
module of its package). :func:`detect_format` picks the format from the file's first line (CSV
header columns, the tab-separated field count of a headerless Gavel ``.trace``, a YAML document's
start), trying formats by their ``detect_order``; :func:`load_trace` runs the chosen importer.
"""

from __future__ import annotations

import csv
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.errors import ConfigError, TraceError
from engine.registry import Registry
from engine.step_time.throughput import ThroughputMatrix
from engine.traces import rules
from engine.traces.reading import decode_text, first_line
from engine.traces.text import encoding_label, is_tab_separated, tabs_to_commas


@dataclass(frozen=True)
class LoadContext:
    """What an importer needs besides the text: the matrix, the seeded rng, the assumed GPU type.

    Attributes:
        file: the file name as the user knows it (for error messages).
        matrix: the throughput matrix; job types must be among its job types.
        rng: the seeded generator for the rules of `engine.traces.rules`.
        assumed_worker_type: GPU type the trace's durations were observed on.
    """

    file: str
    matrix: ThroughputMatrix
    rng: np.random.Generator
    assumed_worker_type: str = "p100"

    def steps_from_duration(
        self,
        job_types: Sequence[str],
        scale_factors: np.ndarray,
        duration_s: np.ndarray,
        column: str | None = None,
    ) -> np.ndarray:
        """Rule 3 on the assumed GPU type: :func:`engine.traces.rules.steps_from_duration`."""
        return rules.steps_from_duration(
            job_types, scale_factors, duration_s, self.matrix, self.assumed_worker_type,
            self.file, column,
        )  # fmt: skip


@dataclass(frozen=True)
class Loaded:
    """An importer's result: the canonical jobs table, notes for the user, the format name,
    and the trace's own measured speeds when it carries them (a throughput matrix of its job
    types, e.g. :mod:`engine.traces.muri`; None: every speed comes from the scenario's matrix),
    and the rows of per-stage iteration times when it carries them (``job_id``,
    ``iteration_time`` and ``resource_time_0..2`` as in the file, read only by the sharing
    layer's interleaving model, :func:`engine.sharing.stages.trace_stage_times`)."""

    jobs: pd.DataFrame
    notes: tuple[str, ...] = ()
    format: str = ""
    throughputs: ThroughputMatrix | None = None
    stage_rows: pd.DataFrame | None = None


Loader = Callable[[str, LoadContext], Loaded]
Detector = Callable[[str], bool]


@dataclass(frozen=True)
class TraceFormat:
    """A registered format: a one-line description, its detector and its loader.

    ``uses_assumed_worker_type``: whether the loader turns observed durations into step counts
    on :attr:`LoadContext.assumed_worker_type` (False for formats that record steps).
    ``measured_speeds``: whether the trace carries its own speeds, measured on
    :attr:`LoadContext.assumed_worker_type` (:attr:`Loaded.throughputs`).
    ``draws_job_types``: whether the loader draws each job's type from its size by rule 1
    (:func:`engine.traces.rules.draw_job_types`), so the seed decides a job's type and a cluster
    that runs one seed's draw may not run another's (:func:`engine.traces.resolve.draw_misfit`).
    ``has_header``: whether the file's first line names its columns (so a team column can be
    read from it: :mod:`engine.traces.teams`); False for Gavel's headerless ``.trace``.
    ``detect_order``: where :func:`detect_format` tries this format (ascending); a format whose
    detector also accepts another format's header goes after it, which its module says.
    ``suffixes``: file extensions an upload of this format carries (lower case, no dot).
    """

    description: str
    detect: Detector
    load: Loader
    detect_order: int
    suffixes: tuple[str, ...] = ("csv", "tsv", "txt")
    uses_assumed_worker_type: bool = True
    measured_speeds: bool = False
    draws_job_types: bool = False
    has_header: bool = True


@dataclass(frozen=True)
class TraceInfo:
    """What a file looks like before import: format name, encoding label, separator."""

    format: str
    encoding: str
    tab_separated: bool

    def describe(self) -> str:
        """E.g. ``"philly, UTF-16, tab-separated"``."""
        separator = "tab-separated" if self.tab_separated else "comma-separated"
        if self.format == "gavel":
            separator = "Gavel .trace"
        return f"{self.format}, {self.encoding}, {separator}"


FORMATS: Registry[TraceFormat] = Registry("trace format")
"""Every trace format by name (:func:`list_formats` gives them in detection order)."""


def list_formats() -> list[str]:
    """Names of the registered formats, in the order detection tries them (``detect_order``)."""
    return sorted(FORMATS.names(), key=lambda name: FORMATS.get(name).detect_order)


def accepted_suffixes() -> tuple[str, ...]:
    """File extensions some registered format reads (lower case, no dot), each once, sorted."""
    return tuple(sorted({suffix for _, fmt in FORMATS.items() for suffix in fmt.suffixes}))


def format_description(name: str) -> str:
    """One-line description of a registered format (for the dashboard's format picker).

    Raises:
        ConfigError: for an unknown name (listing the known ones).
    """
    return FORMATS.get(name).description


def uses_assumed_worker_type(name: str) -> bool:
    """Whether format ``name`` reads durations that need an assumed GPU type (True if unknown)."""
    return name not in FORMATS or FORMATS.get(name).uses_assumed_worker_type


def carries_speeds(name: str) -> bool:
    """Whether format ``name`` carries its own measured speeds (False if unknown)."""
    return name in FORMATS and FORMATS.get(name).measured_speeds


def header_columns(line: str) -> set[str]:
    """The stripped comma-separated fields of a header line (none if csv cannot read it)."""
    try:
        return {field.strip() for field in next(csv.reader([line]), [])}
    except csv.Error:
        return set()


def comma_text(text: str, file: str) -> tuple[str, bool]:
    """``text`` as comma-separated text, and whether it was tab-separated (a tab-separated
    header that no format recognises as it is, e.g. Excel's "Unicode text")."""
    line = first_line(text)
    if not is_tab_separated(line) or any(fmt.detect(line) for _, fmt in FORMATS.items()):
        return text, False
    return tabs_to_commas(text, file), True


def inspect_trace(raw: bytes, file: str) -> TraceInfo:
    """The detected format, encoding and separator of a file, for the dashboard to state.

    Raises:
        TraceError: as :func:`load_trace` for a file that cannot be read or recognised.
    """
    text, tabbed = comma_text(decode_text(raw, file), file)
    return TraceInfo(detect_format(text, file), encoding_label(raw), tabbed)


def detect_format(text: str, file: str) -> str:
    """The name of the first registered format whose detector accepts the first line.

    Raises:
        TraceError: if no format matches (listing the formats known).
    """
    line = first_line(text)
    for name in list_formats():
        if FORMATS.get(name).detect(line):
            return name
    raise TraceError(
        f"could not recognise the trace format from the first line {line[:120]!r}; known "
        f"formats: {', '.join(list_formats())} (pick one explicitly, or map the columns "
        "yourself)",
        file=file,
    )


def load_trace(
    raw: bytes,
    file: str,
    matrix: ThroughputMatrix,
    rng: np.random.Generator,
    *,
    format: str = "auto",
    assumed_worker_type: str = "p100",
) -> Loaded:
    """Decodes, detects (when ``format == "auto"``) and imports one trace file.

    Returns:
        The canonical jobs table, notes on the assumptions made, and the format name used.

    Raises:
        TraceError: for an unknown format name or any problem in the file.
    """
    text, tabbed = comma_text(decode_text(raw, file), file)
    name = detect_format(text, file) if format == "auto" else format
    try:
        trace_format = FORMATS.get(name)
    except ConfigError as error:
        raise TraceError(str(error), file=file) from None
    ctx = LoadContext(file, matrix, rng, assumed_worker_type)
    loaded = trace_format.load(text, ctx)
    encoding = encoding_label(raw)
    if tabbed or encoding == "UTF-16":
        how = f"{encoding} text, {'tab' if tabbed else 'comma'}-separated"
        loaded = dataclasses.replace(loaded, notes=(f"read {file} as {how}", *loaded.notes))
    return dataclasses.replace(loaded, format=name)

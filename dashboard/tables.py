"""Edited tables <-> config dataclasses: the GPU mix and the congestion schedule.

``st.data_editor`` hands back whatever the user typed (blank cells, text in number columns), so
these functions validate each row and raise :class:`ConfigError` naming the row and column.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pandas as pd

from engine.config import (
    ClusterSpec,
    CongestionEpisode,
    JobClass,
    NodeGroup,
    TypeMtbf,
    WorkerTypeSpec,
)
from engine.errors import ConfigError


def blank(value: Any) -> bool:
    """Whether an edited cell is empty (None, NaN, pandas' NA or "")."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return (isinstance(value, float) and math.isnan(value)) or value == ""


def cell(row: pd.Series, column: str, kind: type, where: str) -> Any:
    """The cell ``column`` of ``row`` as ``kind`` (int: a whole number). Raises ConfigError
    naming ``where`` and the column for a blank cell or one that is not such a number."""
    value = row.get(column)
    if blank(value):
        raise ConfigError(f"{where}: column '{column}' is empty")
    try:
        number = kind(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: column '{column}' must be a number, got {value!r}") from exc
    if kind is int and number != float(value):
        raise ConfigError(f"{where}: column '{column}' must be a whole number, got {value!r}")
    return number


def filled_rows(frame: pd.DataFrame) -> list[pd.Series]:
    """Rows that are not entirely blank (the editor's empty new row is ignored)."""
    return [row for _, row in frame.iterrows() if not all(blank(v) for v in row.to_numpy())]


def cluster_from_frame(frame: pd.DataFrame) -> ClusterSpec:
    """The GPU mix table (worker_type, nodes, gpus_per_node, rack) as a ClusterSpec.

    Raises:
        ConfigError: for an empty table or a blank / non-numeric / non-positive cell.
    """
    groups = []
    for i, row in enumerate(filled_rows(frame), start=1):
        where = f"GPU mix row {i}"
        worker_type = row.get("worker_type")
        if blank(worker_type):
            raise ConfigError(f"{where}: pick a worker type")
        nodes = cell(row, "nodes", int, where)
        gpus = cell(row, "gpus_per_node", int, where)
        if nodes < 1 or gpus < 1:
            raise ConfigError(f"{where}: nodes and GPUs per node must be at least 1")
        rack = "rack0" if blank(row.get("rack")) else str(row.get("rack")).strip()
        groups.append(NodeGroup(str(worker_type), nodes, gpus, rack))
    if not groups:
        raise ConfigError("the GPU mix is empty; add at least one row")
    return ClusterSpec(tuple(groups))


def cluster_to_frame(cluster: ClusterSpec) -> pd.DataFrame:
    """The GPU mix table of a ClusterSpec."""
    rows = [(g.worker_type, g.nodes, g.gpus_per_node, g.rack) for g in cluster.node_groups]
    return pd.DataFrame(rows, columns=["worker_type", "nodes", "gpus_per_node", "rack"])


def congestion_from_frame(frame: pd.DataFrame) -> tuple[CongestionEpisode, ...]:
    """The congestion table (start_s, end_s, factor, links) as episodes.

    Raises:
        ConfigError: for a blank or non-numeric cell, or start_s >= end_s, or factor < 1.
    """
    episodes = []
    for i, row in enumerate(filled_rows(frame), start=1):
        where = f"congestion row {i}"
        start, end = cell(row, "start_s", float, where), cell(row, "end_s", float, where)
        factor = cell(row, "factor", float, where)
        if start >= end:
            raise ConfigError(f"{where}: start_s must be before end_s")
        if factor < 1:
            raise ConfigError(f"{where}: factor divides bandwidth and must be at least 1")
        links = "inter_node" if blank(row.get("links")) else str(row.get("links")).strip()
        episodes.append(CongestionEpisode(start, end, factor, links))
    return tuple(episodes)


def congestion_to_frame(episodes: tuple[CongestionEpisode, ...]) -> pd.DataFrame:
    """The congestion table of a tuple of episodes."""
    rows = [(e.start_s, e.end_s, e.factor, e.links) for e in episodes]
    return pd.DataFrame(rows, columns=["start_s", "end_s", "factor", "links"])


EXTRA_TYPE_COLUMNS = ["name", "base", "speed_ratio"]


def extra_types_from_frame(frame: pd.DataFrame) -> tuple[WorkerTypeSpec, ...]:
    """The extra GPU types table (name, base, speed_ratio) as WorkerTypeSpecs.

    Raises:
        ConfigError: for a blank name or base, or a speed ratio that is not a positive number.
    """
    specs = []
    for i, row in enumerate(filled_rows(frame), start=1):
        where = f"extra GPU type row {i}"
        name, base = row.get("name"), row.get("base")
        if blank(name) or blank(base):
            raise ConfigError(f"{where}: give a name and the GPU type it is compared with")
        ratio = cell(row, "speed_ratio", float, where)
        if not ratio > 0:
            raise ConfigError(f"{where}: column 'speed_ratio' must be > 0")
        specs.append(WorkerTypeSpec(str(name).strip(), str(base), ratio))
    return tuple(specs)


def extra_types_to_frame(specs: tuple[WorkerTypeSpec, ...]) -> pd.DataFrame:
    rows = [(w.name, w.base, w.speed_ratio) for w in specs]
    return pd.DataFrame(rows, columns=EXTRA_TYPE_COLUMNS)


LLM_CLASS_COLUMNS = ["name", "share", "min_gpus", "max_gpus", "job_types", "min_hours", "max_hours"]


def llm_classes_from_frame(frame: pd.DataFrame) -> tuple[JobClass, ...]:
    """The LLM-era mix's job classes from the edited table (row and column named on error).

    Raises:
        ConfigError: for a blank or non-numeric cell, or no class at all.
    """
    classes = []
    for i, row in enumerate(filled_rows(frame), start=1):
        where = f"job mix row {i}"
        name, types = row.get("name"), row.get("job_types")
        if blank(name) or blank(types):
            raise ConfigError(f"{where}: columns 'name' and 'job_types' must not be empty")
        numbers = {c: cell(row, c, float, where) for c in ("share", "min_hours", "max_hours")}
        sizes = {c: cell(row, c, int, where) for c in ("min_gpus", "max_gpus")}
        classes.append(JobClass(str(name), job_types=str(types), **numbers, **sizes))
    if not classes:
        raise ConfigError("the job mix has no class; add at least one row")
    return tuple(classes)


def llm_classes_to_frame(classes: tuple[JobClass, ...]) -> pd.DataFrame:
    return pd.DataFrame([dataclasses.astuple(c) for c in classes], columns=LLM_CLASS_COLUMNS)


TYPE_MTBF_COLUMNS = ["worker_type", "node_mtbf_h"]


def type_mtbf_from_frame(frame: pd.DataFrame) -> tuple[TypeMtbf, ...]:
    """The per-type node MTBF table (worker_type, node_mtbf_h) of the Failures tab.

    Raises:
        ConfigError: for a blank GPU type or an MTBF that is not a number (row and column).
    """
    entries = []
    for i, row in enumerate(filled_rows(frame), start=1):
        where = f"node MTBF by GPU type, row {i}"
        if blank(row.get("worker_type")):
            raise ConfigError(f"{where}: column 'worker_type' is empty")
        entries.append(TypeMtbf(str(row["worker_type"]), cell(row, "node_mtbf_h", float, where)))
    return tuple(entries)


def type_mtbf_to_frame(entries: tuple[TypeMtbf, ...]) -> pd.DataFrame:
    rows = [(e.worker_type, e.node_mtbf_h) for e in entries]
    return pd.DataFrame(rows, columns=TYPE_MTBF_COLUMNS).astype({"node_mtbf_h": float})

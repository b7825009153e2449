"""Finished runs on disk: one Parquet file per run, named by the spec's key.

``<dir>/<key>.parquet`` holds the jobs table; its schema metadata (key ``gpusched``) holds the
KPIs, the usage (`engine.results.RunResult.usage`), the trace notes and dropped jobs and the
spec's canonical JSON. A full-record run also has
``<key>.segments.parquet`` and ``<key>.utilization.parquet``, and a run under queues
``<key>.quota_usage.parquet`` (:mod:`engine.quota.results`), written first, so the main file's
presence means the run is complete. Writes are atomic (temporary file, then rename), so an
interrupted sweep leaves only whole runs behind and a re-run reuses them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from engine.results import SEGMENT_COLUMNS, UTILIZATION_COLUMNS, RunResult, SimulationResult
from engine.study.spec import RunSpec
from engine.study.traces import default_store_dir

META_KEY = b"gpusched"


def default_results_dir() -> Path:
    """``<store>/runs`` under :func:`engine.study.traces.default_store_dir`
    (``$GPUSCHED_STORE`` or ``~/.cache/gpusched``)."""
    return default_store_dir() / "runs"


class ResultStore:
    """A directory of finished runs (created on first write)."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def path(self, key: str, table: str = "") -> Path:
        return self.root / (f"{key}.{table}.parquet" if table else f"{key}.parquet")

    def has(self, spec: RunSpec) -> bool:
        return self.path(spec.key()).is_file()

    def save(self, result: RunResult) -> None:
        """Writes the run (atomically); an existing run with the same key is replaced."""
        self.root.mkdir(parents=True, exist_ok=True)
        key = result.spec.key()
        for table in ("segments", "utilization"):
            frame = getattr(result, table)
            if frame is not None:
                _write(pa.Table.from_pandas(frame, preserve_index=False), self.path(key, table))
        quota_usage = result.simulation.quota_usage  # under queues only (engine.quota)
        if quota_usage is not None:
            _write(pa.Table.from_pandas(quota_usage, preserve_index=False),
                   self.path(key, "quota_usage"))  # fmt: skip
        meta = {
            "summary": result.simulation.summary,
            "usage": result.usage,
            "notes": list(result.notes),
            "dropped_job_ids": list(result.dropped_job_ids),
            "spec": result.spec.canonical(),
        }
        table = pa.Table.from_pandas(result.jobs, preserve_index=False)
        metadata = {**(table.schema.metadata or {}), META_KEY: json.dumps(meta).encode()}
        _write(table.replace_schema_metadata(metadata), self.path(key))

    def load(self, spec: RunSpec) -> RunResult:
        """The stored result of ``spec``.

        Raises:
            FileNotFoundError: if it was never stored.
        """
        key = spec.key()
        table = pq.read_table(self.path(key))
        meta = json.loads(table.schema.metadata[META_KEY])
        extra = {
            name: pq.read_table(self.path(key, name)).to_pandas()
            for name in ("segments", "utilization", "quota_usage")
            if self.path(key, name).is_file()
        }
        usage = {k: float(v) for k, v in meta["usage"].items()}
        simulation = SimulationResult(
            spec.policy_label,
            table.to_pandas(),
            extra.get("segments", pd.DataFrame(columns=list(SEGMENT_COLUMNS))),
            extra.get("utilization", pd.DataFrame(columns=list(UTILIZATION_COLUMNS))),
            {k: float(v) for k, v in meta["summary"].items()},
            int(usage.get("num_decisions", 0)),
            quota_usage=extra.get("quota_usage"),
        )
        return RunResult(
            spec, simulation, usage, tuple(meta["notes"]), tuple(meta["dropped_job_ids"])
        )

    def keys(self) -> set[str]:
        """Keys of the complete runs in the store."""
        if not self.root.is_dir():
            return set()
        return {p.name.split(".")[0] for p in self.root.glob("*.parquet") if p.name.count(".") == 1}


def _write(table: pa.Table, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


def frame_equal(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """True when two tables are identical (values, dtypes, column order)."""
    return a.shape == b.shape and list(a.columns) == list(b.columns) and a.equals(b)

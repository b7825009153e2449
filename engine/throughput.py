"""The throughput matrix: training speed of each job type on each worker type and scale factor.

``throughputs[job_type][worker_type][scale_factor]`` is in steps/s for the whole job, as measured by
Gavel (Narayanan et al., OSDI 2020, MIT license; `engine/data/`) with the job alone and consolidated
on one server. A job type is Gavel's name, e.g. ``"ResNet-50 (batch size 64)"``; its model is the
part before `` (batch size``. A missing entry means the job does not fit on that worker type.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import pandas as pd

from engine.content import ContentStore, default_store_dir
from engine.errors import TraceError
from engine.sources import BUILTIN_MATRIX, MATRIX_HASH_PREFIX

DATA_DIR = Path(__file__).parent / "data"
GAVEL_CSV = DATA_DIR / "gavel_throughputs_isolated.csv"
GRADIENT_CSV = DATA_DIR / "gradient_sizes.csv"
BYTES_PER_PARAMETER = 4  # fp32 gradients
DEFAULT_PARAMETERS = 25_000_000  # a ResNet-50-sized model, for job types with no entry


def model_of(job_type: str) -> str:
    """``"ResNet-50 (batch size 64)"`` -> ``"ResNet-50"``."""
    return job_type.split(" (batch size")[0]


@dataclass(frozen=True)
class ThroughputMatrix:
    """Measured steps/s per (job type, worker type, scale factor).

    Attributes:
        table: ``{job_type: {worker_type: {scale_factor: steps_per_s}}}``; zero or absent = no fit.
    """

    table: dict[str, dict[str, dict[int, float]]]

    @property
    def job_types(self) -> list[str]:
        return sorted(self.table)

    @property
    def worker_types(self) -> list[str]:
        return sorted({wt for per_type in self.table.values() for wt in per_type})

    def steps_per_s(self, job_type: str, worker_type: str, scale_factor: int) -> float:
        """Throughput of a job of ``scale_factor`` GPUs of ``worker_type``; 0.0 if it does not fit.

        Scale factors not measured are reconstructed [R]: the per-GPU rate of the largest
        measured scale factor below ``scale_factor``, times ``scale_factor`` (linear weak
        scaling); if that measurement is 0 (the job does not fit there), neither does the larger
        job. The network model then charges the extra communication of the placement.
        """
        measured = self.table.get(job_type, {}).get(worker_type, {})
        if scale_factor in measured:
            return measured[scale_factor]
        below = [sf for sf in measured if sf <= scale_factor]
        if not below:
            return 0.0
        base = max(below)
        return measured[base] / base * scale_factor

    def has_job_type(self, job_type: str) -> bool:
        return job_type in self.table

    def fits(self, job_type: str, worker_type: str) -> bool:
        return self.steps_per_s(job_type, worker_type, 1) > 0

    def with_worker_type(self, name: str, base: str, speed_ratio: float) -> ThroughputMatrix:
        """Adds worker type ``name`` running ``speed_ratio`` times as fast as ``base``."""
        table = {
            jt: {
                **per_type,
                name: {sf: v * speed_ratio for sf, v in per_type.get(base, {}).items()},
            }
            for jt, per_type in self.table.items()
        }
        return ThroughputMatrix(table)

    def to_frame(self) -> pd.DataFrame:
        """Long table: job_type, worker_type, scale_factor, steps_per_s."""
        rows = [
            (jt, wt, sf, v)
            for jt, per_type in self.table.items()
            for wt, per_sf in per_type.items()
            for sf, v in per_sf.items()
        ]
        return pd.DataFrame(
            rows, columns=["job_type", "worker_type", "scale_factor", "steps_per_s"]
        )


def matrix_store() -> ContentStore:
    """Uploaded throughput matrices, by SHA-256: ``<store>/throughputs`` under
    :func:`engine.content.default_store_dir`."""
    return ContentStore(default_store_dir() / "throughputs")


def load_matrix(name: Path | str | None = None) -> ThroughputMatrix:
    """Loads a throughput CSV in Gavel's isolated layout.

    Args:
        name: ``"gavel"`` or None (the built-in table), ``"sha256:<64 hex>"`` (an uploaded
            matrix in :func:`matrix_store`), or a path to a local file (a local scenario only;
            :mod:`engine.sources` decides that when the scenario is loaded). A path is opened as
            a file, never fetched as a URL.

    Columns: ``worker_type, model, batch_size, scale_factor, isolated_steps_per_sec``; rows whose
    worker type ends in ``_unconsolidated`` are skipped (the network model covers spreading).

    Raises:
        TraceError: naming the file, row and column of a missing column or bad value, or a
            file that cannot be read.
    """
    if name is None or str(name) == BUILTIN_MATRIX:
        return _builtin_matrix()
    text = str(name)
    if text.startswith(MATRIX_HASH_PREFIX):
        return _stored_matrix(text.removeprefix(MATRIX_HASH_PREFIX))
    path = Path(text)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TraceError(f"cannot read the file: {exc.strerror}", file=path.name) from exc
    return parse_matrix(data, path.name)


@lru_cache(maxsize=4)
def _stored_matrix(digest: str) -> ThroughputMatrix:
    name, data = matrix_store().get(digest)
    return parse_matrix(data, name)


def parse_matrix(data: bytes, file: str) -> ThroughputMatrix:
    """The matrix in a CSV file's bytes (see :func:`load_matrix`). Raises TraceError."""
    try:
        frame = pd.read_csv(io.BytesIO(data))
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise TraceError("not a CSV file in Gavel's throughput layout", file=file) from exc
    return _parse_matrix(frame, file)


@cache
def _builtin_matrix() -> ThroughputMatrix:
    return _parse_matrix(pd.read_csv(GAVEL_CSV), GAVEL_CSV.name)


def _parse_matrix(frame: pd.DataFrame, file: str) -> ThroughputMatrix:
    required = ["worker_type", "model", "batch_size", "scale_factor", "isolated_steps_per_sec"]
    for column in required:
        if column not in frame.columns:
            raise TraceError(f"missing column; expected {required}", file=file, column=column)
    table: dict[str, dict[str, dict[int, float]]] = {}
    rows = zip(
        frame["worker_type"].astype(str).tolist(),
        frame["model"].astype(str).tolist(),
        pd.to_numeric(frame["batch_size"], errors="coerce").tolist(),
        pd.to_numeric(frame["scale_factor"], errors="coerce").tolist(),
        pd.to_numeric(frame["isolated_steps_per_sec"], errors="coerce").tolist(),
        strict=True,
    )
    for i, (worker_type, model, batch, scale_factor, value) in enumerate(rows, start=1):
        if worker_type.endswith("_unconsolidated"):
            continue
        if not math.isfinite(value) or value < 0:
            raise TraceError(
                "throughput is not a non-negative number",
                file=file, row=i, column="isolated_steps_per_sec",
            )  # fmt: skip
        if not math.isfinite(scale_factor) or scale_factor < 1:
            raise TraceError("scale factor must be >= 1", file=file, row=i, column="scale_factor")
        job_type = f"{model} (batch size {int(batch)})" if math.isfinite(batch) else model
        table.setdefault(job_type, {}).setdefault(worker_type, {})[int(scale_factor)] = value
    return ThroughputMatrix(table)


@cache
def gradient_table() -> dict[str, int]:
    """Parameter count per model family, from `engine/data/gradient_sizes.csv` (sources inside)."""
    frame = pd.read_csv(GRADIENT_CSV)
    return dict(zip(frame["model"], frame["parameters"].astype(int), strict=True))


def gradient_bytes(job_type: str) -> float:
    """fp32 gradient size of a job type in bytes (4 bytes a parameter).

    A model missing from the table gets ``DEFAULT_PARAMETERS`` (a ResNet-50-sized model).
    """
    params = gradient_table().get(model_of(job_type), DEFAULT_PARAMETERS)
    return float(params * BYTES_PER_PARAMETER)

"""The throughput matrix: training speed of each job type on each worker type and scale factor.

``throughputs[job_type][worker_type][scale_factor]`` is in steps/s for the whole job. Two matrices
are built in (``ScenarioConfig.throughputs``):

- ``"gavel"`` (the default): as measured by Gavel (Narayanan et al., OSDI 2020, MIT license;
  `engine/data/`) with the job alone and consolidated on one server. A job type is Gavel's name,
  e.g. ``"ResNet-50 (batch size 64)"``; its model is the part before `` (batch size``.
- ``"mlperf"`` / ``"mlperf-best"``: MLPerf Training time-to-train (MLCommons, Apache-2.0), where a
  step is one *run* (the benchmark trained to its quality target), so steps/s = 1 / time-to-train;
  built by :mod:`engine.mlperf`, which states its rules.

A missing entry means the job does not run on that worker type. Names may be looked up in any
case (``"h100-sxm"`` finds ``"H100-SXM"``).
"""

from __future__ import annotations

import dataclasses
import io
import math
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

import pandas as pd

from engine.content import ContentStore, default_store_dir
from engine.errors import TraceError
from engine.mlperf import JOB_TYPES_BY_GPUS, mlperf_table
from engine.sources import BUILTIN_MATRICES, BUILTIN_MATRIX, MATRIX_HASH_PREFIX

DATA_DIR = Path(__file__).parents[1] / "data"  # engine/data
GAVEL_CSV = DATA_DIR / "gavel_throughputs_isolated.csv"
GRADIENT_CSV = DATA_DIR / "gradient_sizes.csv"
BYTES_PER_PARAMETER = 4  # fp32 gradients
DEFAULT_PARAMETERS = 25_000_000  # a ResNet-50-sized model, for job types with no entry


def model_of(job_type: str) -> str:
    """``"ResNet-50 (batch size 64)"`` -> ``"ResNet-50"``."""
    return job_type.split(" (batch size")[0]


INTERPOLATIONS = ("gavel", "loglog")


@dataclass(frozen=True)
class ThroughputMatrix:
    """Measured steps/s per (job type, worker type, scale factor).

    Attributes:
        table: ``{job_type: {worker_type: {scale_factor: steps_per_s}}}``; zero or absent = no fit.
        name: the built-in matrix it is (``"gavel"``, ``"mlperf"``, ...) or the CSV's file name.
        interpolation: how unmeasured scale factors are filled (:meth:`steps_per_s`):
            ``"gavel"`` or ``"loglog"``.
        communication_measured: True when the measured times already hold all of a job's
            communication at every measured size (MLPerf's multi-node runs); the network model
            then charges nothing on top (:meth:`gradient_bytes`).
        job_types_by_gpus: the rule mapping a trace job without a model onto job types by its
            GPU count: ``((max_gpus, (job types...)), ...)`` ascending; empty: any job type
            (see :func:`engine.traces.rules.draw_job_types`).
        derived: the worker types added by :meth:`with_worker_type` as (name, base, speed
            ratio), in order, so :meth:`merged` gives a trace's own job types the same types.
    """

    table: dict[str, dict[str, dict[int, float]]]
    derived: tuple[tuple[str, str, float], ...] = ()
    name: str = "gavel"
    interpolation: str = "gavel"
    communication_measured: bool = False
    job_types_by_gpus: tuple[tuple[int, tuple[str, ...]], ...] = ()
    _folded: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.interpolation not in INTERPOLATIONS:
            raise ValueError(f"interpolation must be one of {INTERPOLATIONS}")
        names = {*self.table, *(wt for per_type in self.table.values() for wt in per_type)}
        self._folded.update({n.casefold(): n for n in names})

    def canonical(self, name: str) -> str:
        """The matrix's spelling of a job or worker type name given in any case (unchanged if
        the matrix has no such name)."""
        return self._folded.get(name.casefold(), name)

    @property
    def job_types(self) -> list[str]:
        return sorted(self.table)

    @property
    def worker_types(self) -> list[str]:
        return sorted({wt for per_type in self.table.values() for wt in per_type})

    def steps_per_s(self, job_type: str, worker_type: str, scale_factor: int) -> float:
        """Throughput of a job of ``scale_factor`` GPUs of ``worker_type``; 0.0 if it does not fit.

        Scale factors not measured are reconstructed [R]. ``"gavel"``: the per-GPU rate of the
        largest measured scale factor below ``scale_factor``, times ``scale_factor`` (linear weak
        scaling); if that measurement is 0 (the job does not fit there), neither does the larger
        job; none below: 0. ``"loglog"``: see :func:`loglog_steps_per_s`. The network model then
        charges the extra communication of the placement.
        """
        per_type = self.table.get(job_type)
        if per_type is None:
            per_type = self.table.get(self.canonical(job_type), {})
        measured = per_type.get(worker_type)
        if measured is None:
            measured = per_type.get(self.canonical(worker_type), {})
        if scale_factor in measured:
            return measured[scale_factor]
        if self.interpolation == "loglog":
            return loglog_steps_per_s(measured, scale_factor)
        below = [sf for sf in measured if sf <= scale_factor]
        if not below:
            return 0.0
        base = max(below)
        return measured[base] / base * scale_factor

    def gradient_bytes(self, job_type: str) -> float:
        """Bytes the network model all-reduces per step of ``job_type``: 0 when the matrix's
        times already include all communication (``communication_measured``), else
        :func:`gradient_bytes`."""
        return 0.0 if self.communication_measured else gradient_bytes(job_type)

    def has_job_type(self, job_type: str) -> bool:
        return self.canonical(job_type) in self.table

    def has_worker_type(self, worker_type: str) -> bool:
        return self.canonical(worker_type) in self.worker_types

    def fits(self, job_type: str, worker_type: str) -> bool:
        """Whether ``job_type`` runs on ``worker_type`` at some measured scale factor (Gavel's
        table measures every type on 1 GPU; a trace's own speeds, only at its jobs' sizes)."""
        return any(v > 0 for v in self.table.get(job_type, {}).get(worker_type, {}).values())

    def with_worker_type(self, name: str, base: str, speed_ratio: float) -> ThroughputMatrix:
        """Adds worker type ``name`` running ``speed_ratio`` times as fast as ``base``."""
        table = {
            jt: {
                **per_type,
                name: {sf: v * speed_ratio for sf, v in per_type.get(base, {}).items()},
            }
            for jt, per_type in self.table.items()
        }
        return dataclasses.replace(
            self, table=table, derived=(*self.derived, (name, base, speed_ratio))
        )

    def merged(self, measured: ThroughputMatrix | None) -> ThroughputMatrix:
        """This matrix with ``measured``'s entries added (a trace's own speeds, e.g.
        :mod:`engine.traces.muri`); on the same (job type, worker type, scale factor) the measured
        value wins. This matrix's derived worker types (:attr:`derived`) are added to the
        measured job types too. Returns ``self`` when ``measured`` is None or empty."""
        if measured is None or not measured.table:
            return self
        table = {jt: {wt: dict(per_sf) for wt, per_sf in per_type.items()}
                 for jt, per_type in self.table.items()}  # fmt: skip
        for job_type, per_type in measured.table.items():
            ours = table.setdefault(job_type, {})
            for worker_type, per_sf in per_type.items():
                ours.setdefault(worker_type, {}).update(per_sf)
            for name, base, speed_ratio in self.derived:
                ours[name] = {sf: v * speed_ratio for sf, v in ours.get(base, {}).items()}
        return dataclasses.replace(self, table=table)

    def slowed(self, step_time_overhead: float) -> ThroughputMatrix:
        """Every throughput divided by ``1 + step_time_overhead`` (each step that much longer);
        ``self`` when the overhead is 0."""
        if step_time_overhead == 0.0:
            return self
        factor = 1.0 + step_time_overhead
        table = {jt: {wt: {sf: v / factor for sf, v in per_sf.items()}
                      for wt, per_sf in per_type.items()}
                 for jt, per_type in self.table.items()}  # fmt: skip
        return dataclasses.replace(self, table=table)

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


def loglog_steps_per_s(measured: dict[int, float], scale_factor: int) -> float:
    """The ``"loglog"`` rule [R] for an unmeasured scale factor, from the measured sizes of one
    (job type, worker type): between two measured sizes, linear in log(size) and
    log(steps/s) (a power law through both, so it is monotone when they are); below the
    smallest or above the largest, the per-GPU rate of that nearest size (linear scaling);
    nothing measured: 0 (the job does not run there; never invented).
    """
    sizes = sorted(measured)
    if not sizes or scale_factor < 1:
        return 0.0
    if scale_factor <= sizes[0] or scale_factor >= sizes[-1]:
        base = sizes[0] if scale_factor <= sizes[0] else sizes[-1]
        return measured[base] / base * scale_factor
    upper = next(i for i, sf in enumerate(sizes) if sf > scale_factor)
    lo, hi = sizes[upper - 1], sizes[upper]
    if measured[lo] <= 0 or measured[hi] <= 0:
        return 0.0
    t = math.log(scale_factor / lo) / math.log(hi / lo)
    value = math.exp((1 - t) * math.log(measured[lo]) + t * math.log(measured[hi]))
    low, high = sorted((measured[lo], measured[hi]))
    return min(max(value, low), high)  # no rounding step outside the two measurements


def matrix_store() -> ContentStore:
    """Uploaded throughput matrices, by SHA-256: ``<store>/throughputs`` under
    :func:`engine.content.default_store_dir`."""
    return ContentStore(default_store_dir() / "throughputs")


def load_matrix(name: Path | str | None = None) -> ThroughputMatrix:
    """Loads a built-in matrix by name (:data:`engine.sources.BUILTIN_MATRICES`) or a throughput
    CSV in Gavel's isolated layout.

    Args:
        name: ``"gavel"`` or None (Gavel's built-in table), ``"mlperf"`` / ``"mlperf-best"``
            (MLPerf Training, :mod:`engine.mlperf`), ``"sha256:<64 hex>"`` (an uploaded
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
    if text in BUILTIN_MATRICES:
        return _mlperf_matrix(text)
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
def _mlperf_matrix(name: str) -> ThroughputMatrix:
    statistic = "best" if name == "mlperf-best" else "typical"
    return ThroughputMatrix(
        mlperf_table(statistic), name=name, interpolation="loglog", communication_measured=True,
        job_types_by_gpus=JOB_TYPES_BY_GPUS,
    )  # fmt: skip


@cache
def _builtin_matrix() -> ThroughputMatrix:
    return dataclasses.replace(_parse_matrix(pd.read_csv(GAVEL_CSV), GAVEL_CSV.name), name="gavel")


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
    return ThroughputMatrix(table, name=file)


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

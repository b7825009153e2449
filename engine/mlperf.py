"""The ``mlperf`` throughput matrix: MLPerf Training time-to-train of modern accelerators.

Data: `engine/data/mlperf_training_times.csv`, 1,033 results of MLPerf Training rounds v2.1 to
v5.1 (MLCommons ``training_results_vX.Y`` repositories, Apache-2.0; `engine/data/MLPERF_README.md`
gives the sources, the scoring rule, every column and the caveats). A worker type is an
``accelerator_class`` (e.g. ``H100-SXM``), a job type a ``benchmark_family`` (e.g.
``llama2_70b_lora``). A job's work is counted in *runs* (one run = the benchmark trained to its
quality target), so its throughput on n accelerators is ``1 / time_to_train_s(n)`` runs/s.

Our rules [R]:

1. **Rows that count** (:func:`counted_rows`): systems whose ``status`` is ``available``
   (preview systems are not for sale yet); no row whose ``same_logs_as`` is set (a
   re-submission of logs already counted); no ``tinygrad`` row (the file's caveat: not
   representative of the accelerator with its vendor's stack); no CPU-only row. The
   supplementary rounds v2.1/v3.0 hold A100 rows only (the file keeps them for A100s) and count.
2. **One number per (benchmark, accelerator class, count)** (:func:`points`): ``"typical"``
   is the median over submitters of each submitter's best time at that count (the README's
   "median over submitters at one scale for a typical value"); ``"best"`` is the fastest row.
   Rounds are mixed (software improves between rounds; a submitter's best may be older).
3. **Monotone in the count**: a larger count is never slower than a smaller measured one; where
   the file has it slower (another batch size or submitter), the smaller count's runs/s holds
   (``held_from`` says so).
4. **Between measured counts**: a power law through the two neighbours (linear in log-log);
   **outside** them: the per-GPU rate of the nearest measured count (linear scaling, as the
   Gavel matrix's rule above its measured sizes): optimistic above the largest count, about
   right or pessimistic below the smallest (:func:`engine.step_time.throughput.loglog_steps_per_s`).
5. **No result for a benchmark on an accelerator** = not runnable there (no entry; the engine
   refuses such a job, and the Matrix page says so). No number is invented from another type.
6. **Communication**: each time includes all of the run's communication on the submitter's
   system (NVLink in a node; InfiniBand/RoCE between nodes). The network model charges what a
   placement adds over the measured baseline; for this matrix that baseline is the whole run, so
   it charges nothing (``ThroughputMatrix.communication_measured``): link speeds, congestion and
   spreading do not change an mlperf job's speed. Gavel's matrix instead measures node-local
   runs, and the engine charges only the inter-node extra.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pandas as pd

MLPERF_CSV = Path(__file__).parent / "data" / "mlperf_training_times.csv"
STATISTICS = ("typical", "best")
EXCLUDED_FRAMEWORK_WORDS = ("tinygrad",)
EXCLUDED_CLASSES = ("none(CPU)",)
JOB_TYPES_BY_GPUS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (8, ("bert", "dlrm_dcnv2", "maskrcnn", "resnet", "retinanet", "rgat", "rnnt", "unet3d")),
    (128, ("flux1", "llama2_70b_lora", "llama31_8b", "stable_diffusion")),
    (1 << 30, ("gpt3", "llama31_405b")),
)
"""Rule mapping a trace job without a model onto MLPerf benchmarks by its GPU count [R]: up to 8
GPUs the single-node benchmarks, 9 to 128 the fine-tunes and mid-size models, above 128 LLM
pre-training; the sizes most MLPerf submissions of each use (the file's scaling table). Among the
benchmarks of its class that run on the trace's assumed GPU type, a job's is drawn uniformly."""


@cache
def raw_rows() -> pd.DataFrame:
    """The shipped CSV as read (1,033 rows; columns in `engine/data/MLPERF_README.md`)."""
    return pd.read_csv(MLPERF_CSV)


def counted_rows() -> pd.DataFrame:
    """The rows that count (rule 1 of the module docstring), in file order."""
    rows = raw_rows()
    framework = rows["framework"].fillna("").str.lower()
    excluded = framework.apply(lambda f: any(w in f for w in EXCLUDED_FRAMEWORK_WORDS))
    keep = (
        (rows["status"] == "available")
        & rows["same_logs_as"].isna()
        & ~excluded
        & ~rows["accelerator_class"].isin(EXCLUDED_CLASSES)
        & (rows["time_to_train_s"] > 0)
    )
    return rows[keep].reset_index(drop=True)


@cache
def points(statistic: str = "typical") -> pd.DataFrame:
    """One row per (benchmark, accelerator class, count) measured (rules 2 and 3).

    Columns: ``job_type``, ``worker_type``, ``accelerators``, ``time_to_train_s`` (the
    statistic, s), ``runs_per_s`` (after rule 3), ``held_from`` (the smaller count whose runs/s
    holds, else 0), ``submitters`` (how many), ``sources`` (``round submitter system: seconds``
    per row used, ``; ``-joined). Sorted by job type, worker type, count.

    Raises:
        ValueError: for a statistic not in :data:`STATISTICS`.
    """
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {STATISTICS}, got {statistic!r}")
    rows = counted_rows()
    keys = ["benchmark_family", "accelerator_class", "accelerators"]
    per_submitter = rows.sort_values("time_to_train_s", kind="mergesort").drop_duplicates(
        keys + ["submitter"]
    )
    used = per_submitter if statistic == "typical" else per_submitter.drop_duplicates(keys)
    used = used.assign(
        source=used["round"] + " " + used["submitter"] + " " + used["system"] + ": "
        + used["time_to_train_s"].map("{:,.0f} s".format)
    )  # fmt: skip
    grouped = used.sort_values(keys + ["time_to_train_s"]).groupby(keys, sort=True)
    frame = grouped.agg(
        time_to_train_s=("time_to_train_s", "median"),
        submitters=("submitter", "nunique"),
        sources=("source", "; ".join),
    ).reset_index()
    frame = frame.rename(
        columns={"benchmark_family": "job_type", "accelerator_class": "worker_type"}
    )
    frame["accelerators"] = frame["accelerators"].astype(int)
    return _monotone(frame)


def _monotone(frame: pd.DataFrame) -> pd.DataFrame:
    """Adds runs_per_s (running maximum over counts, rule 3) and held_from."""
    runs, held = [], []
    for _, group in frame.groupby(["job_type", "worker_type"], sort=False):
        best, best_n = 0.0, 0
        for n, t in zip(group["accelerators"], group["time_to_train_s"], strict=True):
            rate = 1.0 / t
            if rate >= best:
                best, best_n = rate, int(n)
            held.append(0 if best_n == n else best_n)
            runs.append(best)
    return frame.assign(runs_per_s=runs, held_from=held)


def mlperf_table(statistic: str = "typical") -> dict[str, dict[str, dict[int, float]]]:
    """``{benchmark: {accelerator class: {count: runs_per_s}}}`` of :func:`points`."""
    table: dict[str, dict[str, dict[int, float]]] = {}
    frame = points(statistic)
    for jt, wt, n, rate in zip(
        frame["job_type"], frame["worker_type"], frame["accelerators"], frame["runs_per_s"],
        strict=True,
    ):  # fmt: skip
        table.setdefault(str(jt), {}).setdefault(str(wt), {})[int(n)] = float(rate)
    return table


def provenance_kind(table: dict[str, dict[str, dict[int, float]]], job_type: str,
                    worker_type: str, gpus: int) -> str:  # fmt: skip
    """How the matrix gets the number at ``gpus``: ``"measured"``, ``"interpolated"`` (between
    two measured counts), ``"extrapolated"`` (outside them) or ``"not runnable"`` (no result)."""
    sizes = table.get(job_type, {}).get(worker_type, {})
    if not sizes:
        return "not runnable"
    if gpus in sizes:
        return "measured"
    return "interpolated" if min(sizes) < gpus < max(sizes) else "extrapolated"

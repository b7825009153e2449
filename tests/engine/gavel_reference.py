"""Gavel's own simulator results (``shared/fidelity/gavel/``) and their replay in our preset.

The reference files are what Gavel (stanford-futuredata/gavel, commit c4fa400, MIT) reported for
three traces and eight policies; their README says how they were made. Used by
``tests/engine/test_fidelity_gavel.py`` and ``benchmarks/bench_fidelity_gavel.py``.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from engine.config import ClusterSpec, NodeGroup, PolicySpec, ScenarioConfig
from engine.presets import gavel_compatible
from engine.simulator import simulate
from engine.step_time.throughput import load_matrix
from engine.traces.registry import load_trace

# A copy of shared/fidelity/gavel/ (MIT, Gavel; attribution in its README) ships with the tests,
# so the fidelity check runs on every clone; a newer shared copy beside the repository wins.
_SHARED_DIR = Path(__file__).resolve().parents[3] / "shared" / "fidelity" / "gavel"
_BUNDLED_DIR = Path(__file__).resolve().parents[1] / "data" / "gavel_fidelity"
REFERENCE_DIR = _SHARED_DIR if (_SHARED_DIR / "results.csv").exists() else _BUNDLED_DIR
WORKER_TYPES = ("v100", "p100", "k80")  # the order of results.csv's cluster column
SEEDS = (0, 1, 2, 3, 4)  # seeds averaged for policies that draw random numbers

# Gavel's policy name -> (our registered policy, whether it draws random numbers)
COUNTERPARTS: dict[str, tuple[str, bool]] = {
    "fifo": ("gavel_fifo", True),
    "fifo_perf": ("gavel_fifo_perf", False),
    "max_min_fairness": ("gavel_maxmin_agnostic", True),
    "max_min_fairness_perf": ("gavel_maxmin", False),
    "finish_time_fairness": ("gavel_ftf_agnostic", True),
    "finish_time_fairness_perf": ("gavel_ftf", False),
    "min_total_duration": ("gavel_min_total_duration_agnostic", True),
    "min_total_duration_perf": ("gavel_min_total_duration", False),
}


@dataclass(frozen=True)
class Replay:
    """Our figures for one (trace, policy) pair: means over ``seeds``."""

    avg_jct_s: float
    makespan_s: float
    utilization: float
    wall_s: float  # per run, simulate() alone, with what Gavel reports: no Gantt rows, no log
    job_jct_s: np.ndarray  # (jobs,) per trace line, mean over seeds
    seeds: tuple[int, ...]


def results() -> pd.DataFrame:
    """results.csv: one row per (trace, policy) with Gavel's figures."""
    return pd.read_csv(REFERENCE_DIR / "results.csv")


def job_jcts() -> pd.DataFrame:
    """job_jcts.csv: Gavel's per-job JCTs (``job_index`` = 0-based trace line)."""
    return pd.read_csv(REFERENCE_DIR / "job_jcts.csv")


def gavel_cluster(counts: str) -> ClusterSpec:
    """Gavel's simulated cluster: one GPU per server, ``"V100:P100:K80"`` counts."""
    numbers = [int(part) for part in counts.split(":")]
    return ClusterSpec(
        tuple(
            NodeGroup(worker_type, count, 1, "rack0")
            for worker_type, count in zip(WORKER_TYPES, numbers, strict=True)
            if count > 0
        )
    )


def replay(trace: str, counts: str, gavel_policy: str) -> Replay:
    """Runs our counterpart of ``gavel_policy`` on ``trace`` in the Gavel-compatible preset."""
    matrix = load_matrix()
    name, random = COUNTERPARTS[gavel_policy]
    raw = (REFERENCE_DIR / trace).read_bytes()
    jobs = load_trace(raw, trace, matrix, np.random.default_rng(0), format="gavel").jobs
    base = gavel_compatible(ScenarioConfig(cluster=gavel_cluster(counts)))
    seeds = SEEDS if random else (0,)
    runs = []
    started = time.perf_counter()
    for seed in seeds:
        config = dataclasses.replace(base, seed=seed)
        # what Gavel's simulator gives (JCTs, makespan, utilization): no Gantt rows, no log
        runs.append(simulate(jobs, config, PolicySpec(name), matrix,
                             record_segments=False, decision_log=False))  # fmt: skip
    wall_s = (time.perf_counter() - started) / len(seeds)
    line = jobs["source_row"].to_numpy() - 1
    per_job = np.zeros(len(jobs))
    for run in runs:
        table = run.jobs.set_index("job_id").loc[jobs["job_id"]]
        per_job[line] += table["jct_s"].to_numpy() / len(runs)
    return Replay(
        avg_jct_s=float(np.mean([run.jobs["jct_s"].mean() for run in runs])),
        makespan_s=float(np.mean([run.jobs["completion_s"].max() for run in runs])),
        utilization=float(np.mean([_utilization(run) for run in runs])),
        wall_s=wall_s,
        job_jct_s=per_job,
        seeds=seeds,
    )


def _utilization(run) -> float:  # type: ignore[no-untyped-def]
    return float(run.summary["utilization_mean"])

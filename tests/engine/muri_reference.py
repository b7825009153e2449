"""Replaying the Muri testbed's trace under the ``muri_testbed`` preset, and its own logs.

``tests/data/muri_fidelity/`` is a copy of ``shared/fidelity/muri/`` (NOTICE.md there): per-job
logs of the real cluster (``testbed/<run>/job.csv``) and of Muri's own simulator
(``muri_simulator/<run>/job.csv``) on the trace shipped as ``sample_traces/muri_cluster_trace.csv``,
all times in seconds. Used by ``tests/engine/test_fidelity_muri.py`` and
``benchmarks/bench_fidelity_muri.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

from engine.config import ClusterSpec, NodeGroup, PolicySpec, ScenarioConfig, TraceSpec
from engine.presets import muri_testbed
from engine.results import SimulationResult
from engine.scenario import load_scenario_trace, run_matrix
from engine.simulator import simulate

ROOT = Path(__file__).resolve().parents[2]
REFERENCE_DIR = ROOT / "tests" / "data" / "muri_fidelity"
TRACE = "sample:muri_cluster_trace.csv"

LAS = PolicySpec("las", {"queue_thresholds_gpu_s": "3250,7200", "promote_knob": 0.0})
"""Tiresias as the testbed ran it (``dlas-gpu``): 3 queues at 3,250 and 7,200 GPU-s, no
promotion (Rivendile/Muri ``cluster_exp/jobs.py``, ``queue_limit``; ``solve_starvation=0``)."""

RUNS: dict[str, tuple[str, PolicySpec]] = {
    "tiresias": ("Tiresias LAS", LAS),
    "SRTF": ("SRTF", PolicySpec("srtf")),
}
"""The testbed's run name -> our policy's readable name and spec."""

SHARING_RUNS: dict[str, PolicySpec] = {
    "Muri-S": PolicySpec("muri_s"),
    "Muri-L": PolicySpec("muri_l"),
    "Themis": PolicySpec("themis"),
}
"""Muri's own policies and Themis, which the testbed also ran (its logs are not in
``shared/``): the preset gives Muri's policies k = 4 and the interleaving model; Themis gets
exclusive GPUs, as on the testbed."""


def testbed_config(policy: PolicySpec) -> ScenarioConfig:
    """The testbed: 1 switch, 8 nodes x 8 V100 (``cluster_spec_n8g8.csv``), the trace's speeds
    taken as measured on V100, under the ``muri_testbed`` preset."""
    cluster = ClusterSpec((NodeGroup("v100", 8, 8, "rack0"),))
    trace = TraceSpec(source=TRACE, assumed_worker_type="v100")
    return muri_testbed(ScenarioConfig(trace=trace, cluster=cluster, policies=(policy,)))


@cache
def replay(run: str) -> SimulationResult:
    """Our run of the testbed run ``run`` ("tiresias" or "SRTF")."""
    return replay_policy(RUNS[run][1])


@cache
def replay_policy(policy: PolicySpec) -> SimulationResult:
    """Our run of ``policy`` on the testbed's trace and cluster under the ``muri_testbed``
    preset (the trace's stage times passed for Muri's policies)."""
    config = testbed_config(policy)
    trace = load_scenario_trace(config)
    return simulate(
        trace.jobs, config, config.policies[0], run_matrix(config, trace),
        stage_rows=trace.stage_rows, trace_file=trace.file_name,
    )  # fmt: skip


def logged(source: str, run: str) -> pd.DataFrame:
    """A logged run's per-job table (``source`` "testbed" or "muri_simulator"), job ids as text."""
    frame = pd.read_csv(REFERENCE_DIR / source / run / "job.csv")
    return frame.assign(job_id=frame["job_id"].astype(str))


@dataclass(frozen=True)
class Figures:
    """One run's figures beside the testbed's: average and median JCT, makespan (s), per-job
    JCT correlation (Pearson) with the testbed, and launches (first starts and relaunches; None
    for Muri's simulator, which does not launch)."""

    avg_jct_s: float
    makespan_s: float
    median_jct_s: float
    correlation: float
    launches: int | None


def figures(
    jct_s: pd.Series, end_s: pd.Series, testbed: pd.DataFrame, launches: int | None
) -> Figures:
    """``jct_s`` and ``end_s`` indexed by job id, set beside the testbed's per-job table."""
    paired = testbed.set_index("job_id")["JCT"].reindex(jct_s.index)
    assert paired.notna().all(), "every job of the trace is in the testbed's log"
    return Figures(
        float(jct_s.mean()), float(end_s.max()), float(jct_s.median()),
        float(np.corrcoef(jct_s.to_numpy(), paired.to_numpy())[0, 1]), launches,
    )  # fmt: skip


def ours(run: str) -> Figures:
    result = replay(run)
    jobs = result.jobs.set_index("job_id")
    launches = len(result.segments.drop_duplicates(["job_id", "start_s"]))
    return figures(jobs["jct_s"], jobs["completion_s"], logged("testbed", run), launches)


def of_log(source: str, run: str) -> Figures:
    frame = logged(source, run).set_index("job_id")
    launches = int(frame["job_counter"].sum()) if "job_counter" in frame else None
    return figures(frame["JCT"], frame["end_time"], logged("testbed", run), launches)

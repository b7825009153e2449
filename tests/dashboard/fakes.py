"""A fake ComparisonResult with the engine's table columns, for chart and page tests."""

from __future__ import annotations

import numpy as np
import pandas as pd

from engine.config import CongestionEpisode, NetworkConfig, PolicySpec, ScenarioConfig
from engine.metrics import summarize
from engine.results import ComparisonResult, SimulationResult

WORKER_TYPES = ("k80", "p100", "v100")
CAPACITY = {"k80": 8, "p100": 8, "v100": 8}


def fake_simulation(policy: str, n_jobs: int, seed: int) -> SimulationResult:
    """One policy's tables: jobs run back to back, every third job preempted once."""
    rng = np.random.default_rng(seed)
    rows, segments, t = [], [], 0.0
    for i in range(n_jobs):
        arrival = i * 300.0
        start = max(t, arrival)
        worker_type = WORKER_TYPES[i % 3]
        run = float(rng.uniform(600, 7200))
        if i % 3 == 0:
            segments.append(_segment(i, start, start + run / 2, worker_type, "preempted"))
            segments.append(
                _segment(i, start + run / 2 + 60, start + run + 60, worker_type, "completed")
            )
            end = start + run + 60
        else:
            segments.append(_segment(i, start, start + run, worker_type, "completed"))
            end = start + run
        t = start + run / 4
        rows.append(_job(i, arrival, start, end, worker_type, int(i % 3 == 0), run))
    jobs = pd.DataFrame(rows)
    utilization = _utilization(pd.DataFrame(segments))
    return SimulationResult(
        policy, jobs, pd.DataFrame(segments), utilization, summarize(jobs, utilization)
    )


def _segment(i: int, start: float, end: float, worker_type: str, reason: str) -> dict:
    """Nodes of the default cluster: n0-n3 in rack0; every tenth job (2 GPUs) spans n11 (rack0)
    and n12 (rack1), one GPU on each."""
    spread = i % 10 == 9
    return {
        "job_id": f"j{i}", "start_s": start, "end_s": end, "restore_s": 0.0,
        "worker_type": worker_type, "num_gpus": 1 + i % 2,
        "nodes": "n11,n12" if spread else f"n{i % 4}",
        "node_gpus": "1,1" if spread else str(1 + i % 2),
        "racks": "rack0,rack1" if spread else "rack0", "level": "network" if spread else "node",
        "end_reason": reason, "lane": 0, "combine": "gang",
    }  # fmt: skip


def _job(
    i: int, arrival: float, start: float, end: float, wt: str, preempt: int, run: float
) -> dict:
    jct = end - arrival
    return {
        "job_id": f"j{i}", "arrival_s": arrival, "job_type": "ResNet-50 (batch size 64)",
        "scale_factor": 1 + i % 2, "total_steps": 1000.0, "priority_weight": 1.0,
        "first_start_s": start, "completion_s": end, "jct_s": jct,
        "queueing_delay_s": start - arrival,
        "run_time_s": run, "num_preemptions": preempt, "comm_overhead": 0.05,
        "attained_service_gpu_s": run, "isolated_jct_s": run, "ftf_rho": jct / run,
        "network_sensitivity": 1.0 + (i % 2) * (i % 5) * 0.4,
        "consolidation_wait_s": 120.0 if i % 7 == 3 else 0.0, "last_worker_type": wt,
    }  # fmt: skip


def _utilization(segments: pd.DataFrame) -> pd.DataFrame:
    events = []
    for row in segments.itertuples():
        events += [
            (row.start_s, row.worker_type, row.num_gpus),
            (row.end_s, row.worker_type, -row.num_gpus),
        ]
    frames = []
    for wt in WORKER_TYPES:
        ev = sorted((t, d) for t, w, d in events if w == wt)
        times = [0.0] + [t for t, _ in ev]
        busy = np.cumsum([0] + [d for _, d in ev])
        frames.append(pd.DataFrame({
            "time_s": times, "worker_type": wt, "busy_gpus": busy,
            "capacity_gpus": CAPACITY[wt], "utilization": busy / CAPACITY[wt],
        }))  # fmt: skip
    return pd.concat(frames, ignore_index=True)


def fake_comparison(
    policies: tuple[str, ...] = ("fifo", "las"),
    n_jobs: int = 30,
    congestion: tuple[CongestionEpisode, ...] = (),
) -> ComparisonResult:
    """A ComparisonResult over ``policies`` with ``n_jobs`` jobs each, on the default cluster,
    with the given congestion episodes in its network config."""
    config = ScenarioConfig(
        policies=tuple(PolicySpec(p) for p in policies),
        network=NetworkConfig(congestion=congestion),
    )
    results = tuple(fake_simulation(p, n_jobs, seed) for seed, p in enumerate(policies))
    return ComparisonResult(config, results, trace_notes=("fake trace",))

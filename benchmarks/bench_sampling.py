"""Prints decision times of the sampling-based placement policy (a benchmark, not a test).

Policy: ``sampling_placement`` (Liu et al., IEEE TPDS 2024, doi 10.1109/TPDS.2024.3390109).
Cases:
  (a) one sampled decision (N = 64) for J jobs on 100 GPUs of three types, jobs drawn from
      Gavel's synthetic mix (scale factors 1/2/4/8), half of them running: mean and p95 over
      repeated decisions (warm: job rows cached, as inside a simulation). Target for 100 jobs x
      100 GPUs: < 50 ms. With J = K every job gets one worker, so fewer jobs are timed too.
  (b) exact vs sampled on small cases of multi-GPU jobs: categories scored, decision time, and
      the winning category's estimated mean JCT (sampled / exact; 1.0 = the optimum found).
  (c) the full 2,000-job Philly sample on the default 512-GPU, three-type cluster, sampled
      mode. Target: < 60 s.

    .venv/bin/python benchmarks/bench_sampling.py            # all cases
    .venv/bin/python benchmarks/bench_sampling.py --skip-full
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.config import (  # noqa: E402
    ClusterSpec,
    NetworkConfig,
    NodeGroup,
    PolicySpec,
    RoundConfig,
    ScenarioConfig,
)
from engine.jobs import reference_speeds  # noqa: E402
from engine.policies.base import PolicyContext, SchedulerState  # noqa: E402
from engine.policies.sampling.policy import SamplingPlacement  # noqa: E402
from engine.state import JobState  # noqa: E402
from engine.step_time.throughput import gradient_bytes, load_matrix  # noqa: E402

MATRIX = load_matrix()
TYPES = ["k80", "p100", "v100"]


def cluster_of(gpus: int) -> ClusterSpec:
    """About 40% V100, 30% P100, 30% K80 in nodes of 4, one rack per type."""
    v100, p100 = round(0.4 * gpus), round(0.3 * gpus)
    k80 = gpus - v100 - p100
    groups = [NodeGroup(wt, -(-n // 4), 4, f"rack-{wt}") for wt, n in
              (("v100", v100), ("p100", p100), ("k80", k80))]  # fmt: skip
    return ClusterSpec(tuple(groups))


MIX = ([1, 2, 4, 8], [0.7, 0.1, 0.15, 0.05])
"""Gavel's synthetic scale-factor mix (engine/traces/synthetic.py)."""
MULTI = ([2, 4, 8], [0.3, 0.5, 0.2])
"""Multi-GPU jobs only, so the exact category space is large."""


def make_jobs(
    count: int, rng: np.random.Generator, mix: tuple[list[int], list[float]] = MIX
) -> list[JobState]:
    """Jobs of random Gavel job types with scale factors drawn from ``mix``."""
    names = MATRIX.job_types
    jobs = []
    for i in range(count):
        job_type = names[int(rng.integers(len(names)))]
        sf = int(rng.choice(mix[0], p=mix[1]))
        rates = {wt: MATRIX.steps_per_s(job_type, wt, sf) for wt in TYPES}
        speeds = reference_speeds(MATRIX, job_type, TYPES)
        steps = float(rng.uniform(1e3, 1e6))
        grad = gradient_bytes(job_type)
        jobs.append(JobState(i, f"j{i}", 0.0, job_type, sf, steps, 1.0, rates, grad, speeds))
    return jobs


def policy(spec: ClusterSpec, mode: str, seed: int) -> SamplingPlacement:
    context = PolicyContext(spec, RoundConfig(), np.random.default_rng(seed), NetworkConfig())
    return SamplingPlacement(SamplingPlacement.Params(mode=mode), context)


def state_of(jobs: list[JobState], spec: ClusterSpec) -> SchedulerState:
    capacity = spec.capacity()
    return SchedulerState(0.0, jobs, [], capacity, dict(capacity), 0)


def running_state(jobs: list[JobState], spec: ClusterSpec) -> SchedulerState:
    """Places half the jobs with one decision, then returns the state with them running."""
    from engine.allocation.layout import NodeLayout
    from engine.cluster import ClusterState
    from engine.placement import get_placement

    first = policy(spec, "sampled", 0).allocate(state_of(jobs[: len(jobs) // 2], spec))
    cluster = ClusterState(NodeLayout.of(spec), get_placement("consolidated"))
    for index, grant in first.items():
        job = jobs[index]
        job.placement = cluster.place_parts(grant.pieces(), grant.combine)
        job.grant = grant
        job.first_start_s = 0.0
    running = [j for j in jobs if j.placement is not None]
    waiting = [j for j in jobs if j.placement is None]
    return SchedulerState(60.0, waiting, running, spec.capacity(), cluster.free_gpus, 0)


def case_a(repeats: int) -> None:
    print("(a) one sampled decision, N=64, half the jobs running (ms)")
    for jobs_count, gpus in ((100, 100), (60, 100), (30, 100), (150, 512), (300, 512)):
        spec = cluster_of(gpus)
        state = running_state(make_jobs(jobs_count, np.random.default_rng(1)), spec)
        pol = policy(spec, "sampled", 2)
        started = time.perf_counter()
        pol.allocate(state)
        cold = time.perf_counter() - started
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            pol.allocate(state)
            times.append(time.perf_counter() - started)
        ms = 1e3 * np.array(times)
        print(
            f"  {jobs_count:4d} jobs x {gpus:4d} GPUs: mean {ms.mean():6.2f}  p95 "
            f"{np.percentile(ms, 95):6.2f}  first {1e3 * cold:6.2f}  "
            f"categories {pol.last_categories}"
        )


def case_b() -> None:
    print("(b) exact vs sampled (N=64), multi-GPU jobs, all waiting")
    for jobs_count, gpus, seed in ((4, 12, 3), (5, 16, 4), (6, 20, 5), (7, 24, 6), (8, 28, 7)):
        spec = cluster_of(gpus)
        jobs = make_jobs(jobs_count, np.random.default_rng(seed), MULTI)
        row = []
        for mode in ("exact", "sampled"):
            pol = policy(spec, mode, 0)
            started = time.perf_counter()
            pol.allocate(state_of(jobs, spec))
            row.append((1e3 * (time.perf_counter() - started), pol.last_categories, pol.last_score))
        (t_exact, n_exact, s_exact), (t_sampled, n_sampled, s_sampled) = row
        print(
            f"  {jobs_count:2d} jobs x {gpus:2d} GPUs: exact {n_exact:6d} categories "
            f"{t_exact:8.1f} ms | sampled {n_sampled:3d} categories {t_sampled:6.1f} ms | "
            f"speed-up {t_exact / t_sampled:6.1f}x | est. mean JCT sampled/exact "
            f"{s_sampled / s_exact:.4f}"
        )


def case_c() -> None:
    from engine.scenario import run_scenario

    config = ScenarioConfig(policies=(PolicySpec("sampling_placement", {"mode": "sampled"}),))
    started = time.perf_counter()
    result = run_scenario(config).results[0]
    wall = time.perf_counter() - started
    per_decision_ms = 1e3 * result.decision_time_s / result.num_decisions
    print(
        f"(c) Philly 2,000 jobs, 512 GPUs, sampled: wall {wall:.1f} s, "
        f"{result.num_decisions} decisions, {per_decision_ms:.2f} ms each, "
        f"mean JCT {result.summary['jct_mean_s'] / 3600:.2f} h, "
        f"preemptions {result.summary['preemptions_total']:.0f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--skip-full", action="store_true", help="skip case (c)")
    args = parser.parse_args()
    case_a(args.repeats)
    case_b()
    if not args.skip_full:
        case_c()


if __name__ == "__main__":
    main()

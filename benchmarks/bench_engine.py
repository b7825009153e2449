"""Prints wall time and peak memory of the engine on real traces (a benchmark, not a test).

Cases (issue "The what-if dashboard, end to end"):
  (a) the full Philly job trace (82,247 jobs over 109 days; shared/traces/philly/) on the default
      three-type cluster of 512 GPUs (192 V100, 192 P100, 128 K80), one policy at a time.
      Targets: < 30 s for FIFO and LAS, < 120 s for Gavel max-min, peak memory < 2 GiB.
  (b) the dashboard path from Run to charts: the 2,000-job Philly sample, four policies,
      run_scenario + every chart builder of the results pages. Target: < 5 s.
  (c) the seed schedulers (issue "Seed schedulers I"): the 2,000-job Philly sample on the default
      three-type cluster of 512 GPUs, one policy at a time, with the mean decision time per
      scheduling event. Target: < 60 s each. Cases ``sample-<policy>``.
  (d) the network-aware and elastic schedulers (issue "Seed schedulers II"): the same sample on
      the default 4-rack cluster of 512 GPUs under congestion (cross-rack links at a quarter of
      their bandwidth for the first week, every inter-node link at half on day 2). Target:
      < 60 s each. Cases ``congested-<policy>``.

Each case runs in a fresh subprocess so its peak RSS (ru_maxrss) is its own.

    .venv/bin/python benchmarks/bench_engine.py            # all cases
    .venv/bin/python benchmarks/bench_engine.py --case fifo --jobs 20000
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.results import ComparisonResult

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
FULL_PHILLY = ROOT.parent / "shared" / "traces" / "philly" / "philly_pollux_jobs_full_82247.csv"
FULL_CASES = {"fifo": "fifo", "las": "las", "gavel_maxmin": "gavel_maxmin"}
DASHBOARD_POLICIES = ("fifo", "srtf", "las", "gavel_maxmin")
SAMPLE_POLICIES = ("hadar", "hadare", "hare_hlas", "hare_offline", "sampling_placement")
SAMPLE_CASES = {f"sample-{p}": p for p in SAMPLE_POLICIES}
NETWORK_POLICIES = (
    "dally", "consolidation_strict", "consolidation_none", "consolidation_tiresias", "doubling",
    "one_gpu_per_job",
)  # fmt: skip
CONGESTED_CASES = {f"congested-{p}": p for p in NETWORK_POLICIES}
DAY_S = 86400.0


def run_full(policy: str, max_jobs: int | None) -> dict[str, object]:
    from engine.config import PolicySpec, ScenarioConfig, TraceSpec
    from engine.scenario import load_scenario_trace
    from engine.simulator import simulate
    from engine.throughput import load_matrix

    config = ScenarioConfig(
        trace=TraceSpec(source=str(FULL_PHILLY), max_jobs=max_jobs), policies=(PolicySpec(policy),)
    )
    matrix = load_matrix()
    started = time.perf_counter()
    jobs = load_scenario_trace(config, matrix).jobs
    loaded = time.perf_counter()
    result = simulate(jobs, config, config.policies[0], matrix)
    done = time.perf_counter()
    return {
        "case": f"(a) full Philly, {policy}",
        "jobs": len(jobs),
        "load_s": loaded - started,
        "simulate_s": done - loaded,
        "decisions": result.num_decisions,
        "decision_ms_mean": 1e3 * result.decision_time_s / max(1, result.num_decisions),
        "jct_mean_h": result.summary["jct_mean_s"] / 3600,
        "makespan_d": result.summary["makespan_s"] / 86400,
    }


def run_sample(policy: str, congested: bool = False) -> dict[str, object]:
    """Cases (c) and (d): one policy on the 2,000-job Philly sample and the default 512-GPU
    cluster, with the congestion schedule of (d) when ``congested``."""
    from engine.config import CongestionEpisode, NetworkConfig, PolicySpec, ScenarioConfig
    from engine.scenario import load_scenario_trace
    from engine.simulator import simulate
    from engine.throughput import load_matrix

    episodes = (
        CongestionEpisode(0.0, 7 * DAY_S, 4.0, "cross_rack"),
        CongestionEpisode(DAY_S, 2 * DAY_S, 2.0, "inter_node"),
    )
    network = NetworkConfig(congestion=episodes if congested else ())
    config = ScenarioConfig(policies=(PolicySpec(policy),), network=network)
    matrix = load_matrix()
    jobs = load_scenario_trace(config, matrix).jobs
    started = time.perf_counter()
    result = simulate(jobs, config, config.policies[0], matrix)
    done = time.perf_counter()
    return {
        "case": f"({'d' if congested else 'c'}) Philly 2,000 jobs, {policy}",
        "simulate_s": done - started,
        "decisions": result.num_decisions,
        "decision_ms_mean": 1e3 * result.decision_time_s / max(1, result.num_decisions),
        "jct_mean_h": result.summary["jct_mean_s"] / 3600,
        "makespan_d": result.summary["makespan_s"] / 86400,
        "utilization": result.summary["utilization_mean"],
        "comm_overhead": result.summary["comm_overhead_mean"],
    }


def result_figures(result: ComparisonResult) -> list[object]:
    """Every figure the result pages draw by default (Results, Schedule, Utilization, Fairness)."""
    from dashboard.chart_style import policy_colors, worker_type_colors
    from dashboard.charts import (
        make_ftf_distribution,
        make_gantt,
        make_jain_bar,
        make_jct_cdf,
        make_utilization,
    )
    from dashboard.components.gantt_filters import GanttFilter, select_jobs

    colors = policy_colors(result.policies)
    jobs_all = result.combined("jobs")
    utilization = result.combined("utilization")
    type_colors = worker_type_colors(utilization["worker_type"].unique())
    end_s = float(utilization["time_s"].max())
    figures: list[object] = [
        make_jct_cdf(jobs_all, colors, True),
        make_ftf_distribution(jobs_all, colors),
        make_jain_bar(result.kpi_table()["jain_index"].to_dict(), colors),
    ]
    for sim in result.results:
        shown = sim.jobs[
            sim.jobs["job_id"].isin(select_jobs(sim.jobs, sim.segments, GanttFilter()))
        ]
        figures.append(make_gantt(sim.segments, shown, type_colors))
        figures.append(
            make_utilization(sim.utilization, type_colors, title=sim.policy, end_s=end_s)
        )
    return figures


def run_dashboard_path() -> dict[str, object]:
    """Run -> charts as a live server does it: modules are imported before the click."""
    import dashboard.charts  # noqa: F401  (a running server has plotly loaded already)
    from engine.config import PolicySpec, ScenarioConfig
    from engine.scenario import run_scenario

    config = ScenarioConfig(policies=tuple(PolicySpec(p) for p in DASHBOARD_POLICIES))
    started = time.perf_counter()
    result = run_scenario(config)
    simulated = time.perf_counter()
    figures = result_figures(result)
    cold = time.perf_counter()
    result_figures(result)  # a server that has drawn charts before (plotly validators built)
    done = time.perf_counter()
    return {
        "case": "(b) dashboard Run->charts, Philly 2,000 jobs x 4 policies",
        "simulate_s": simulated - started,
        "charts_first_time_s": cold - simulated,
        "charts_warm_s": done - cold,
        "run_to_charts_warm_s": simulated - started + done - cold,
        "figures": len(figures),
        **{f"{r.policy}_decide_s": r.decision_time_s for r in result.results},
    }


def child(case: str, max_jobs: int | None) -> None:
    started = time.perf_counter()
    if case == "dashboard":
        out = run_dashboard_path()
    elif case in SAMPLE_CASES:
        out = run_sample(SAMPLE_CASES[case])
    elif case in CONGESTED_CASES:
        out = run_sample(CONGESTED_CASES[case], congested=True)
    else:
        out = run_full(FULL_CASES[case], max_jobs)
    out["wall_s"] = time.perf_counter() - started
    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--case",
        choices=[*FULL_CASES, "dashboard", *SAMPLE_CASES, *CONGESTED_CASES],
        action="append",
    )
    parser.add_argument("--jobs", type=int, help="cut the full trace to its first N jobs")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    cases = args.case or [*FULL_CASES, "dashboard", *SAMPLE_CASES, *CONGESTED_CASES]
    if args.child:
        child(cases[0], args.jobs)
        return
    for case in cases:
        command = [sys.executable, __file__, "--child", "--case", case]
        if args.jobs:
            command += ["--jobs", str(args.jobs)]
        proc = subprocess.run(command, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            print(f"{case}: FAILED\n{proc.stderr[-2000:]}")
            continue
        row = json.loads(proc.stdout.strip().splitlines()[-1])
        print(
            "  ".join(
                f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()
            )
        )
        sys.stdout.flush()


if __name__ == "__main__":
    main()

"""One run of one case of ``bench_engine.py``, printed as a JSON line (``seconds`` is the figure).

.venv/bin/python -m benchmarks.bench_cases dashboard
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FULL_PHILLY = ROOT.parent / "shared" / "traces" / "philly" / "philly_pollux_jobs_full_82247.csv"
DASHBOARD_POLICIES = ("fifo", "srtf", "las", "gavel_maxmin")
SAMPLE_POLICIES = ("hadar", "hadare", "hare_hlas", "hare_offline", "sampling_placement")
NETWORK_POLICIES = (
    "dally", "consolidation_strict", "consolidation_none", "consolidation_tiresias", "doubling",
    "one_gpu_per_job",
)  # fmt: skip
SAMPLE_CASES = [f"sample-{p}" for p in SAMPLE_POLICIES]
CONGESTED_CASES = [f"congested-{p}" for p in NETWORK_POLICIES]
DAY_S = 86400.0


def full(policy: str, max_jobs: int | None) -> dict[str, object]:
    """The full Philly trace, one policy; the figure is simulate() alone."""
    from engine.config import PolicySpec, ScenarioConfig, TraceSpec
    from engine.scenario import load_scenario_trace
    from engine.simulator import simulate
    from engine.step_time.throughput import load_matrix

    config = ScenarioConfig(
        trace=TraceSpec(source=str(FULL_PHILLY), max_jobs=max_jobs), policies=(PolicySpec(policy),)
    )
    matrix = load_matrix()
    started = time.perf_counter()
    jobs = load_scenario_trace(config).jobs
    loaded = time.perf_counter()
    cpu_started = time.process_time()
    result = simulate(jobs, config, config.policies[0], matrix)
    done = time.perf_counter()
    return {
        "seconds": done - loaded,
        "cpu_s": time.process_time() - cpu_started,  # on a loaded machine, the steadier figure
        "load_s": loaded - started,
        "jobs": len(jobs),
        "decisions": result.num_decisions,
        "jct_mean_h": result.summary["jct_mean_s"] / 3600,
    }


def _dashboard_run(policies: tuple[str, ...], warm: bool = True) -> dict[str, object]:
    """As the dashboard's Run does it: policies side by side, then the Results page's charts;
    the Schedule page's Gantt timed apart. ``warm``: pool and plotly warmed by a small run."""
    from dashboard.components.gantt_filters import GanttFilter, shared_selection
    from dashboard.components.kpi_table import kpi_styler
    from dashboard.parallel_run import run_policies, warm_up
    from engine.config import PolicySpec, ScenarioConfig, TraceSpec
    from engine.results import ComparisonResult
    from engine.scenario import load_scenario_trace, scenario_specs
    from engine.study.traces import trace_payload

    def run_all(config: ScenarioConfig) -> ComparisonResult:  # as dashboard.runner.run does
        digest, file = trace_payload(config, None)
        num_jobs = len(load_scenario_trace(config, file, digest).jobs)  # kept from the preview
        runs = run_policies(scenario_specs(config, digest), file, num_jobs)
        return ComparisonResult.of(config, runs)

    def results_page(result) -> None:  # type: ignore[no-untyped-def]
        from dashboard.chart_style import policy_colors
        from dashboard.charts import make_jct_cdf

        kpi_styler(result.kpi_table()).to_html()
        make_jct_cdf(result.combined("jobs"), policy_colors(result.policies), True).to_json()

    if warm:
        warm_up()
        small = ScenarioConfig(trace=TraceSpec(max_jobs=100), policies=(PolicySpec("fifo"),))
        results_page(run_all(small))
    config = ScenarioConfig(policies=tuple(PolicySpec(p) for p in policies))
    digest, file = trace_payload(config, None)
    load_scenario_trace(config, file, digest)  # the preview's
    started = time.perf_counter()
    result = run_all(config)
    simulated = time.perf_counter()
    results_page(result)
    charted = time.perf_counter()
    gantt_s = _schedule_page(result.results[0], GanttFilter(), shared_selection)
    return {
        "seconds": charted - started,
        "run_s": simulated - started,
        "charts_s": charted - simulated,
        "gantt_s": gantt_s,
        **{f"{r.policy}_decide_s": r.decision_time_s for r in result.results},
    }


def _schedule_page(sim, spec, shared_selection) -> float:  # type: ignore[no-untyped-def]
    from dashboard.chart_style import worker_type_colors
    from dashboard.charts import make_gantt

    started = time.perf_counter()
    order, shown_end_s = shared_selection([sim], spec)
    jobs = sim.jobs[sim.jobs["job_id"].astype(str).isin(order)]
    colors = worker_type_colors(sim.segments["worker_type"].dropna().unique())
    make_gantt(sim.segments, jobs, colors, order=order, shown_end_s=shown_end_s).to_json()
    return time.perf_counter() - started


def select_all() -> dict[str, object]:
    from engine.policies import list_policies

    out = _dashboard_run(tuple(list_policies()))
    decide = {k.removesuffix("_decide_s"): v for k, v in out.items() if k.endswith("_decide_s")}
    slowest = sorted(decide, key=decide.__getitem__, reverse=True)[:3]  # type: ignore[arg-type]
    return {
        "seconds": out["seconds"],
        "policies": len(decide),
        "run_s": out["run_s"],
        **{f"{name}_decide_s": decide[name] for name in slowest},
    }


def cli() -> dict[str, object]:
    """Wall time of ``python -m engine`` commands (median of 5 each)."""

    def timed(*argv: str) -> float:
        runs = []
        for _ in range(5):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "engine", *argv], cwd=ROOT, check=False,
                           capture_output=True)  # fmt: skip
            runs.append(time.perf_counter() - started)
        return statistics.median(runs)

    return {
        "seconds": timed("--help"),
        "bad_argument_s": timed("no-such-command"),
        "example_s": timed("example"),
        "policies_s": timed("policies"),
    }


def compare_gavel() -> dict[str, object]:
    """Our in-process simulation of Gavel's traces against Gavel's recorded wall times: the
    median speed-up over the 23 (trace, policy) pairs, and apart for Gavel's FIFOs and for its
    LP policies (max-min fairness, finish-time fairness, min total duration). The per-pair
    table: ``benchmarks/bench_fidelity_gavel.py``."""
    from benchmarks.bench_fidelity_gavel import table

    frame = table(None)
    frame["speedup"] = frame["gavel_wall_s"] / frame["our_wall_s"]
    lp = frame["policy"].str.contains("fairness|duration")
    return {
        "seconds": float(frame["speedup"].median()),
        "pairs": len(frame),
        "fifo_median_x": float(frame.loc[~lp, "speedup"].median()),
        "lp_median_x": float(frame.loc[lp, "speedup"].median()),
        "min_x": float(frame["speedup"].min()),
        "our_wall_total_s": float(frame["our_wall_s"].sum()),
    }


def sample(policy: str, congested: bool) -> dict[str, object]:
    """One seed policy on the sample (with the congestion schedule of case (d) if asked)."""
    from engine.config import CongestionEpisode, NetworkConfig, PolicySpec, ScenarioConfig
    from engine.scenario import load_scenario_trace
    from engine.simulator import simulate
    from engine.step_time.throughput import load_matrix

    episodes = (
        CongestionEpisode(0.0, 7 * DAY_S, 4.0, "cross_rack"),
        CongestionEpisode(DAY_S, 2 * DAY_S, 2.0, "inter_node"),
    )
    network = NetworkConfig(congestion=episodes if congested else ())
    config = ScenarioConfig(policies=(PolicySpec(policy),), network=network)
    matrix = load_matrix()
    jobs = load_scenario_trace(config).jobs
    started = time.perf_counter()
    result = simulate(jobs, config, config.policies[0], matrix)
    return {
        "seconds": time.perf_counter() - started,
        "decisions": result.num_decisions,
        "jct_mean_h": result.summary["jct_mean_s"] / 3600,
    }


def run_case(case: str, max_jobs: int | None) -> dict[str, object]:
    if case.startswith("full-"):
        return full(case.removeprefix("full-"), max_jobs)
    if case == "dashboard":
        return _dashboard_run(DASHBOARD_POLICIES)
    if case == "browser":
        from benchmarks.bench_browser import click_to_first_chart

        return click_to_first_chart()
    if case == "select-all":
        return select_all()
    if case == "cli":
        return cli()
    if case == "compare-gavel":
        return compare_gavel()
    if case in SAMPLE_CASES or case in CONGESTED_CASES:
        return sample(case.split("-", 1)[1], case.startswith("congested-"))
    raise SystemExit(f"unknown case {case!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case")
    parser.add_argument("--jobs", type=int)
    args = parser.parse_args()
    out = run_case(args.case, args.jobs)
    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    from engine import native

    out["native"] = native.ACTIVE  # the compiled engine core in use (engine/native.py)
    print(json.dumps(out))


if __name__ == "__main__":
    main()

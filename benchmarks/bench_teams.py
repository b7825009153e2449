"""Teams under Kueue's quotas: the cost of the quota layer, and what borrowing changes per team.

Prints, for the full Philly trace (82,247 jobs, ``shared/traces/philly/``) or its 2,000-job
sample, on the default cluster, with each job's team from the trace's ``cluster`` column (its
virtual cluster) and the default quotas (:func:`engine.quota.defaults.default_queues`: one
ClusterQueue per team in one cohort, nominal GPUs in proportion to the team's GPU-hours,
borrowing unlimited):

1. CPU time of FIFO and Tiresias LAS without queues and with the default quotas (the issue's
   bound: at most 2x);
2. with ``--finding``: per team, mean queueing delay under unlimited borrowing against a
   borrowing limit of ``--limit`` GPUs per GPU type (default 8, one node), FIFO, paired over the
   ``--seeds`` seeds (Philly's job types are drawn per seed), with the paired difference's 95%
   interval (Student's t).

Tried and reverted (commit 0d127c5): heads found lazily in Kueue's entry order, a queue's key
bounded by its first pending key. A BestEffortFIFO queue's first key is mostly a large job that
does not fit, so the bound lies well before its head and 216,000 of 340,000 heads were still
computed; FIFO with quotas took 12% more CPU (20.6-21.5 s against 18.6-19.0 s, side by side).

Compiled, 29 November (gate.py compiled, pending keys only counted where no head needs their
order, nested dicts for the wake index and usage log): FIFO with quotas 11.0-11.1 s -> 7.7-8.0 s
(2.8-2.9x its time without queues), LAS 10.1-11.8 s -> 7.5-9.0 s, side by side, two runs each.

Compiled, 29 November (one ``QueueState`` per ClusterQueue in a list, its groups as objects
held by their workloads, ``engine/quota/queue_state.py``; results identical), side by side with
the previous code, the machine under a load of 11-16: FIFO with quotas 8.0-8.8 s before and
7.7-9.0 s after (four runs each: no measurable change; 2.0-2.6 s without queues), LAS with
quotas 8.8-9.4 s and 7.5-8.6 s (two runs); plain Python 23.9 s -> 21.5 s for both (one run).
The 2x bound for FIFO is still not met. A py-spy profile (``--native``) of the compiled run with
quotas: the wrapper's ``allocate`` 58% of the simulation, Kueue's cycle 40% (heads 13%, the wake
index's park and woken 11%, reference counting and dict lookups spread over all of it).

    .venv/bin/python benchmarks/bench_teams.py                      # full trace, timings
    .venv/bin/python benchmarks/bench_teams.py --sample --finding   # 2,000 jobs, the finding
    .venv/bin/python benchmarks/bench_teams.py --trace /work/shared/traces/philly/...full_82247.csv
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.config import PolicySpec, ScenarioConfig, TraceSpec  # noqa: E402
from engine.quota.defaults import default_queues  # noqa: E402
from engine.quota.model import FlavorQuota, QueueConfig  # noqa: E402
from engine.quota.results import team_table  # noqa: E402
from engine.scenario import load_scenario_trace, run_matrix  # noqa: E402
from engine.simulator import simulate  # noqa: E402

FULL = ROOT.parent / "shared" / "traces" / "philly" / "philly_pollux_jobs_full_82247.csv"


def scenario(sample: bool, seed: int = 0, full: Path = FULL) -> ScenarioConfig:
    source = "sample:philly_2000.csv" if sample else str(full)
    return ScenarioConfig(trace=TraceSpec(source=source, team_column="cluster"), seed=seed)


def timed(config: ScenarioConfig, policy: str, queues: QueueConfig | None) -> tuple[float, object]:
    trace = load_scenario_trace(config)
    matrix = run_matrix(config, trace)
    run_config = dataclasses.replace(config, queues=queues)
    started = time.process_time()  # CPU time: the machine may be shared
    result = simulate(trace.jobs, run_config, PolicySpec(policy), matrix, record_segments=False,
                      decision_log=False)  # fmt: skip
    return time.process_time() - started, result


def capped(queues: QueueConfig, limit: int) -> QueueConfig:
    """Every ClusterQueue's borrowing limit set to ``limit`` GPUs."""
    return dataclasses.replace(queues, cluster_queues=tuple(
        dataclasses.replace(cq, flavors=tuple(
            FlavorQuota(q.flavor, q.nominal_gpus, limit, q.lending_limit_gpus)
            for q in cq.flavors))
        for cq in queues.cluster_queues))  # fmt: skip


def timings(sample: bool, full: Path) -> None:
    config = scenario(sample, full=full)
    trace = load_scenario_trace(config)
    queues = default_queues(trace.jobs, config.cluster.capacity())
    print(f"{len(trace.jobs):,} jobs, {len(queues.cluster_queues)} teams, "
          f"cluster {config.cluster.capacity()}")  # fmt: skip
    print("| policy | no queues (CPU s) | default quotas (CPU s) | ratio |")
    print("|---|---|---|---|")
    for policy in ("fifo", "las"):
        plain_s, _ = timed(config, policy, None)
        quota_s, _ = timed(config, policy, queues)
        print(f"| {policy} | {plain_s:.1f} | {quota_s:.1f} | {quota_s / plain_s:.2f} |")


def finding(sample: bool, seeds: int, limit: int, full: Path) -> None:
    rows = []
    for seed in range(seeds):
        config = scenario(sample, seed, full)
        trace = load_scenario_trace(config)
        queues = default_queues(trace.jobs, config.cluster.capacity())
        for label, variant in (("unlimited", queues), ("limited", capped(queues, limit))):
            _, result = timed(config, "fifo", variant)
            end_s = float(result.jobs["completion_s"].max())
            table = team_table(result.jobs, result.quota_usage, variant, end_s)
            table["seed"], table["borrowing"] = seed, label
            rows.append(table)
    data = pd.concat(rows)
    wide = data.pivot_table(index=["cluster_queue", "seed"], columns="borrowing",
                            values="queueing_mean_s")  # fmt: skip
    print(
        f"| team | nominal share | mean wait, unlimited (h) | borrowing <= {limit} GPUs (h) | "
        "difference (h) [95% CI] |"
    )
    print("|---|---|---|---|---|")
    used = data[data["borrowing"] == "unlimited"].groupby("cluster_queue")["gpu_h_nominal"].mean()
    for team, group in wide.groupby(level=0):
        diff = (group["limited"] - group["unlimited"]).to_numpy() / 3600
        mean = diff.mean()
        half = (
            stats.t.ppf(0.975, len(diff) - 1) * diff.std(ddof=1) / np.sqrt(len(diff))
            if len(diff) > 1
            else float("nan")
        )
        print(f"| {team} | {used[team] / used.sum():.1%} | {group['unlimited'].mean() / 3600:.2f} "
              f"| {group['limited'].mean() / 3600:.2f} | {mean:+.2f} [{mean - half:+.2f}, "
              f"{mean + half:+.2f}] |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", action="store_true", help="the 2,000-job sample")
    parser.add_argument("--finding", action="store_true", help="borrowing: per-team waits")
    parser.add_argument("--trace", type=Path, default=FULL, help="the full Philly trace's path")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--limit", type=int, default=8, help="borrowing limit (GPUs per type)")
    args = parser.parse_args()
    if args.finding:
        finding(args.sample, args.seeds, args.limit, args.trace)
    else:
        timings(args.sample, args.trace)


if __name__ == "__main__":
    main()

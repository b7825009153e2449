"""Prints each registered policy's simulation time on the dashboard's default scenario (a
benchmark, not a test): the 2,000-job Philly sample on the default 512-GPU cluster, each policy in
its own process, as "Select all" runs them (issue 11: the sum must come down to about 50 s so
that two parallel processes answer in < 30 s).

Columns: wall and CPU seconds of ``simulate`` (CPU time is the steadier figure on a shared
machine), decisions, wall seconds inside the policy, mean JCT (s) and makespan (s).

    .venv/bin/python benchmarks/bench_select_all.py                      # every policy
    .venv/bin/python benchmarks/bench_select_all.py hare_hlas sampling_placement
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def child(policy: str) -> None:
    from engine.config import PolicySpec, ScenarioConfig
    from engine.scenario import load_scenario_trace
    from engine.simulator import simulate
    from engine.step_time.throughput import load_matrix

    config = ScenarioConfig(policies=(PolicySpec(policy),))
    matrix = load_matrix()
    jobs = load_scenario_trace(config).jobs
    wall, cpu = time.perf_counter(), time.process_time()
    result = simulate(jobs, config, config.policies[0], matrix)
    figures = {
        "wall_s": time.perf_counter() - wall,
        "cpu_s": time.process_time() - cpu,
        "decisions": result.num_decisions,
        "policy_s": result.decision_time_s,
        "jct_mean_s": result.summary["jct_mean_s"],
        "makespan_s": result.summary["makespan_s"],
    }
    print(json.dumps(figures))


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2])
        return
    from engine.policies.base import list_policies

    total_wall = total_cpu = 0.0
    for policy in sys.argv[1:] or list_policies():
        run = subprocess.run(
            [sys.executable, __file__, "--child", policy], capture_output=True, text=True
        )
        if run.returncode:
            print(f"{policy:34s} failed: {run.stderr.strip().splitlines()[-1:]}")
            continue
        f = json.loads(run.stdout.strip().splitlines()[-1])
        total_wall, total_cpu = total_wall + f["wall_s"], total_cpu + f["cpu_s"]
        print(
            f"{policy:34s} wall {f['wall_s']:7.2f} s  cpu {f['cpu_s']:7.2f} s  "
            f"decisions {f['decisions']:6d}  in policy {f['policy_s']:7.2f} s  "
            f"mean JCT {f['jct_mean_s']:9.1f} s  makespan {f['makespan_s']:11.1f} s",
            flush=True,
        )
    print(f"{'total':34s} wall {total_wall:7.2f} s  cpu {total_cpu:7.2f} s")


if __name__ == "__main__":
    main()

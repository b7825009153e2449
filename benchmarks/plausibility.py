"""Prints how physically plausible each policy's job times are on the default scenario.

Issue "Numbers a planner can trust": on the default scenario (the 2,000-job Philly sample on
the default 512-GPU cluster, ``python -m engine example``) no job of any registered policy may
finish in under 1/16 of its isolated time (``ftf_rho < 0.0625``), and HadarE's mean-JCT
advantage over Gavel max-min stays within the HadarE paper's strongest claim (80% shorter, 5x).
Per policy: min ftf_rho, jobs under 1/16, jobs done in under 5 s, mean JCT, GPU-hours used and
the mean of GPUs held per requested GPU. Each policy runs in a fresh subprocess.

    .venv/bin/python benchmarks/plausibility.py                 # every registered policy
    .venv/bin/python benchmarks/plausibility.py --policy hadare --policy doubling
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
FAST_RHO = 1 / 16
BASELINE, ELASTIC = "gavel_maxmin", "hadare"


def measure(policy: str) -> dict[str, object]:
    """One policy on the default scenario: the figures of the module docstring."""
    from engine.config import PolicySpec, ScenarioConfig
    from engine.scenario import load_scenario_trace, scenario_matrix
    from engine.simulator import simulate

    config = ScenarioConfig(policies=(PolicySpec(policy),))
    matrix = scenario_matrix(config)
    jobs = load_scenario_trace(config).jobs
    started = time.perf_counter()
    result = simulate(jobs, config, config.policies[0], matrix)
    table = result.jobs
    held = table.get("gpus_held_per_requested")
    return {
        "policy": policy,
        "min_ftf_rho": float(table["ftf_rho"].min()),
        "jobs_under_1_16": int((table["ftf_rho"] < FAST_RHO).sum()),
        "jobs_under_5s": int((table["jct_s"] < 5.0).sum()),
        "jct_mean_h": result.summary["jct_mean_s"] / 3600,
        "gpu_hours": result.summary.get(
            "gpu_hours_used", float(table["attained_service_gpu_s"].sum()) / 3600
        ),
        "held_per_requested_mean": float(held.mean()) if held is not None else float("nan"),
        "simulate_s": time.perf_counter() - started,
    }


def main() -> None:
    from engine.policies import list_policies

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", action="append", help="policy name (repeatable)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.policy[0])))
        return
    rows = []
    print(
        f"{'policy':32} {'min rho':>8} {'<1/16':>6} {'<5s':>5} {'JCT h':>8} {'GPU-h':>9} "
        f"{'held/req':>8} {'sim s':>6}"
    )
    for policy in args.policy or list_policies():
        command = [sys.executable, __file__, "--child", "--policy", policy]
        out = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
        row = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(
            f"{policy:32} {row['min_ftf_rho']:8.3f} {row['jobs_under_1_16']:6d} "
            f"{row['jobs_under_5s']:5d} {row['jct_mean_h']:8.2f} {row['gpu_hours']:9.0f} "
            f"{row['held_per_requested_mean']:8.2f} {row['simulate_s']:6.1f}",
            flush=True,
        )
    by_policy = {row["policy"]: row for row in rows}
    if BASELINE in by_policy and ELASTIC in by_policy:
        ratio = by_policy[BASELINE]["jct_mean_h"] / by_policy[ELASTIC]["jct_mean_h"]
        print(f"mean JCT {BASELINE} / {ELASTIC}: {ratio:.2f}x (at most 5x)")


if __name__ == "__main__":
    main()

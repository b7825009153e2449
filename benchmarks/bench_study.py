"""Prints the wall time of a 120-run study on each executor, and of the capacity planner
(a benchmark, not a test; issue 10 "Compare what-ifs").

Cases:
  (a) sweep: the 2,000-job Philly sample (``sample:philly_2000.csv``), 6 GPU-mix variants x
      4 policies (fifo, las, srtf, gavel_maxmin) x 5 seeds = 120 runs, summary recording, no
      result store; serially, on the local process pool and on a local Ray, each in a fresh
      subprocess. Targets: pool and Ray >= 1.8x faster than serial on 2 cores, each < 3 min.
      The runs tables of the three executors must be identical (their SHA-256 is printed).
  (b) plan: the same sample, FIFO, candidates v100 / p100 / k80 (8-GPU nodes, at most 32 each,
      Gavel's GCP prices), ``examples/plan.json`` with mean JCT at most 4 h (14,400 s; issue 23)
      over 3 seeds (up to 10 near the target), on the pool with 2 workers, no run store.
      Prints the wall time, the simulations, the chosen mix and today's cluster. Target < 60 s
      on 2 cores.

    .venv/bin/python benchmarks/bench_study.py                 # all cases
    .venv/bin/python benchmarks/bench_study.py --case serial   # one of serial, pool, ray, plan
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
POLICIES = ("fifo", "las", "srtf", "gavel_maxmin")
SEEDS = (0, 1, 2, 3, 4)


def _groups(v100: int, p100: int, k80: int) -> list[dict[str, object]]:
    """8-GPU nodes, one rack per type (types with 0 nodes left out)."""
    counts = {"v100": v100, "p100": p100, "k80": k80}
    return [
        {"worker_type": wt, "nodes": n, "gpus_per_node": 8, "rack": f"rack-{wt}"}
        for wt, n in counts.items()
        if n
    ]


MIXES = {  # name -> (v100, p100, k80) nodes; the first is the default cluster's 512 GPUs
    "today 24/24/16": (24, 24, 16),
    "K80s -> V100s": (40, 24, 0),
    "K80s -> P100s": (24, 40, 0),
    "all V100 (48)": (48, 0, 0),
    "+8 V100 nodes": (32, 24, 16),
    "-8 P100 nodes": (24, 16, 16),
}


def sweep_study() -> object:
    from engine.config import PolicySpec, ScenarioConfig
    from engine.study import Study, Variant

    base = ScenarioConfig(policies=tuple(PolicySpec(p) for p in POLICIES))
    variants = tuple(
        Variant(name, {"cluster.node_groups": _groups(*mix)}) for name, mix in MIXES.items()
    )
    return Study(base, variants, SEEDS)


def run_sweep(executor: str) -> dict[str, object]:
    from engine.study import run_study

    study = sweep_study()
    start = time.perf_counter()
    result = run_study(study, executor=executor, workers=2)  # type: ignore[arg-type]
    wall_s = time.perf_counter() - start
    if executor == "ray":
        import ray

        ray.shutdown()
    digest = hashlib.sha256(result.runs.to_csv().encode()).hexdigest()[:16]
    return {"case": executor, "runs": len(result.runs), "wall_s": wall_s, "runs_sha256": digest}


def run_plan() -> dict[str, object]:
    from engine.study.planner import PlanSpec, plan

    data = json.loads((ROOT / "examples" / "plan.json").read_text())
    spec = PlanSpec.from_dict({**data, "target_value": 14_400})
    start = time.perf_counter()
    result = plan(spec, executor="pool", workers=2)
    wall_s = time.perf_counter() - start
    chosen = result.chosen_row or {}
    return {
        "case": "plan", "wall_s": round(wall_s, 1), "simulations": result.num_simulations,
        "clusters": len(result.tried), "chosen": chosen.get("mix"),
        "chosen_usd_per_h": chosen.get("cost_usd_per_h"),
        "today_usd_per_h": result.today.get("cost_usd_per_h"),
        "today_meets": bool(result.today.get("meets")),
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=("serial", "pool", "ray", "plan"))
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        out = run_plan() if args.case == "plan" else run_sweep(args.case)
        print(json.dumps(out))
        return
    cases = [args.case] if args.case else ["serial", "pool", "ray", "plan"]
    results = {}
    for case in cases:
        proc = subprocess.run(
            [sys.executable, __file__, "--case", case, "--child"],
            capture_output=True, text=True, check=True, cwd=ROOT,
        )  # fmt: skip
        results[case] = json.loads(proc.stdout.strip().splitlines()[-1])
        print(json.dumps(results[case]), flush=True)
    if "serial" in results:
        for case in ("pool", "ray"):
            if case in results:
                speedup = results["serial"]["wall_s"] / results[case]["wall_s"]
                same = results[case]["runs_sha256"] == results["serial"]["runs_sha256"]
                print(f"{case}: {speedup:.2f}x over serial; runs identical to serial: {same}")


if __name__ == "__main__":
    main()

"""Prints the capacity planner's wall time on the 2026 cluster scenario (issue 24; target
< 60 s on 2 cores).

The base is :func:`engine.presets.cluster_2026_scenario` (LLM-era mix of 200 jobs on the
``mlperf`` matrix) with one policy; the candidates are H100-SXM, H200-SXM, B200 and MI300X, nodes
of 8, at most 64 nodes each. H100 and H200 carry their cited price (engine.study.cost); B200 and
MI300X have none we could cite, so this script takes the user's number (``--b200-price``,
``--mi300x-price``; the defaults are illustrative inputs, not a source). Each run starts from an
empty results directory, so every simulation is counted.

``--max-spares N`` turns failures on (the defaults of :class:`engine.config.FailureConfig`:
node MTBF 6,335 h from Llama 3, Dubey et al. 2024; ``--mtbf-scale`` multiplies it) and lets the
planner hold 0..N spare nodes per GPU type (issue 27); the output adds today's and the chosen
mix's goodput and the chosen spares.

    .venv/bin/python benchmarks/bench_plan_2026.py
    .venv/bin/python benchmarks/bench_plan_2026.py --policy las --target-h 6 --workers 2
    .venv/bin/python benchmarks/bench_plan_2026.py --max-spares 2 --mtbf-scale 0.1
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    from engine.config import FailureConfig, PolicySpec
    from engine.presets import cluster_2026_scenario
    from engine.study.cost import prices_with_defaults
    from engine.study.planner import Candidate, PlanSpec, plan

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", default="fifo")
    parser.add_argument("--target-h", type=float, default=8.0, help="mean JCT target (h)")
    parser.add_argument("--b200-price", type=float, default=8.0, help="user's USD/GPU-h")
    parser.add_argument("--mi300x-price", type=float, default=4.0, help="user's USD/GPU-h")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-spares", type=int, default=None,
                        help="failures on; search 0..N spare nodes per GPU type")  # fmt: skip
    parser.add_argument("--mtbf-scale", type=float, default=1.0,
                        help="with --max-spares: multiply the node MTBF")  # fmt: skip
    args = parser.parse_args()
    prices = {**prices_with_defaults(None), "B200": args.b200_price, "MI300X": args.mi300x_price}
    base = dataclasses.replace(cluster_2026_scenario(), policies=(PolicySpec(args.policy),))
    if args.max_spares is not None:
        mtbf_h = FailureConfig().node_mtbf_h * args.mtbf_scale
        base = dataclasses.replace(base, failures=FailureConfig(enabled=True, node_mtbf_h=mtbf_h))
    candidates = tuple(
        Candidate(wt, prices[wt], 64, 8) for wt in ("H100-SXM", "H200-SXM", "B200", "MI300X")
    )
    spec = PlanSpec(base, candidates, "jct_mean_s", args.target_h * 3600, tuple(range(args.seeds)),
                    max_spares=args.max_spares or 0)  # fmt: skip
    with tempfile.TemporaryDirectory() as results_dir:
        start = time.perf_counter()
        result = plan(spec, executor="pool", workers=args.workers, results_dir=results_dir)
        wall_s = time.perf_counter() - start
    chosen = result.chosen.capacity() if result.chosen is not None else None
    row = result.chosen_row or {}
    extra = {} if args.max_spares is None else {
        "node_mtbf_h": round(base.failures.node_mtbf_h), "max_spares": args.max_spares,
        "chosen_spares": {k: v for k, v in row.items() if str(k).startswith("spares:")},
        "chosen_mix": row.get("mix"),
        "goodput_today": result.today.get("goodput"), "goodput_chosen": row.get("goodput"),
    }  # fmt: skip
    print(json.dumps({
        "case": "plan-2026", "policy": args.policy, "target_jct_mean_h": args.target_h,
        "wall_s": round(wall_s, 1), "simulations": result.num_simulations,
        "mixes": len(result.tried), "chosen_gpus": chosen, **extra,
        "prices_usd_per_gpu_h": {c.worker_type: c.price_usd_per_gpu_h for c in candidates},
        "explanation": result.explanation[-2:],
    }, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()

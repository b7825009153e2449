"""Prints goodput and p95 JCT with 0, 2 and 4 spare nodes per GPU type under published failure
rates (issue 27 "Failures, checkpoints and spare nodes"; a benchmark that prints, not a test).

Scenario: the default one (the 2,000-job Philly sample on 512 GPUs: 24 V100, 24 P100 and 16 K80
nodes of 8 GPUs), FIFO and Tiresias LAS, failures on with the defaults of
:class:`engine.config.FailureConfig`: node MTBF 6,335 h (Llama 3's 419 interruptions in 54 days
on 2,048 nodes, Dubey et al. 2024, sec. 3.3.4), exponential, 24 h repair, spare swap 600 s,
checkpoint cost 60 s at Young's interval per placement. The spares are taken out of the GPU mix
(the last nodes of each type), so they cost capacity when nothing fails. ``--mtbf-scale 0.1``
repeats it at ten times the failure rate (older or less healthy fleets) as a sensitivity.

Each row: mean over the seeds with its 95% interval (Student's t; goodput clipped to [0, 1]),
and the paired difference to 0 spares on the same seeds (the same jobs; each node's times
between failures come from its own stream, so the nodes both variants schedule on fail at the
same times until a spare or a repair shifts them).

    .venv/bin/python benchmarks/bench_failures.py                    # seeds 0-4, published rate
    .venv/bin/python benchmarks/bench_failures.py --seeds 10 --mtbf-scale 0.1
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SPARES = (0, 2, 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1 (default 5)")
    parser.add_argument(
        "--mtbf-scale", type=float, default=1.0,
        help="multiply the node MTBF (0.1 = ten times the failure rate)",
    )  # fmt: skip
    parser.add_argument("--executor", default="pool", choices=("pool", "serial"))
    args = parser.parse_args()

    from engine.config import LLAMA3_NODE_MTBF_H, FailureConfig, PolicySpec, ScenarioConfig
    from engine.study import Study, run_study
    from engine.study.study import grid

    mtbf_h = LLAMA3_NODE_MTBF_H * args.mtbf_scale
    base = ScenarioConfig(
        policies=(PolicySpec("fifo"), PolicySpec("las")),
        failures=FailureConfig(enabled=True, node_mtbf_h=mtbf_h),
    )
    study = Study(base, grid(base, {"failures.spares_per_type": list(SPARES)}),
                  tuple(range(args.seeds)))  # fmt: skip
    start = time.perf_counter()
    result = run_study(study, executor=args.executor, workers=2)  # type: ignore[arg-type]
    wall_s = time.perf_counter() - start
    print(f"node MTBF {mtbf_h:,.0f} h, seeds 0-{args.seeds - 1}, {len(result.runs)} runs "
          f"in {wall_s:,.0f} s; checkpoint cost {base.failures.checkpoint_cost_s:.0f} s at "
          "Young's interval; repair 24 h; swap 600 s")  # fmt: skip
    runs = result.runs
    baseline = result.study.baseline_name
    goodput = _table(result, "goodput", 1.0, clip=True)
    p95 = _table(result, "jct_p95_s", 3600.0)
    paired = result.paired("jct_p95_s", baseline).set_index(["variant", "policy"])
    header = (f"{'spares/type':>11} {'policy':<13} {'goodput (95% CI)':>24} "
              f"{'p95 JCT h (95% CI)':>24} {'p95 vs 0 spares h (95% CI)':>28} "
              f"{'node failures':>13} {'jobs stopped':>12} {'lost GPU-h':>10}")  # fmt: skip
    print(header)
    for variant in result.variants():
        spares = runs.loc[runs["variant"] == variant, "failures.spares_per_type"].iloc[0]
        for policy in dict.fromkeys(runs["policy"]):
            mine = runs[(runs["variant"] == variant) & (runs["policy"] == policy)]
            diff = "(baseline)"
            if variant != baseline:
                d = paired.loc[(variant, policy)] / 3600
                diff = f"{d.mean_diff:+.2f} ({d.ci_low:+.2f}, {d.ci_high:+.2f})"
            print(f"{spares:>11} {policy:<13} {goodput[variant, policy]:>24} "
                  f"{p95[variant, policy]:>24} {diff:>28} "
                  f"{mine['node_failures'].mean():>13.1f} "
                  f"{mine['job_failures_total'].mean():>12.1f} "
                  f"{mine['gpu_hours_lost_failures'].mean():>10.1f}")  # fmt: skip


def _table(result: object, metric: str, scale: float, clip: bool = False) -> dict:
    stats = result.stats(metric)  # type: ignore[attr-defined]
    out = {}
    for row in stats.itertuples():
        low, high = row.ci_low / scale, row.ci_high / scale
        if clip:
            low, high = max(0.0, low), min(1.0, high)
        digits = 4 if clip else 2
        out[row.variant, row.policy] = (
            f"{row.mean / scale:.{digits}f} ({low:.{digits}f}, {high:.{digits}f})"
        )
    return out


if __name__ == "__main__":
    main()

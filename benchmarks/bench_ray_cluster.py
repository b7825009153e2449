"""The capacity plan on a two-node Ray cluster against the process pool (a benchmark, issue 37).

Starts Ray's own multi-node test cluster on this machine (``ray.cluster_utils.Cluster``: a head
node and one more node, 1 CPU each, each its own raylet and object store), runs the planner
(``examples/plan.json``: the Philly sample, FIFO, cheapest v100/p100/k80 mix with mean JCT at
most 20,000 s over 3 seeds) on it with ``executor="ray"`` and the cluster's address, as
``python -m engine plan ... --ray ADDRESS`` does, then on the local process pool with 2
workers, and prints both answers, their wall times and the cluster's nodes. Each simulation
is a Ray task of 1 CPU, so two at a time run one on each node. The chosen mix must be the
same: the planner's answer does not depend on the executor.

    .venv/bin/python benchmarks/bench_ray_cluster.py
    .venv/bin/python benchmarks/bench_ray_cluster.py --target 14400    # another target (s)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def plan_spec(target_s: float | None) -> Any:
    from engine.study.planner import PlanSpec

    data = json.loads((ROOT / "examples" / "plan.json").read_text(encoding="utf-8"))
    if target_s is not None:
        data["target_value"] = target_s
    return PlanSpec.from_dict(data)


def answer(result: Any, wall_s: float) -> dict[str, object]:
    """What a plan answered: the chosen mix and its cost, the simulations it took, its time."""
    chosen = result.chosen_row or {}
    return {
        "chosen": chosen.get("mix"),
        "usd_per_h": chosen.get("cost_usd_per_h"),
        "simulations": result.num_simulations,
        "wall_s": round(wall_s, 1),
    }


def on_ray_cluster(target_s: float | None) -> tuple[dict[str, object], list[str]]:
    """The plan on a fresh two-node cluster; its answer and the node of each task run there."""
    import ray
    from ray.cluster_utils import Cluster

    from engine.study.planner import plan

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False)
        started = time.perf_counter()
        result = plan(plan_spec(target_s), executor="ray", ray_address=cluster.address)
        out = answer(result, time.perf_counter() - started)
        nodes = sorted(n["NodeManagerAddress"] + ":" + str(n["NodeManagerPort"])
                       for n in ray.nodes() if n["Alive"])  # fmt: skip
        out["cluster_cpus"] = ray.cluster_resources().get("CPU")
        return out, nodes
    finally:
        ray.shutdown()
        cluster.shutdown()


def on_pool(target_s: float | None) -> dict[str, object]:
    from engine.study.planner import plan

    started = time.perf_counter()
    result = plan(plan_spec(target_s), executor="pool", workers=2)
    return answer(result, time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=float, help="target mean JCT (s); default: the file's")
    args = parser.parse_args()
    ray_answer, nodes = on_ray_cluster(args.target)
    print(f"Ray cluster ({len(nodes)} nodes: {', '.join(nodes)}): {json.dumps(ray_answer)}")
    pool_answer = on_pool(args.target)
    print(f"process pool (2 workers): {json.dumps(pool_answer)}")
    same = ray_answer["chosen"] == pool_answer["chosen"]
    print(f"same chosen mix: {same}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()

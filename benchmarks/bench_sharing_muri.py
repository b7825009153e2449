"""Prints what Muri's interleaving model (engine/sharing) makes of the Muri testbed trace's
jobs (a benchmark, not a test).

1. For every pair of the trace's models at 8 GPUs (287 of its 400 jobs have 8): each job's
   slowdown in the pair (group iteration time / its own) and the pair's speed-up over running
   the two one after the other ((own a + own b) / group). Time slicing at packing efficiency
   1.0 gives a speed-up of exactly 1.0 by its rule.
2. Muri's grouping (k = 4, 64 GPUs) of the trace's first 8-GPU jobs taken as candidates: group
   sizes, mean utilisation, and the wall time of the matching for growing candidate counts.
3. With ``--philly``: the full Philly trace (82,247 jobs, no stage times, so time slicing)
   under packing LAS with k = 2 against Tiresias LAS without sharing, CPU seconds of
   simulate() each and their ratio (issue 35's bar: within 3x). Plain Python unless the
   compiled modules are built and current (``ENGINE_NATIVE=0`` to be explicit).

    .venv/bin/python benchmarks/bench_sharing_muri.py [--philly]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.config import PolicySpec, ScenarioConfig, TraceSpec  # noqa: E402
from engine.scenario import load_scenario_trace  # noqa: E402
from engine.sharing import Candidate, group_iteration_time_s, muri_groups, utilisation  # noqa: E402
from engine.sharing.stages import stage_times_ms  # noqa: E402
from engine.simulator import simulate  # noqa: E402
from engine.step_time.throughput import load_matrix  # noqa: E402

TRACE = Path("/work/shared/fidelity/muri/cluster_trace.csv")
FULL_PHILLY = Path("/work/shared/traces/philly/philly_pollux_jobs_full_82247.csv")
GANG_GPUS = 8
CLUSTER_GPUS = 64
K = 4  # Muri's run script (cluster_exp/run.sh, packing_nums)


def pairs_table(trace: pd.DataFrame) -> pd.DataFrame:
    """Speed-up of each pair of models at GANG_GPUS (rows: model a, columns: model b)."""
    rows = trace[trace["num_gpu"] == GANG_GPUS].drop_duplicates("model_name")
    stages = stage_times_ms(rows, TRACE.name)
    by_model = dict(zip(rows["model_name"], (stages[str(j)] for j in rows["job_id"]), strict=True))
    table: dict[str, dict[str, str]] = {}
    for a, sa in by_model.items():
        for b, sb in by_model.items():
            group_s = group_iteration_time_s([sa, sb])
            gain = (sa.iteration_s + sb.iteration_s) / group_s
            table.setdefault(a, {})[b] = (
                f"{gain:.2f} ({group_s / sa.iteration_s:.2f}/{group_s / sb.iteration_s:.2f})"
            )
    return pd.DataFrame(table).T


def grouping(trace: pd.DataFrame, count: int) -> tuple[list[int], float, float]:
    """Group sizes, mean utilisation and wall time (s) of Muri's grouping of ``count`` jobs."""
    rows = trace[trace["num_gpu"] == GANG_GPUS].head(count)
    stages = stage_times_ms(rows, TRACE.name)
    jobs = [Candidate(int(job_id), GANG_GPUS, s) for job_id, s in stages.items()]
    started = time.perf_counter()
    groups = muri_groups({GANG_GPUS: jobs}, CLUSTER_GPUS, K)[GANG_GPUS]
    wall_s = time.perf_counter() - started
    used = sum(utilisation([c.stages for c in g]) for g in groups) / len(groups)
    return sorted((len(g) for g in groups), reverse=True), used, wall_s


def philly_cpu_s(spec: PolicySpec) -> tuple[float, float, int]:
    """CPU seconds of simulate() on the full Philly trace under ``spec``, its mean JCT (h) and
    its decisions."""
    config = ScenarioConfig(trace=TraceSpec(source=str(FULL_PHILLY)), policies=(spec,))
    jobs = load_scenario_trace(config).jobs
    started = time.process_time()
    result = simulate(jobs, config, spec, load_matrix())
    return time.process_time() - started, result.summary["jct_mean_s"] / 3600, result.num_decisions


def philly_packing() -> None:
    """Prints packing LAS (k = 2) against LAS on the full Philly trace."""
    cpu: dict[str, float] = {}
    for spec in (PolicySpec("las"), PolicySpec("las_packing", {"k": 2})):
        cpu_s, jct_h, decisions = philly_cpu_s(spec)
        cpu[spec.name] = cpu_s
        print(f"full Philly, {spec.name} {spec.params}: {cpu_s:.1f} s CPU, mean JCT "
              f"{jct_h:.1f} h, {decisions} decisions")  # fmt: skip
    print(f"packing LAS k=2 / LAS: {cpu['las_packing'] / cpu['las']:.2f}x (bar: 3x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--philly", action="store_true", help="also the full Philly trace row")
    if parser.parse_args().philly:
        philly_packing()
    trace = pd.read_csv(TRACE)
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        print(f"pair speed-up over one after the other (slowdown a/b), {GANG_GPUS} GPUs each:")
        print(pairs_table(trace).to_string())
    for count in (8, 16, 32, 64):
        sizes, used, wall_s = grouping(trace, count)
        print(
            f"{count} candidates on {CLUSTER_GPUS} GPUs, k={K}: {len(sizes)} groups, sizes "
            f"{sizes}, mean utilisation {used:.2f}, matching {wall_s * 1000:.0f} ms"
        )


if __name__ == "__main__":
    main()

"""Prints issue 37's table: the engine at hyperscale (a benchmark, not a test).

Each row tiles the Philly sample (``sample_traces/philly_2000.csv``, 2,000 jobs over 3 days)
``jobs / 2,000`` times over the same days, tile k shifted by ``7 k mod 3,600`` seconds (so
arrivals interleave and the load per GPU stays the sample's), on the default 512-GPU mix
(192 V100, 192 P100, 128 K80 in 4 racks) with every node group's node count multiplied by
``gpus / 512`` [R: our tiling, so that the cluster grows in proportion with the jobs].

Each (row, policy) runs in a fresh interpreter: ``engine.scenario.run`` on a summary spec (KPIs
and the jobs table, as a study's runs; ``--record full`` adds the segments table, as the
dashboard's Run), timed from the trace's parse to the result. Printed:
wall time, CPU time of that process, microseconds of each per job (CPU is the steadier figure
on a shared machine), and the peak resident memory of the process
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``, imports included; tracemalloc is too slow at
this scale). A policy that passes ``--limit-s`` on a row is not run on
larger rows (Gavel's LP policies: the issue's 10-minute bound).

    .venv/bin/python benchmarks/bench_scale.py                                  # every row
    .venv/bin/python benchmarks/bench_scale.py --jobs 20000,80000 --policies fifo,las
    .venv/bin/python benchmarks/bench_scale.py --jobs 1000000 --gpus 25600 --policies fifo
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SAMPLE = ROOT / "sample_traces" / "philly_2000.csv"
ROWS = ((20_000, 1_280), (80_000, 5_120), (320_000, 20_480), (1_000_000, 64_000),
        (1_000_000, 25_600))  # fmt: skip
DEFAULT_GPUS = 512
SHIFT_STEP_S = 7  # tile k starts 7 k mod 3,600 s late: coprime with 3,600, so no two tiles of
SHIFT_WRAP_S = 3600  # the first 3,600 coincide, and all stay within the sample's first hour


def tiled_trace(jobs: int, folder: Path) -> Path:
    """The sample tiled to ``jobs`` rows (a multiple of its 2,000) as a Philly CSV in ``folder``.

    Raises:
        SystemExit: ``jobs`` is not a positive multiple of the sample's length.
    """
    import pandas as pd

    sample = pd.read_csv(SAMPLE)
    tiles, rest = divmod(jobs, len(sample))
    if tiles < 1 or rest:
        raise SystemExit(f"--jobs {jobs}: must be a positive multiple of {len(sample)}")
    path = folder / f"philly_tiled_{jobs}.csv"
    if not path.exists():
        start = pd.to_datetime(sample["timestamp"])
        parts = []
        for k in range(tiles):
            part = sample.copy()
            shift = pd.Timedelta(seconds=SHIFT_STEP_S * k % SHIFT_WRAP_S)
            part["timestamp"] = (start + shift).dt.strftime("%Y-%m-%d %H:%M:%S")
            parts.append(part)
        pd.concat(parts, ignore_index=True).to_csv(path, index=False)
    return path


def scaled_cluster(gpus: int):  # type: ignore[no-untyped-def]
    """The default mix with each group's nodes multiplied by ``gpus / 512``.

    Raises:
        SystemExit: the factor does not give whole nodes in every group.
    """
    import dataclasses

    from engine.config import ClusterSpec
    from engine.config.cluster import default_cluster

    groups = default_cluster().node_groups
    scaled = [g.nodes * gpus / DEFAULT_GPUS for g in groups]
    if any(n != int(n) or n < 1 for n in scaled):
        raise SystemExit(f"--gpus {gpus}: must give whole nodes (a multiple of 128 GPUs from 256)")
    return ClusterSpec(
        tuple(dataclasses.replace(g, nodes=int(n)) for g, n in zip(groups, scaled, strict=True))
    )


def child(trace: Path, gpus: int, policy: str, record: str) -> dict[str, object]:
    """One run in this process; its figures (the parent prints them)."""
    from engine import event_loop, native
    from engine.config import PolicySpec, ScenarioConfig, TraceSpec
    from engine.scenario import run
    from engine.study.spec import RunSpec

    config = ScenarioConfig(
        trace=TraceSpec(source=str(trace)), cluster=scaled_cluster(gpus),
        policies=(PolicySpec(policy),),
    )  # fmt: skip
    spec = RunSpec(config, policy, config.effective_trace_seed, config.seed, "", record)
    started, cpu_started = time.perf_counter(), time.process_time()
    result = run(spec)
    wall_s = time.perf_counter() - started
    jobs = len(result.simulation.jobs)
    return {
        "wall_s": wall_s,
        "cpu_s": time.process_time() - cpu_started,
        "us_per_job": 1e6 * wall_s / jobs,
        "cpu_us_per_job": 1e6 * (time.process_time() - cpu_started) / jobs,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,  # KiB on Linux
        "jobs": jobs,
        "gpus": config.cluster.total_gpus,
        "jct_mean_h": result.simulation.summary["jct_mean_s"] / 3600,
        "native": native.ACTIVE and event_loop.__file__.endswith(".so"),
    }


def run_row(trace: Path, gpus: int, policy: str, record: str, limit_s: float) -> dict[str, object]:
    """:func:`child` in a fresh interpreter, stopped after ``limit_s`` seconds."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(trace), str(gpus),
               policy, record]  # fmt: skip
    try:
        proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=limit_s)
    except subprocess.TimeoutExpired:
        return {"error": f"over {limit_s:.0f} s"}
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", help="comma-separated job counts of the rows to run")
    parser.add_argument("--gpus", help="comma-separated cluster sizes: with --jobs, every pair")
    parser.add_argument("--policies", default="fifo,las,gavel_maxmin")
    parser.add_argument("--limit-s", type=float, default=600.0, help="wall time bound per run")
    parser.add_argument("--traces", type=Path, help="folder for the tiled traces (default: tmp)")
    full = "full: the segments (Gantt) table too, as the dashboard's Run"
    parser.add_argument("--record", choices=("summary", "full"), default="summary", help=full)
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(Path(args.child[0]), int(args.child[1]), *args.child[2:])))
        return
    pick = lambda text: [int(v) for v in text.split(",")] if text else []  # noqa: E731
    jobs, gpus = pick(args.jobs), pick(args.gpus)
    rows = [(j, g) for j in jobs for g in gpus] or [r for r in ROWS if not jobs or r[0] in jobs]
    folder = args.traces or Path(tempfile.mkdtemp(prefix="bench_scale_"))
    folder.mkdir(parents=True, exist_ok=True)
    head = f"{'jobs':>10} {'GPUs':>7} {'policy':<14}{'wall s':>9}{'CPU s':>9}{'us/job':>8}"
    print(head + f"{'CPU us/job':>11}{'peak MiB':>10}{'JCT mean h':>12}  compiled", flush=True)
    over: set[str] = set()  # policies past the bound on a smaller row
    for num_jobs, num_gpus in rows:
        trace = tiled_trace(num_jobs, folder)
        for policy in args.policies.split(","):
            head = f"{num_jobs:>10,} {num_gpus:>7,} {policy:<14}"
            r = {"error": "over the bound on a smaller row"} if policy in over else None
            r = r or run_row(trace, num_gpus, policy, args.record, args.limit_s)
            print(head + _figures(r), flush=True)
            if "error" in r:
                over.add(policy)


def _figures(r: dict[str, object]) -> str:
    if "error" in r:
        return f"  not run: {r['error']}"
    compiled = "yes" if r["native"] else "NO (plain Python)"
    return (
        f"{r['wall_s']:>9.1f}{r['cpu_s']:>9.1f}{r['us_per_job']:>8.0f}{r['cpu_us_per_job']:>11.0f}"
        f"{r['peak_mib']:>10,.0f}{r['jct_mean_h']:>12.2f}  {compiled}"
    )


if __name__ == "__main__":
    main()

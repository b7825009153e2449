"""Prints the rows of issue 11's speed table (a benchmark, not a test): median of N runs.

Rows (``--case``; each run of each case is a fresh subprocess, so memory and imports are its own):

  full-fifo, full-las, full-gavel_maxmin
      the full Philly trace (82,247 jobs, shared/traces/philly/) on the default 512-GPU cluster;
      the figure is ``simulate()`` alone (loading is printed beside it). Targets < 3, 10, 30 s.
  dashboard
      Run -> charts, case (b) warm: the 2,000-job sample x FIFO, SRTF, LAS, Gavel max-min, run
      as the dashboard runs them (:func:`dashboard.parallel_run.run_policies`, process pool,
      pool and plotly warmed by an earlier run), then the Results page's charts (KPI table,
      JCT CDF). ``gantt_s`` beside it: the Schedule page's Gantt, drawn when that page opens.
      Target < 2 s.
  browser
      the same in Chromium (Playwright, ``/usr/bin/chromium``) with the dashboard's three
      default policies and ``hadar`` as the fourth: a fresh server, one warm-up run, then the
      click on Run until the Results page's first chart is drawn. Target < 3 s.
  select-all
      every registered policy on the sample, as the dashboard runs them. Target < 30 s.
  cli
      ``python -m engine --help`` (and ``example``, ``policies`` beside it). Target < 0.5 s.
  compare-gavel
      our in-process simulation of the tests/data/gavel_fidelity/ traces, per (trace, policy),
      against Gavel's recorded wall time (benchmarks/bench_fidelity_gavel.py); the figure is
      the median speed-up. Target 100x (FIFO/LAS-like), 20x (LP policies).

Older cases stay selectable: ``sample-<policy>`` (one seed policy on the sample) and
``congested-<policy>`` (the network-aware ones under congestion).

    .venv/bin/python benchmarks/bench_engine.py                 # every row, median of 3
    .venv/bin/python benchmarks/bench_engine.py --case cli --quick
    .venv/bin/python benchmarks/bench_engine.py --case full-fifo --jobs 20000 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import bench_cases as cases  # noqa: E402

ROWS = {  # case -> (what, target); the figure each case prints as "seconds"
    "full-fifo": ("full Philly, FIFO, simulation", "< 3 s"),
    "full-las": ("full Philly, Tiresias LAS, simulation", "< 10 s"),
    "full-gavel_maxmin": ("full Philly, Gavel max-min (LP), simulation", "< 30 s"),
    "dashboard": ("dashboard Run->charts, sample x 4 policies (b, warm)", "< 2 s"),
    "browser": ("browser click->first chart, 3 defaults + hadar", "< 3 s"),
    "select-all": ("'Select all' policies on the sample", "< 30 s"),
    "cli": ("python -m engine --help start-up", "< 0.5 s"),
    "compare-gavel": ("Gavel traces: Gavel's wall / ours (median x)", "100x / 20x"),
}
EXTRA = [*cases.SAMPLE_CASES, *cases.CONGESTED_CASES]


def run_child(case: str, jobs: int | None) -> dict[str, object]:
    """One run of ``case`` in a fresh interpreter; its JSON line, or the error."""
    command = [sys.executable, "-m", "benchmarks.bench_cases", case]
    if jobs:
        command += ["--jobs", str(jobs)]
    proc = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1:] or [f"exit {proc.returncode}"]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=[*ROWS, *EXTRA], action="append")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case (median shown)")
    parser.add_argument("--quick", action="store_true", help="one run per case")
    parser.add_argument("--jobs", type=int, help="cut the full trace to its first N jobs")
    parser.add_argument("--compare-gavel", action="store_true", help="only the Gavel row")
    args = parser.parse_args()
    chosen = ["compare-gavel"] if args.compare_gavel else args.case or list(ROWS)
    repeat = 1 if args.quick else max(1, args.repeat)
    print(f"{'case':<56}{'median':>10}{'runs':>24}  {'target':<11}details (last run)")
    for case in chosen:
        runs = [run_child(case, args.jobs) for _ in range(repeat)]
        good = [r for r in runs if "error" not in r]
        what, target = ROWS.get(case, (case, ""))
        if not good:
            print(f"{what:<56}{'FAILED':>10}  {runs[-1]['error']}")
            continue
        figures = [float(r["seconds"]) for r in good]  # type: ignore[arg-type]
        unit = "x" if case == "compare-gavel" else " s"
        shown = ", ".join(f"{f:.2f}" for f in figures)
        details = "  ".join(
            f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
            for k, v in good[-1].items()
            if k != "seconds"
        )
        median = f"{statistics.median(figures):.2f}{unit}"
        print(f"{what:<56}{median:>10}{shown:>24}  {target:<11}{details}", flush=True)


if __name__ == "__main__":
    main()

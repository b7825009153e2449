"""Prints our replay of the Muri testbed beside the testbed and Muri's own simulator (a
benchmark, not a test).

For Tiresias' discretized LAS and SRTF on the testbed's 400-job trace (8 nodes x 8 V100,
``muri_testbed`` preset): average JCT, makespan and median JCT of each run and their gap to the
testbed, the per-job JCT correlation with the testbed, launches (first starts and relaunches),
and our wall time. The pass/fail targets live in ``tests/engine/test_fidelity_muri.py``.

    .venv/bin/python benchmarks/bench_fidelity_muri.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.engine.muri_reference import RUNS, Figures, of_log, ours, replay  # noqa: E402


def row(run: str, who: str, figures: Figures, testbed: Figures) -> dict[str, object]:
    def gap(mine: float, theirs: float) -> str:
        return f"{mine / theirs - 1:+.1%}"

    return {
        "policy": RUNS[run][0],
        "run": who,
        "avg_jct_s": f"{figures.avg_jct_s:,.0f}",
        "jct_gap": gap(figures.avg_jct_s, testbed.avg_jct_s),
        "makespan_s": f"{figures.makespan_s:,.0f}",
        "makespan_gap": gap(figures.makespan_s, testbed.makespan_s),
        "median_jct_s": f"{figures.median_jct_s:,.0f}",
        "median_gap": gap(figures.median_jct_s, testbed.median_jct_s),
        "jct_correlation": f"{figures.correlation:.3f}",
        "launches": "n/a" if figures.launches is None else f"{figures.launches:,}",
    }


def main() -> None:
    rows = []
    walls = {}
    for run in sorted(RUNS, reverse=True):
        started = time.perf_counter()
        replay(run)
        walls[run] = time.perf_counter() - started
        testbed = of_log("testbed", run)
        rows.append(row(run, "ours (muri_testbed)", ours(run), testbed))
        rows.append(row(run, "testbed", testbed, testbed))
        rows.append(row(run, "Muri's simulator", of_log("muri_simulator", run), testbed))
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(pd.DataFrame(rows).to_string(index=False))
    times = ", ".join(f"{RUNS[run][0]} {wall_s:.2f}" for run, wall_s in walls.items())
    print(f"wall time of our runs (s): {times}")


if __name__ == "__main__":
    main()

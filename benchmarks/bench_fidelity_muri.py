"""Prints our replay of the Muri testbed beside the testbed and Muri's own simulator (a
benchmark, not a test).

For Tiresias' discretized LAS and SRTF on the testbed's 400-job trace (8 nodes x 8 V100,
``muri_testbed`` preset): average JCT, makespan and median JCT of each run and their gap to the
testbed, the per-job JCT correlation with the testbed, launches (first starts and relaunches),
and our wall time. The pass/fail targets live in ``tests/engine/test_fidelity_muri.py``.

Then Muri's own policies, Muri-S and Muri-L (``muri_s``, ``muri_l``: k = 4 and the
interleaving model under the preset; :mod:`engine.policies.muri`), and Themis (``themis``,
exclusive GPUs, as Muri's code runs it; :mod:`engine.policies.themis`), beside the testbed's
Tiresias and SRTF runs on the same trace, and beside the testbed's own average JCT and
makespan for these three (not in ``shared/``: :data:`TESTBED_SUMMARIES`, from Muri's
repository); the ratios are to the testbed's SRTF and Tiresias, the gaps to the testbed's run
of the same policy (nothing was fitted to anything).

    .venv/bin/python benchmarks/bench_fidelity_muri.py
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.sharing import MURI_K  # noqa: E402
from tests.engine.muri_reference import (  # noqa: E402
    RUNS,
    SHARING_RUNS,
    Figures,
    of_log,
    ours,
    replay,
    replay_policy,
)

TESTBED_SUMMARIES: dict[str, tuple[float, float]] = {
    "Muri-S": (117_634.554467, 2_662_548.294849),
    "Muri-L": (129_744.660102, 2_666_872.437762),
    "Themis": (461_456.234115, 3_924_818.880355),
}
"""The testbed's average JCT and makespan (s) of each run: github.com/Rivendile/Muri at 4e69a78,
``cluster_exp/results/<run>/result.out`` (``themis`` for Themis), written by its ``calc.py``."""


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
    print()
    print(sharing_table())


def sharing_table() -> str:
    """Muri-S and Muri-L (ours) beside the testbed's SRTF and Tiresias."""
    srtf, tiresias = of_log("testbed", "SRTF"), of_log("testbed", "tiresias")
    rows = [shared_row("SRTF", "testbed", srtf, srtf, tiresias)]
    rows.append(shared_row("Tiresias LAS", "testbed", tiresias, srtf, tiresias))
    for name, spec in SHARING_RUNS.items():
        started = time.perf_counter()
        result = replay_policy(spec)
        wall_s = time.perf_counter() - started
        jobs = result.jobs
        figures = Figures(
            float(jobs["jct_s"].mean()), float(jobs["completion_s"].max()),
            float(jobs["jct_s"].median()), float("nan"), None,
        )  # fmt: skip
        k = f"k = {MURI_K}" if name.startswith("Muri") else "exclusive"
        avg_jct_s, makespan_s = TESTBED_SUMMARIES[name]
        testbed = Figures(avg_jct_s, makespan_s, float("nan"), float("nan"), None)
        rows.append(shared_row(name, "testbed", testbed, srtf, tiresias, testbed))
        mine = shared_row(name, f"ours ({k}), {wall_s:.0f} s", figures, srtf, tiresias, testbed)
        rows.append(mine)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        return pd.DataFrame(rows).to_string(index=False)


def shared_row(
    policy: str,
    who: str,
    figures: Figures,
    srtf: Figures,
    tiresias: Figures,
    testbed: Figures | None = None,
) -> dict[str, object]:
    """One row; the gaps to ``testbed`` (the testbed's run of the same policy) when given."""

    def gap(mine: float, theirs: float) -> str:
        return f"{mine / theirs - 1:+.1%}"

    median_s = figures.median_jct_s
    return {
        "policy": policy,
        "run": who,
        "avg_jct_s": f"{figures.avg_jct_s:,.0f}",
        "jct_gap": gap(figures.avg_jct_s, testbed.avg_jct_s) if testbed else "",
        "jct_vs_srtf": f"{figures.avg_jct_s / srtf.avg_jct_s:.2f}",
        "jct_vs_tiresias": f"{figures.avg_jct_s / tiresias.avg_jct_s:.2f}",
        "makespan_s": f"{figures.makespan_s:,.0f}",
        "makespan_gap": gap(figures.makespan_s, testbed.makespan_s) if testbed else "",
        "makespan_vs_srtf": f"{figures.makespan_s / srtf.makespan_s:.2f}",
        "median_jct_s": "n/a" if math.isnan(median_s) else f"{median_s:,.0f}",
    }


if __name__ == "__main__":
    main()

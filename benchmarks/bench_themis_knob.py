"""Prints Themis on Muri's testbed trace at several values of its fairness knob f (a
benchmark, not a test): average and median JCT, makespan, the worst finish-time fairness rho
(the ``ftf_rho`` metric) and our wall time. f = 0 is Muri's run (the ``themis`` row of
``bench_fidelity_muri.py``); the knob's rule is in :mod:`engine.policies.themis.knob`.

    .venv/bin/python benchmarks/bench_themis_knob.py [f ...]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.config import PolicySpec  # noqa: E402
from tests.engine.muri_reference import replay_policy  # noqa: E402

KNOBS = (0.0, 0.2, 0.5, 0.8)


def main(knobs: tuple[float, ...]) -> None:
    rows = []
    for knob in knobs:
        started = time.perf_counter()
        jobs = replay_policy(PolicySpec("themis", {"fairness_knob": knob})).jobs
        rows.append({
            "fairness_knob": knob,
            "avg_jct_s": f"{jobs['jct_s'].mean():,.0f}",
            "median_jct_s": f"{jobs['jct_s'].median():,.0f}",
            "makespan_s": f"{jobs['completion_s'].max():,.0f}",
            "worst_ftf_rho": f"{jobs['ftf_rho'].max():.2f}",
            "wall_s": f"{time.perf_counter() - started:.1f}",
        })  # fmt: skip
    with pd.option_context("display.width", 200):
        print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main(tuple(float(a) for a in sys.argv[1:]) or KNOBS)

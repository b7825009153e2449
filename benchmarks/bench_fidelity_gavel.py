"""Prints our Gavel-compatible figures beside Gavel's own (a benchmark, not a test).

For every (trace, policy) pair of ``shared/fidelity/gavel/results.csv`` with a counterpart here:
Gavel's average JCT and ours with the gap, both makespans and the gap, both cluster
utilizations, and our wall time per run beside Gavel's recorded one (its simulator on a 2-core
machine). Policies that draw random numbers are our mean over 5 seeds. The pass/fail targets
live in ``tests/engine/test_fidelity_gavel.py``.

    .venv/bin/python benchmarks/bench_fidelity_gavel.py
    .venv/bin/python benchmarks/bench_fidelity_gavel.py --policy fifo_perf
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.engine.gavel_reference import COUNTERPARTS, REFERENCE_DIR, replay, results  # noqa: E402


def table(policies: list[str] | None) -> pd.DataFrame:
    """One row per pair: Gavel's figures, ours and the gaps."""
    rows = []
    for ref in results().itertuples(index=False):
        if ref.policy not in COUNTERPARTS or (policies and ref.policy not in policies):
            continue
        ours = replay(ref.trace, ref.cluster_v100_p100_k80, ref.policy)
        rows.append(
            {
                "trace": ref.trace.removesuffix(".trace"),
                "policy": ref.policy,
                "ours": COUNTERPARTS[ref.policy][0],
                "seeds": len(ours.seeds),
                "gavel_jct_s": ref.avg_jct_s,
                "our_jct_s": ours.avg_jct_s,
                "jct_gap_%": 100 * (ours.avg_jct_s / ref.avg_jct_s - 1),
                "gavel_makespan_s": ref.makespan_s,
                "our_makespan_s": ours.makespan_s,
                "makespan_gap_%": 100 * (ours.makespan_s / ref.makespan_s - 1),
                "gavel_util": ref.utilization,
                "our_util": ours.utilization,
                "gavel_wall_s": ref.gavel_wall_s,
                "our_wall_s": ours.wall_s,
            }
        )
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", action="append", help="Gavel policy name (repeatable)")
    args = parser.parse_args()
    if not (REFERENCE_DIR / "results.csv").exists():
        sys.exit(f"reference results not found in {REFERENCE_DIR}")
    frame = table(args.policy)
    with pd.option_context("display.width", 250, "display.max_columns", None):
        print(_format(frame))
    print(
        f"\nlargest |JCT gap|: {frame['jct_gap_%'].abs().max():.2f}%  "
        f"largest |makespan gap|: {frame['makespan_gap_%'].abs().max():.2f}%"
    )


def _format(frame: pd.DataFrame) -> str:
    shown = frame.copy()
    for column in ("gavel_jct_s", "our_jct_s", "gavel_makespan_s", "our_makespan_s"):
        shown[column] = shown[column].map("{:.0f}".format)
    for column in ("jct_gap_%", "makespan_gap_%"):
        shown[column] = shown[column].map("{:+.2f}".format)
    for column in ("gavel_util", "our_util"):
        shown[column] = shown[column].map("{:.3f}".format)
    for column in ("gavel_wall_s", "our_wall_s"):
        shown[column] = shown[column].map("{:.2f}".format)
    return shown.to_string(index=False)


if __name__ == "__main__":
    main()

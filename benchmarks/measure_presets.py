"""Prints every paper preset's claims table over its seeds, to re-measure after a model change.

One row per claim: the claimed ratio, the simulated ratio on each seed (> 1 favours the paper's
policy), its range and on how many seeds the claim's direction shows. Wall-clock claims (mean
decision time) vary from run to run. Update each preset's ``not_shown`` text and its
``tests/engine/test_paper_*.py`` from this output.

    .venv/bin/python benchmarks/measure_presets.py                       # every preset, seeds 0-4
    .venv/bin/python benchmarks/measure_presets.py --preset "Doubling heuristic (arXiv 2019)"
    .venv/bin/python benchmarks/measure_presets.py --seeds 0 1 2
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def measure(name: str, seeds: list[int]) -> None:
    """Runs the preset on every seed and prints its claims over the seeds."""
    import pandas as pd

    from engine.papers import claims_table, get_paper_preset
    from engine.scenario import run_scenario

    preset = get_paper_preset(name)
    started = time.perf_counter()
    tables = []
    for seed in seeds:
        table = claims_table(preset, run_scenario(preset.build(seed)))
        tables.append(table.assign(seed=seed))
    both = pd.concat(tables, ignore_index=True)
    print(f"\n## {name}  (seeds {seeds}, {time.perf_counter() - started:.0f} s)")
    keys = ["claim", "metric", "policy", "baseline", "claimed_ratio"]
    for key, rows in both.groupby(keys, sort=False):
        claim, metric, policy, baseline, claimed = key
        ratios = rows["simulated_ratio"].to_numpy(dtype=float)
        per_seed = ", ".join(f"{r:.2f}" for r in ratios)
        print(
            f"- {claim} [{metric}, {policy} vs {baseline}]: claimed {claimed:g}; simulated "
            f"{per_seed} (range {ratios.min():.2f}-{ratios.max():.2f}); direction shown on "
            f"{int(rows['shown'].sum())} of {len(rows)} seeds"
        )


def main() -> None:
    from engine.papers import list_paper_presets

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", action="append", help="preset name (repeatable)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    args = parser.parse_args()
    for name in args.preset or list_paper_presets():
        measure(name, args.seeds)


if __name__ == "__main__":
    main()

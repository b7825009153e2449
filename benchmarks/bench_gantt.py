"""Prints how long the Schedule page's Gantt takes to build on the Muri testbed's Muri-S run (a
benchmark, not a test).

The run: Muri's 400-job testbed trace under the ``muri_testbed`` preset, Muri-S with k = 4
(38,975 segments, most of them on shared GPUs). Timed, best of ``--repeat``:

1. the sharing partner lookup ("shares its GPUs with 9 · slowdown ×2.12") on every segment:
   the loop over rows it replaced (before, ``tests/dashboard/gantt_sharing_reference.py``) and
   :func:`dashboard.gantt_sharing.with_sharing` (after);
2. the whole Gantt (``make_gantt(...).to_json()``) of all 400 jobs, and of the page's opening
   view (the busiest hour's jobs), with each lookup.

CPU seconds (the steadier figure on a shared machine) and wall seconds.

    .venv/bin/python benchmarks/bench_gantt.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dashboard.gantt as gantt  # noqa: E402
from dashboard.chart_style import worker_type_colors  # noqa: E402
from dashboard.components.gantt_filters import (  # noqa: E402
    BUSIEST,
    WINDOWS_S,
    GanttFilter,
    busiest_window_s,
    shared_selection,
    shown_range_s,
)
from dashboard.gantt_sharing import with_sharing  # noqa: E402
from engine.config import PolicySpec  # noqa: E402
from tests.dashboard.gantt_sharing_reference import with_sharing_by_loop  # noqa: E402
from tests.engine.muri_reference import replay_policy  # noqa: E402

LOOKUPS = {"before (loop over rows)": with_sharing_by_loop, "after (vectorised)": with_sharing}


def timed(work: Callable[[], object]) -> tuple[float, float]:
    """CPU and wall seconds of one run of ``work``."""
    started_cpu, started = time.process_time(), time.perf_counter()
    work()
    return time.process_time() - started_cpu, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    started = time.perf_counter()
    sim = replay_policy(PolicySpec("muri_s"))
    print(f"Muri-S on the Muri testbed: {len(sim.jobs)} jobs, {len(sim.segments):,} segments "
          f"(simulated in {time.perf_counter() - started:.1f} s)")  # fmt: skip
    colors = worker_type_colors(sim.segments["worker_type"].dropna().unique())
    hour_s = WINDOWS_S["1 h"]
    start_s = busiest_window_s(sim.jobs["arrival_s"].to_numpy(float), hour_s)
    opening = GanttFilter(BUSIEST, window_s=(start_s, start_s + hour_s))
    order, _ = shared_selection([sim], opening)
    low_s, high_s = shown_range_s([sim], order, opening)
    views = {
        f"Gantt of all {len(sim.jobs)} jobs": {"max_jobs": len(sim.jobs)},
        f"Gantt of the opening view ({len(order)} jobs)": {
            "order": order, "shown_start_s": low_s, "shown_end_s": high_s},
    }  # fmt: skip
    runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(repeat):  # before and after in turns, so that both see the same machine
        for name, lookup in LOOKUPS.items():
            gantt.with_sharing = lookup  # make_gantt calls the lookup under test
            runs.setdefault((name, "lookup"), []).append(
                timed(lambda: lookup(sim.segments, sim.jobs))  # noqa: B023
            )
            for view, kw in views.items():
                runs.setdefault((name, view), []).append(
                    timed(lambda: gantt.make_gantt(sim.segments, sim.jobs, colors, **kw).to_json())  # noqa: B023
                )
    print(f"best of {repeat}, CPU s (wall s):")
    for (name, task), times in runs.items():
        cpu_s, wall_s = min(cpu for cpu, _ in times), min(wall for _, wall in times)
        print(f"  {name:24s} {task:36s} {cpu_s:5.2f} ({wall_s:.2f})")


if __name__ == "__main__":
    main()

"""The ``sweep`` and ``plan`` commands of ``python -m engine`` (see `engine.cli`).

    python -m engine sweep study.json --out DIR [--workers N] [--ray ADDRESS]
                                      [--executor serial|pool|ray]
    python -m engine plan plan.json --out DIR [--workers N] [--ray ADDRESS] [--executor ...]

Progress goes to stderr, one line per finished run (or search step), so a redirected log stays
readable. Finished runs are kept in ``DIR/runs/`` (Parquet per run) and reused by a re-run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from engine.study.executors import EXECUTORS

if TYPE_CHECKING:  # the rest loads when a command runs, so `--help` stays fast
    import pandas as pd

    from engine.study.planner import PlanSpec
    from engine.study.result import StudyResult
    from engine.study.study import Study


def add_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``sweep`` and ``plan`` on the main parser's subcommands."""
    for name, what, file_help in (
        ("sweep", "run a study JSON (variants x policies x seeds)",
         "study JSON (see examples/study.json)"),
        ("plan", "find the cheapest GPU mix meeting a target (plan JSON)",
         "plan JSON (see examples/plan.json)"),
    ):  # fmt: skip
        cmd = sub.add_parser(name, help=what)
        cmd.add_argument("file", type=Path, help=file_help)
        cmd.add_argument("--out", type=Path, default=Path("out"), help="output folder")
        cmd.add_argument("--workers", type=int, help="processes / Ray CPUs (default: all cores)")
        cmd.add_argument("--ray", metavar="ADDRESS", help="run on this Ray cluster (implies ray)")
        cmd.add_argument("--executor", choices=EXECUTORS, help="default: pool (ray with --ray)")


def run_command(args: argparse.Namespace) -> None:
    from engine.sources import Origin
    from engine.study.planner import PlanSpec
    from engine.study.study import Study

    executor = args.executor or ("ray" if args.ray else "pool")
    options = {
        "executor": executor,
        "workers": args.workers,
        "ray_address": args.ray,
        "results_dir": args.out / "runs",
    }
    text = args.file.read_text()
    if args.command == "sweep":
        _sweep(Study.from_json(text, Origin.LOCAL), args.out, options)
    else:
        _plan(PlanSpec.from_json(text, Origin.LOCAL), args.out, options)


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _sweep(study: Study, out: Path, options: dict[str, object]) -> None:
    import pandas as pd

    from engine.metrics import METRICS
    from engine.quota.results import team_metric_parts
    from engine.study.cost import COST_KPIS
    from engine.study.paired import every_pair
    from engine.study.run import run_study

    start = time.monotonic()

    def progress(done: int, total: int, label: str) -> None:
        _log(f"[{done:>{len(str(total))}}/{total}] {time.monotonic() - start:7.1f}s  {label}")

    result = run_study(study, on_progress=progress, **options)  # type: ignore[arg-type]
    out.mkdir(parents=True, exist_ok=True)
    result.runs.to_csv(out / "runs.csv", index=False)
    result.runs.to_parquet(out / "runs.parquet", index=False)
    metrics = [m for m in (*METRICS, *COST_KPIS) if m in result.runs.columns]
    metrics += [m for m in result.runs.columns if team_metric_parts(str(m))]  # under queues
    stats = pd.concat([result.stats(m).assign(metric=m) for m in metrics], ignore_index=True)
    stats.to_csv(out / "stats.csv", index=False)
    paired = every_pair(result, metrics)
    if len(paired):
        paired.to_csv(out / "paired.csv", index=False)
    (out / "study.json").write_text(study.to_json())
    text = sweep_summary(result, paired)
    (out / "summary.txt").write_text(text + "\n")
    print(text)
    _log(
        f"{len(result.results)} runs ({result.reused} reused) in {time.monotonic() - start:.1f}"
        f" s; wrote {out}/"
    )


def sweep_summary(result: StudyResult, paired: pd.DataFrame, metric: str = "jct_mean_s") -> str:
    """Mean and 95% interval per variant and policy in the unit the values pick, then the
    paired comparisons of ``metric`` as sentences, taken from ``paired`` (the rows of
    ``paired.csv``, `engine.study.paired.every_pair`, whose Holm correction counts every
    metric tested), and a note when the seeds are too few."""
    import pandas as pd

    from engine.study.paired import metric_info
    from engine.study.stats import few_seeds_note
    from engine.units import column_format

    info = metric_info(metric)
    stats = result.stats(metric)
    fmt = column_format(pd.concat([stats["mean"], stats["ci_low"], stats["ci_high"]]), info.unit)
    seeds = ", ".join(str(s) for s in result.study.seeds)
    lines = [f"{fmt.header(info.label)}, mean [95% interval] over seeds {seeds}"]
    for row in stats.to_dict("records"):
        lines.append(
            f"  {row['variant']:<28} {row['policy']:<22} {fmt.text(float(row['mean'])):>10} "
            f"[{fmt.text(float(row['ci_low']))}, {fmt.text(float(row['ci_high']))}]  "
            f"n={row['n']}"
        )
    mine = paired[paired["metric"] == metric] if len(paired) else paired
    if len(mine):
        lines.append("paired on the same seeds (A - B; p adjusted by Holm over the metrics):")
        lines += [f"  {sentence}" for sentence in mine["Sentence"]]
    note = few_seeds_note(len(result.study.seeds))
    if note:
        lines.append(f"note: {note}")
    return "\n".join(lines)


def _plan(spec: PlanSpec, out: Path, options: dict[str, object]) -> None:
    from engine.study.planner import plan

    start = time.monotonic()

    def progress(simulations: int, line: str) -> None:
        _log(f"[{simulations:>4} sims] {time.monotonic() - start:7.1f}s  {line}")

    result = plan(spec, on_progress=progress, **options)  # type: ignore[arg-type]
    out.mkdir(parents=True, exist_ok=True)
    result.tried.to_csv(out / "tried.csv", index=False)
    result.pareto.to_csv(out / "pareto.csv", index=False)
    (out / "explanation.txt").write_text("\n".join(result.explanation) + "\n")
    if result.chosen_scenario is not None:
        (out / "chosen_scenario.json").write_text(result.chosen_scenario.to_json())
    print("\n".join(result.explanation))
    _log(f"wrote {out}/ in {time.monotonic() - start:.1f} s")

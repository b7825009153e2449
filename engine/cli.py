"""Command line: run a scenario headless and write its result tables.

    python -m engine run scenario.json --out out/ [--trace my_trace.csv] [--format csv|parquet|both]
    python -m engine run scenario.json --preset muri_testbed   # another system's rules
    python -m engine run scenario.json --power power.json      # energy, power and CO2e KPIs
    python -m engine example > scenario.json      # the default scenario, to edit
    python -m engine policies                     # registered policies and their parameters
    python -m engine presets                      # the scenario presets (--preset NAME)
    python -m engine sweep study.json --out DIR   # a study: variants x policies x seeds
    python -m engine plan plan.json --out DIR     # the cheapest GPU mix meeting a target

The scenario JSON is the one the dashboard downloads and uploads. Start-up stays light: the
simulator, pandas, scipy and the policies are imported by the command that needs them, so
``--help``, a mistyped argument and ``example`` answer at once.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.config import ScenarioConfig, json_object
from engine.errors import EngineError
from engine.presets import PRESETS, apply_preset, describe_preset
from engine.sources import Origin
from engine.study import cli as study_cli

if TYPE_CHECKING:
    import pandas as pd

    from engine.results import ComparisonResult

TABLES = ("jobs", "segments", "utilization")


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser: every command and argument with its help."""
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND",
        help="one of these (python -m engine COMMAND --help lists its arguments):",
    )  # fmt: skip
    run = sub.add_parser("run", help="simulate a scenario JSON and write result tables")
    run.add_argument("scenario", type=Path, help="scenario JSON (python -m engine example)")
    run.add_argument("--out", type=Path, default=Path("out"), help="output folder (default out/)")
    run.add_argument(
        "--trace", type=Path, help="trace file to run (the scenario's trace source is replaced)"
    )
    run.add_argument("--format", choices=("csv", "parquet", "both"), default="both",
                     help="table files to write (default both)")  # fmt: skip
    run.add_argument(
        "--preset", choices=sorted(PRESETS), help="apply a preset's rules to the scenario first"
    )
    run.add_argument(
        "--queues", type=Path,
        help="Kueue YAML (ClusterQueue, Cohort, LocalQueue, ResourceFlavor, "
        "WorkloadPriorityClass, Configuration): teams' queues and quotas; jobs name their "
        "LocalQueue in the trace's queue column",
    )  # fmt: skip
    run.add_argument(
        "--power", type=Path,
        help="power JSON (engine.power.model.PowerSpec: pue, grid_g_co2e_per_kwh, "
        "grid_hourly_g_co2e_per_kwh, busy_power_factor, worker_types; {} for the defaults): "
        "adds energy_kwh, power_peak_kw, power_mean_kw, co2e_kg to the kpi table",
    )  # fmt: skip
    sub.add_parser("example", help="print the default scenario JSON")
    sub.add_parser("policies", help="list registered policies and their parameters")
    sub.add_parser("presets", help="list the scenario presets (for --preset and studies)")
    study_cli.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # no command: the help, not a usage error
        parser.print_help()
        return 0
    try:
        if args.command == "example":
            print(ScenarioConfig().to_json())
        elif args.command == "policies":
            _print_policies()
        elif args.command == "presets":
            for name in PRESETS:
                print(f"{name}: {describe_preset(name)}")
        elif args.command in ("sweep", "plan"):
            study_cli.run_command(args)
        else:
            _run(args.scenario, args.out, args.trace, args.format, args.preset, args.queues,
                 args.power)  # fmt: skip
    except (EngineError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _run(
    scenario: Path, out: Path, trace: Path | None, fmt: str, preset: str | None,
    queues: Path | None = None, power: Path | None = None,
) -> None:  # fmt: skip
    from engine.scenario import run_scenario

    config = ScenarioConfig.from_json(scenario.read_text(), Origin.LOCAL)
    if preset:
        config = apply_preset(preset, config)
    if queues is not None:
        config = _with_queues(config, queues)
    if power is not None:
        config = _with_power(config, power)
    upload = (trace.name, trace.read_bytes()) if trace else None
    if upload is not None and not config.trace.source.startswith("upload:"):
        # --trace names the jobs: the scenario runs them whatever its source said
        config = dataclasses.replace(
            config, trace=dataclasses.replace(config.trace, source=f"upload:{upload[0]}")
        )
    if config.trace.source.startswith("upload:") and upload is None:
        raise EngineError(
            f"{scenario.name}: trace source is {config.trace.source!r}; pass --trace FILE"
        )
    result = run_scenario(config, upload=upload, on_progress=_progress_lines())
    write_results(result, out, fmt)
    print(summary_text(result))
    print(f"wrote {out}/")


def _with_queues(config: ScenarioConfig, path: Path) -> ScenarioConfig:
    """The scenario with the teams' queues of a Kueue YAML file (notes to stderr)."""
    from engine.quota.kueue_yaml import read_kueue_yaml

    worker_types = list(config.cluster.capacity()) + [w.name for w in config.extra_worker_types]
    queues, notes = read_kueue_yaml(path.read_text(), worker_types, file=path.name)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    return dataclasses.replace(config, queues=queues)


def _with_power(config: ScenarioConfig, path: Path) -> ScenarioConfig:
    """The scenario with the power spec of a JSON file (in place of the scenario's own).

    Raises:
        ConfigError: naming the field as ``scenario.power.<field>``.
    """
    data = config.to_dict()
    data["power"] = json_object(path.read_text(), f"power ({path.name})")
    return ScenarioConfig.from_dict(data, Origin.LOCAL)


def _progress_lines() -> Callable[[float, str], None]:
    """Progress for stderr: a line each time the run passes another 10% (with the policy
    running), so stdout holds only the summary and a redirected log reads as lines (no
    carriage returns)."""
    shown = [-1]

    def report(fraction: float, name: str) -> None:
        tenth = int(fraction * 10)
        if tenth > shown[0]:
            shown[0] = tenth
            print(f"{fraction:6.1%} {name}", file=sys.stderr, flush=True)

    return report


def write_results(result: ComparisonResult, out: Path, fmt: str = "both") -> None:
    """Writes kpi, jobs, segments and utilization tables, scenario.json and summary.txt."""
    out.mkdir(parents=True, exist_ok=True)
    tables = {name: result.combined(name) for name in TABLES}
    tables["kpi"] = result.kpi_table().reset_index()
    if result.config.queues is not None:  # teams (engine.quota): per team, usage over time
        tables.update(team_tables(result))
    for name, frame in tables.items():
        if fmt in ("csv", "both"):
            frame.to_csv(out / f"{name}.csv", index=False)
        if fmt in ("parquet", "both"):
            frame.to_parquet(out / f"{name}.parquet", index=False)
    (out / "scenario.json").write_text(result.config.to_json())
    (out / "summary.txt").write_text(summary_text(result) + "\n")


def team_tables(result: ComparisonResult) -> dict[str, pd.DataFrame]:
    """``teams`` (:func:`engine.quota.results.team_table` per policy) and ``quota_usage``, each
    with a ``policy`` column, for a scenario with queues."""
    import pandas as pd

    from engine.quota.results import team_table

    queues = result.config.queues
    assert queues is not None
    teams, usage = [], []
    for run in result.results:
        quota_usage = run.quota_usage if run.quota_usage is not None else pd.DataFrame()
        end_s = float(run.jobs["completion_s"].max()) if len(run.jobs) else 0.0
        teams.append(team_table(run.jobs, quota_usage, queues, end_s).assign(policy=run.policy))
        usage.append(quota_usage.assign(policy=run.policy))
    return {"teams": pd.concat(teams, ignore_index=True),
            "quota_usage": pd.concat(usage, ignore_index=True)}  # fmt: skip


def summary_text(result: ComparisonResult) -> str:
    """A plain-text KPI table, one column per policy; each metric in the unit the dashboard
    shows it in (`engine.units.metric_formats`: the durations of a group, as mean, median,
    p95 and p99 JCT, in one unit; a class trace's JCTs in minutes, the full Philly trace's
    queueing in days), named in the row's label; fixed-point numbers only."""
    from engine.metrics import METRICS
    from engine.power.energy import POWER_METRICS
    from engine.units import column_format, metric_formats

    kpi = result.kpi_table()
    policies = [str(p) for p in kpi.index]
    lines = [f"{'metric':<40}" + "".join(f"{p:>18}" for p in policies)]
    formats = metric_formats({key: kpi[key] for key in METRICS if key in kpi})
    for key, metric in {**METRICS, **POWER_METRICS}.items():
        if key not in kpi:
            continue
        values = [float(v) for v in kpi[key]]
        fmt = formats.get(key) or column_format(values, metric.unit)
        label = fmt.header(metric.label)
        lines.append(f"{label:<40}" + "".join(f"{fmt.text(v):>18}" for v in values))
    lines += [f"note: {note}" for note in result.trace_notes]
    if result.dropped_job_ids:
        lines.append(f"dropped {len(result.dropped_job_ids)} job(s) larger than the cluster")
    return "\n".join(lines)


def _print_policies() -> None:
    from engine.policies import get_policy, list_policies
    from engine.policies.base import describe

    for name in list_policies():
        cls = get_policy(name)
        print(f"{name}: {describe(cls)}")
        for f in dataclasses.fields(cls.Params):
            default = json.dumps(getattr(cls.Params(), f.name))
            print(f"    {f.name} = {default}  {f.metadata.get('help', '')}")

"""`python -m engine --help` and argument errors answer without loading the heavy libraries
(issue 11: CLI start-up). What loads is checked, never a wall time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pandas", "scipy", "networkx", "plotly", "numpy", "engine.simulator", "engine.policies")
PROBE = """
import sys
from engine.cli import main
try:
    main({argv!r})
except SystemExit:
    pass
print("LOADED:" + ",".join(m for m in {heavy!r} if m in sys.modules))
"""


def _loaded_after(argv: list[str]) -> list[str]:
    code = PROBE.format(argv=argv, heavy=HEAVY)
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    line = proc.stdout.strip().splitlines()[-1]
    assert line.startswith("LOADED:"), proc.stdout + proc.stderr
    return [m for m in line.removeprefix("LOADED:").split(",") if m]


def test_help_loads_no_heavy_library() -> None:
    assert _loaded_after(["--help"]) == []


def test_an_argument_error_loads_no_heavy_library() -> None:
    assert _loaded_after(["no-such-command"]) == []
    assert _loaded_after(["sweep", "--help"]) == []


def test_example_prints_the_scenario_without_the_simulator() -> None:
    assert _loaded_after(["example"]) == []


def test_policies_does_load_the_registry() -> None:
    # the probe itself can fail: listing policies must import them
    assert "engine.policies" in _loaded_after(["policies"])


def test_no_command_prints_the_help_and_exits_zero() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "engine"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert "usage: python -m engine" in proc.stdout and "plan" in proc.stdout


def test_every_argument_has_help() -> None:
    import argparse

    from engine.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = [
        f"{name} {action.dest}"
        for name, command in commands.choices.items()
        for action in command._actions
        if not action.help
    ]
    assert commands.help and missing == []

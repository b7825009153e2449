"""Lint, format and type checks run with the suite, so CI keeps the house style."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_lint_is_clean() -> None:
    proc = _run("ruff", "check", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_is_clean() -> None:
    proc = _run("ruff", "format", "--check", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_engine_type_checks() -> None:
    proc = _run("mypy")
    assert proc.returncode == 0, proc.stdout + proc.stderr

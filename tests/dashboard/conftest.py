"""Fixtures of the dashboard tests."""

from __future__ import annotations

import pytest

from engine.results import ComparisonResult
from tests.dashboard.fakes import fake_comparison


@pytest.fixture(autouse=True)
def serial_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """AppTests simulate in the test process (``GPUSCHED_EXECUTOR=serial``), as the study
    tests do; the process pool is tested in ``test_parallel_run.py`` and the browser tests."""
    monkeypatch.setenv("GPUSCHED_EXECUTOR", "serial")


@pytest.fixture
def comparison() -> ComparisonResult:
    """A fake two-policy comparison (fifo, las) over 30 jobs."""
    return fake_comparison()

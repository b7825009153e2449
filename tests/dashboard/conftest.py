"""Fixtures of the dashboard tests."""

from __future__ import annotations

import pytest

from engine.results import ComparisonResult
from tests.dashboard.fakes import fake_comparison


@pytest.fixture
def comparison() -> ComparisonResult:
    """A fake two-policy comparison (fifo, las) over 30 jobs."""
    return fake_comparison()

"""The per-policy progress bar's text (dashboard.components.run_progress)."""

from __future__ import annotations

from dashboard.components.run_progress import _bar_text
from dashboard.parallel_run import PolicyStatus


def test_a_running_bar_never_reads_100_percent() -> None:
    text = _bar_text(PolicyStatus("Hadar", "running", 0.996, 3.2))
    assert "99% of jobs finished" in text
    assert "100%" not in text


def test_a_running_bar_rounds_down_and_shows_seconds() -> None:
    assert _bar_text(PolicyStatus("FIFO", "running", 0.4199, 12.4)) == (
        "**FIFO** · running · 41% of jobs finished · 12 s"
    )


def test_done_and_queued_bars() -> None:
    assert _bar_text(PolicyStatus("LAS", "done", 1.0, 0.42)) == "✓ **LAS** · done in 0.4 s"
    assert _bar_text(PolicyStatus("LAS", "waiting")) == "LAS · queued"

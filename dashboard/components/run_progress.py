"""Progress of a run: a line over the whole run, then one bar per policy being simulated.

A bar reads "queued", "running" with the share of its jobs finished and the seconds so far,
or "done" with the time it took; the policies run side by side in worker processes
(:mod:`dashboard.parallel_run`), so several bars move at once.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator

import streamlit as st

from dashboard.parallel_run import PolicyStatus


def _bar_text(status: PolicyStatus) -> str:
    if status.state == "done":
        return f"✓ **{status.name}** · done in {status.elapsed_s:.1f} s"
    if status.state == "running":
        return (
            f"**{status.name}** · running · {_percent_down(status.fraction)}% of jobs finished"
            f" · {status.elapsed_s:.0f} s"
        )
    return f"{status.name} · queued"


def _percent_down(fraction: float) -> int:
    """Whole percent, rounded down: a run at 99.6% reads 99%, never "100%" while running."""
    return min(100, max(0, math.floor(fraction * 100)))


class RunProgress:
    """Draws :class:`PolicyStatus` lists where it was created; :meth:`clear` removes it."""

    def __init__(self, what: str = "Starting…") -> None:
        self.started = time.perf_counter()
        self.slot = st.empty()
        self.area = self.slot.container(border=True)
        self.head = self.area.empty()
        self.head.markdown(what)
        self.bars: dict[str, st.delta_generator.DeltaGenerator] = {}
        self.shown: dict[str, str] = {}

    def waiting(self, place: int, busy: int) -> None:
        """Shows the run's place in the server's queue (:mod:`dashboard.run_queue`)."""
        from dashboard.run_queue import queue_text, run_queue

        self.head.markdown(queue_text(place, busy, run_queue().slots))

    def show(self, statuses: list[PolicyStatus]) -> None:
        """Updates the line and every bar whose text changed."""
        if not self.bars:
            self._make_bars([s.name for s in statuses])
        done = sum(s.state == "done" for s in statuses)
        running = sum(s.state == "running" for s in statuses)
        self.head.markdown(
            f"**Simulating {len(statuses)} policies** · {running} running at once · {done} done"
            f" · {time.perf_counter() - self.started:.1f} s"
        )
        for status in statuses:
            text = _bar_text(status)
            if self.shown.get(status.name) != text:
                self.bars[status.name].progress(min(max(status.fraction, 0.0), 1.0), text=text)
                self.shown[status.name] = text

    def _make_bars(self, names: list[str]) -> None:
        count = 1 if len(names) == 1 else 2 if len(names) <= 4 else 3
        columns = self.area.columns(count)
        for i, name in enumerate(names):
            self.bars[name] = columns[i % count].progress(0.0, text=f"{name} · queued")

    def clear(self) -> None:
        self.slot.empty()


def request_cancel() -> None:
    """Callback of Cancel: the run in flight stops at its next progress step."""
    st.session_state["cancel_requested"] = True


@contextlib.contextmanager
def cancel_shown(
    key: str, help_text: str, on_click: Callable[[], None] = request_cancel
) -> Iterator[None]:
    """A Cancel button where this is entered, shown only while the run inside the ``with``
    is in flight (issue 38: no Cancel beside a Run with nothing running), removed after it
    ends, however it ends."""
    slot = st.empty()
    slot.button("Cancel", key=key, on_click=on_click, help=help_text)
    try:
        yield
    finally:
        slot.empty()

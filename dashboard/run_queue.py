"""The server's shared work: its budget, and one queue of runs from every session.

The dashboard is one server for a whole meeting, so its worker processes are one bounded
pool: :data:`engine.budget.Budget.workers` slots (two by default, one per core) handed out
first come, first served to the runs of every session (a policy run, a study, a plan). A run
waits in :class:`RunQueue` and its page shows its place ("2nd in the queue, 2 slots busy");
Cancel, or leaving the page, takes it out of the queue or frees its slots. A run takes at
most ``session_workers`` slots, and fewer if only fewer are free (it never waits for a
second slot while one is idle).

The budget follows the address the server listens on (Streamlit's ``server.address``): on
localhost one person's machine, its limits from its memory and cores; elsewhere the shared
budget (:func:`engine.budget.budget_for`). ``$GPUSCHED_*`` variables and
``.streamlit/secrets.toml``'s ``[budget]`` table override either.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator

import streamlit as st

from engine.budget import Budget, BudgetError, budget_for
from engine.errors import ConfigError, SimulationCancelled

LOG = logging.getLogger("gpusched.dashboard")
SESSION_RUNS_KEY = "_runs_started"  # runs this session started (session_runs budget)
POLL_S = 0.25

WaitFn = Callable[[int, int], None]  # (place in the queue from 1, slots busy)


def server_budget() -> Budget:
    """The budget for the address the server listens on, with the environment's and
    ``secrets.toml``'s settings (an unreadable setting is logged and the shared defaults are
    used)."""
    try:
        secrets = dict(st.secrets.get("budget", {}))
    except Exception:  # noqa: BLE001 - no secrets file, or one Streamlit cannot read
        secrets = {}
    address = st.get_option("server.address")
    try:
        return budget_for(address, *machine(), os.environ, secrets)
    except ConfigError as exc:  # a bad setting must not take every page down
        LOG.error("work budget settings ignored: %s", exc)
        return Budget()


def machine() -> tuple[int, int]:
    """(memory in bytes, cores this process may use) of the machine; 0 for what is unknown."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # not a POSIX system
        memory = 0
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity else os.cpu_count() or 0
    return int(memory), cores


class RunQueue:
    """``slots`` worker slots shared by every session, granted in order of arrival."""

    def __init__(self, slots: int) -> None:
        self.slots = max(1, slots)
        self._free = self.slots
        self._waiting: list[object] = []
        self._changed = threading.Condition()

    def busy(self) -> int:
        """Slots in use now."""
        with self._changed:
            return self.slots - self._free

    @contextlib.contextmanager
    def slot(self, want: int, on_wait: WaitFn, should_cancel: Callable[[], bool]) -> Iterator[int]:
        """Waits for this run's turn, yields how many slots it got (1..``want``), and frees
        them when the block ends (finished, failed, cancelled or the page stopped).

        ``on_wait(place, busy)`` is called about every quarter second while waiting.

        Raises:
            SimulationCancelled: ``should_cancel()`` turned True while waiting.
        """
        ticket, granted = object(), 0
        with self._changed:
            self._waiting.append(ticket)
        try:
            while not granted:
                with self._changed:
                    place = self._waiting.index(ticket) + 1
                    if place == 1 and self._free > 0:
                        granted = min(max(1, want), self._free)
                        self._free -= granted
                        self._waiting.remove(ticket)
                        self._changed.notify_all()
                        break
                    busy = self.slots - self._free
                on_wait(place, busy)
                if should_cancel():
                    raise SimulationCancelled("cancelled while waiting in the queue")
                with self._changed:
                    self._changed.wait(POLL_S)
            yield granted
        finally:
            with self._changed:
                if ticket in self._waiting:
                    self._waiting.remove(ticket)
                self._free += granted
                self._changed.notify_all()


@st.cache_resource(show_spinner=False)
def run_queue() -> RunQueue:
    """The server's queue (one per server process)."""
    return RunQueue(server_budget().workers)


def charge_session(runs: int, budget: Budget) -> None:
    """Counts ``runs`` against this session's ``session_runs`` budget.

    Raises:
        BudgetError: if they would take the session beyond it (nothing is counted then).
    """
    s = st.session_state
    total = int(s.get(SESSION_RUNS_KEY, 0)) + runs
    budget.check("session_runs", total, "the runs this session has started")
    s[SESSION_RUNS_KEY] = total


def with_deadline(should_cancel: Callable[[], bool], budget: Budget) -> Callable[[], bool]:
    """``should_cancel``, which also stops the run after ``max_run_s`` seconds of wall time.

    The returned function raises :class:`BudgetError` at the deadline (the executors cancel
    every worker on an exception from it)."""
    deadline = time.monotonic() + budget.max_run_s

    def check() -> bool:
        if time.monotonic() > deadline:
            raise BudgetError(
                f"stopped after {budget.max_run_s:,g} s: this server allows at most "
                f"{budget.max_run_s:,g} s of wall time per run {budget.setting('max_run_s')}; "
                "try fewer jobs or policies"
            )
        return should_cancel()

    return check


def ordinal(place: int) -> str:
    """1 -> "1st", 2 -> "2nd", 11 -> "11th"."""
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def queue_text(place: int, busy: int, slots: int) -> str:
    """What a waiting run shows, e.g. "Waiting for a free worker: 2nd in the queue (2 of 2
    workers busy with other runs)."."""
    return (
        f"Waiting for a free worker: {ordinal(place)} in the queue ({busy} of {slots} "
        "workers busy with other runs). Cancel leaves the queue."
    )

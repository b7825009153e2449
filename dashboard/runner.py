"""The one cached bridge to the engine.

A scenario's trace is hashed once (:func:`engine.study.traces.trace_payload`) and parsed once
per process (:func:`engine.scenario.load_scenario_trace` keeps it by that hash), so the
preview and a serial run share it; a run parses it in its workers only (the server orders the
runs by the trace's lines, counted once when it was stored: :func:`dashboard.query.
upload_rows`). Results are kept per policy
(:func:`run`): the key is the policy's run spec (:meth:`engine.study.spec.RunSpec.key`: the
scenario with that one policy, its seeds and the trace's SHA-256), so re-running an unchanged
scenario is instant and adding a policy simulates only the new one. The policies that do run,
run side by side in worker processes (:mod:`dashboard.parallel_run`, on the study's
executors), each one :func:`engine.scenario.run`.

Progress and Cancel: the runs' statuses are polled in the script thread about every quarter
second and drawn there; pressing Cancel makes Streamlit stop the script at its next element
update, and the workers stop at their next progress report (see
:func:`dashboard.parallel_run.run_policies`).
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

import streamlit as st

from dashboard.run_queue import (
    WaitFn,
    charge_session,
    run_queue,
    server_budget,
    with_deadline,
)
from engine.config import ScenarioConfig
from engine.results import ComparisonResult, RunResult
from engine.traces import TraceLoad

if TYPE_CHECKING:
    from dashboard.parallel_run import StatusFn

Upload = tuple[str, bytes] | None
KEPT_POLICY_RESULTS = 48  # per server, least recently used dropped first


@st.cache_data(show_spinner=False)
def worker_types(matrix: str = "gavel") -> list[str]:
    """Worker types of a built-in throughput matrix (``"gavel"``: ``["k80", "p100", "v100"]``);
    a name that is not built in (a CSV path in a loaded scenario) lists Gavel's: the server
    reads no file a link names."""
    from engine.step_time.throughput import BUILTIN_MATRICES, load_matrix

    return load_matrix(matrix if matrix in BUILTIN_MATRICES else "gavel").worker_types


def load_trace(config: ScenarioConfig, upload: Upload) -> TraceLoad:
    """The scenario's validated jobs table (kept per process by the trace's SHA-256, trace
    settings, seed and load: :func:`engine.scenario.load_scenario_trace`), loaded only when
    its jobs are within the server's budget (counted before parsing).

    Args:
        upload: the session's uploaded trace (:func:`dashboard.query.set_upload`, which
            counted its lines when it arrived: :func:`dashboard.scenarios.upload_rows`).

    Raises:
        TraceError, OversizedJobsError, ConfigError: with the engine's user-facing message;
            BudgetError for more jobs than the budget allows.
    """
    from dashboard.scenarios import upload_rows
    from engine.budget import jobs_bound, jobs_words, trace_rows
    from engine.scenario import load_scenario_trace
    from engine.study.traces import trace_payload

    rows = trace_rows(config, upload_rows())
    server_budget().check("max_jobs", jobs_bound(config, rows), jobs_words(config, rows))
    digest, file = trace_payload(config, None, upload=upload)
    return load_scenario_trace(config, file, digest)


class PolicyResults:
    """Finished policies of this server, keyed by their run spec's key;
    the least recently used beyond :data:`KEPT_POLICY_RESULTS` are dropped. Thread-safe (every
    session shares it); results are frozen and never changed in place."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: OrderedDict[str, RunResult] = OrderedDict()

    def get(self, key: str) -> RunResult | None:
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
            return self._kept.get(key)

    def put(self, key: str, result: RunResult) -> None:
        with self._lock:
            self._kept[key] = result
            while len(self._kept) > KEPT_POLICY_RESULTS:
                self._kept.popitem(last=False)


@st.cache_resource(show_spinner=False)
def policy_results() -> PolicyResults:
    """The server's store of finished policies (clear with ``st.cache_resource.clear()``)."""
    return PolicyResults()


@st.cache_resource(show_spinner=False)
def warm_pool() -> threading.Thread:
    """Warms the process pool in a background thread, once per server
    (:func:`dashboard.parallel_run.warm_up`); a failure there only costs the first Run time."""

    def warm() -> None:
        from dashboard.parallel_run import warm_up

        with contextlib.suppress(Exception):
            warm_up()

    thread = threading.Thread(target=warm, name="pool-warm-up", daemon=True)
    thread.start()
    return thread


def run(
    config: ScenarioConfig,
    upload: Upload,
    on_status: StatusFn,
    should_cancel: Callable[[], bool],
    on_wait: WaitFn = lambda place, busy: None,
) -> tuple[ComparisonResult, int]:
    """Runs (or takes from :func:`policy_results`) every policy of ``config``; returns the
    comparison and how many policies were simulated (0: all came from the cache).

    The scenario is checked against the server's work budget before anything is loaded
    (:func:`engine.scenario.prepare`); the policies to simulate then wait for their
    turn in the server's queue (``on_wait(place, busy)`` while waiting) and run on the slots
    it grants (:mod:`dashboard.run_queue`). ``upload`` is the session's, as in :func:`load_trace`.

    Raises:
        EngineError: with a user-facing message (BudgetError for a limit exceeded);
            SimulationCancelled when cancelled.
    """
    from dashboard.parallel_run import run_policies
    from dashboard.scenarios import upload_rows
    from engine.budget import jobs_bound, trace_rows
    from engine.scenario import prepare

    budget, rows = server_budget(), upload_rows()
    _, file, specs = prepare(config, upload, budget, upload_rows=rows)
    store = policy_results()
    found = [store.get(spec.key()) for spec in specs]
    missing = [i for i, result in enumerate(found) if result is None]
    if missing:
        # the workers parse the trace; its lines bound its jobs for the run order
        num_jobs = jobs_bound(config, trace_rows(config, rows))
        charge_session(len(missing), budget)
        with run_queue().slot(budget.session_workers, on_wait, should_cancel) as workers:
            fresh = run_policies(
                [specs[i] for i in missing], file, num_jobs, on_status=on_status,
                should_cancel=with_deadline(should_cancel, budget), workers=workers,
                limits=budget.worker_limits(),
            )  # fmt: skip
        for i, result in zip(missing, fresh, strict=True):
            found[i] = result
            store.put(specs[i].key(), result)
    runs = [r for r in found if r is not None]
    return ComparisonResult.of(config, runs), len(missing)

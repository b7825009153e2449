"""Executors, one interface: run tasks ``(spec, trace payload)`` and report each result.

- ``serial``: in this process, in order.
- ``pool``: a local process pool (``concurrent.futures``, the ``forkserver`` start method on
  Linux, else ``spawn``; default one worker per core).
- ``ray``: Ray tasks (``ray.init(address=...)``; without an address a local Ray with
  ``workers`` CPUs). Needs the optional extra: ``pip install .[ray]``.

A caller with many small batches (the planner) opens one pool for all of them with
:func:`open_pool` and passes it to :func:`run_tasks`: starting a pool costs about half a second.

Each task runs :func:`engine.scenario.run`, which depends only on the spec and the trace
bytes, so the results are the same, bit for bit, whichever executor runs them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from engine.budget import WorkerLimits
from engine.errors import ConfigError, EngineError, SimulationCancelled
from engine.study.spec import RunSpec

if TYPE_CHECKING:  # loaded where a run happens (the run imports the simulator)
    import multiprocessing.context
    from concurrent.futures import Future, ProcessPoolExecutor

    from engine.results import RunResult
    from engine.study.progress import ProgressFiles

EXECUTORS = ("serial", "pool", "ray")
Payload = tuple[str, bytes] | None  # the trace's (file name, bytes); None: synthetic, or read there
Task = tuple[RunSpec, Payload]
DoneFn = Callable[[int, Any], None]  # (task index, result of the worker function)
WorkerFn = Callable[[RunSpec, Payload], Any]
CancelFn = Callable[[], bool]


def execute(
    spec: RunSpec,
    payload: Payload,
    progress: ProgressFiles | None = None,
    poll: CancelFn | None = None,
) -> RunResult:
    """The worker function (top level, so every executor can pickle it):
    :func:`engine.scenario.run`.

    Args:
        progress: where the run reports its fraction done under ``spec.variant`` and looks
            for a cancel request (:mod:`engine.study.progress`); None: no reports.
        poll: the caller's own poll, called between reports (serial executor only).

    Raises:
        SimulationCancelled: a cancel was requested in ``progress`` or ``poll()`` returned True.
    """
    from engine.scenario import run

    if progress is None:
        return run(spec, payload)
    from engine.study.progress import RunReporter

    reporter = RunReporter(progress, spec.variant, poll)
    result = run(spec, payload, on_progress=reporter.progress, should_cancel=reporter.should_cancel)
    progress.report(spec.variant, 1.0, reporter.started)
    return result


def execute_or_error(spec: RunSpec, payload: Payload) -> RunResult | EngineError:
    """:func:`execute`, returning a user-facing engine error instead of raising it (the
    planner records a mix the policy cannot run as infeasible and goes on). The error comes
    back as a plain :class:`EngineError` with the message: some subclasses (an oversized job's
    error, with keyword-only fields) cannot be rebuilt from a pickle."""
    from engine.scenario import run

    try:
        return run(spec, payload)
    except SimulationCancelled:
        raise
    except EngineError as exc:
        return EngineError(str(exc))


def run_tasks(
    tasks: Sequence[Task],
    on_done: DoneFn,
    *,
    executor: str = "pool",
    workers: int | None = None,
    ray_address: str | None = None,
    should_cancel: CancelFn | None = None,
    fn: WorkerFn = execute,
    limits: WorkerLimits | None = None,
    pool: ProcessPoolExecutor | None = None,
) -> None:
    """Runs ``fn(spec, payload)`` for every task (default :func:`execute`), calling ``on_done``
    in this process as each finishes (any order). ``pool``: an open pool (:func:`open_pool`)
    to run on instead of starting one (``executor="pool"`` only).

    ``limits`` caps each pool worker (:class:`WorkerLimits`); a worker beyond them stops and
    the call fails with an :class:`EngineError` saying so. The serial and Ray executors
    ignore them.

    Raises:
        ConfigError: for an unknown executor, or Ray requested but not installed.
        SimulationCancelled: ``should_cancel()`` returned True (finished tasks were reported).
        EngineError: the first failing run's error, after cancelling the rest.
    """
    if executor not in EXECUTORS:
        raise ConfigError(f"unknown executor {executor!r}; known: {EXECUTORS}")
    cancel = should_cancel or (lambda: False)
    if not tasks:
        return
    if executor == "serial":
        for i, (spec, payload) in enumerate(tasks):
            if cancel():
                raise SimulationCancelled("study cancelled")
            on_done(i, fn(spec, payload))
    elif executor == "pool":
        limits = limits or WorkerLimits()
        if pool is not None:
            _run_on(pool, tasks, on_done, cancel, fn, limits)
        else:
            count = min(workers or default_workers(), len(tasks))
            with open_pool("pool", count, limits) as own:
                assert own is not None
                _run_on(own, tasks, on_done, cancel, fn, limits)
    else:
        from engine.study.ray_executor import run_ray

        run_ray(tasks, on_done, workers, ray_address, cancel, fn)


def default_workers() -> int:
    """One worker per core this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _context() -> multiprocessing.context.BaseContext:
    """forkserver on Linux, with the engine imported once in the server (workers fork from it
    ready to run), else spawn."""
    import multiprocessing

    if not sys.platform.startswith("linux"):
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["engine.study.executors", "engine.scenario"])
    return context


@contextmanager
def open_pool(
    executor: str, workers: int | None = None, limits: WorkerLimits | None = None
) -> Iterator[ProcessPoolExecutor | None]:
    """A process pool of ``workers`` (default one per core), each worker capped by ``limits``
    (:class:`WorkerLimits`), for several :func:`run_tasks` calls, shut down on exit; None
    (nothing to open) for the other executors."""
    if executor != "pool":
        yield None
        return
    from concurrent.futures import ProcessPoolExecutor

    initializer = (limits or WorkerLimits()).apply
    pool = ProcessPoolExecutor(
        workers or default_workers(), mp_context=_context(), initializer=initializer
    )
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _run_on(
    pool: ProcessPoolExecutor, tasks: Sequence[Task], on_done: DoneFn, cancel: CancelFn,
    fn: WorkerFn, limits: WorkerLimits,
) -> None:  # fmt: skip
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    futures: dict[Future[Any], int] = {
        pool.submit(fn, spec, payload): i for i, (spec, payload) in enumerate(tasks)
    }
    pending: set[Future[Any]] = set(futures)
    try:
        while pending:
            done, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=futures.__getitem__):
                on_done(futures[future], future.result())
            if pending and cancel():
                raise SimulationCancelled("study cancelled")
    except (MemoryError, BrokenProcessPool) as exc:
        pool.shutdown(wait=False, cancel_futures=True)
        raise EngineError(
            "a worker process stopped: a run needed more than a worker may use "
            f"({limits.describe()}); try fewer jobs, policies or seeds"
        ) from exc
    except BaseException:
        for future in pending:
            future.cancel()
        raise

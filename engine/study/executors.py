"""Executors, one interface: run tasks ``(spec, trace payload)`` and report each result.

- ``serial``: in this process, in order.
- ``pool``: a local process pool (``concurrent.futures``, the ``forkserver`` start method on
  Linux, else ``spawn``; default one worker per core).
- ``ray``: Ray tasks (``ray.init(address=...)``; without an address a local Ray with
  ``workers`` CPUs). Needs the optional extra: ``pip install .[ray]``.

Each task runs :func:`engine.study.single.run_spec`, which depends only on the spec and the
trace bytes, so the results are the same, bit for bit, whichever executor runs them.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from engine.errors import ConfigError, SimulationCancelled
from engine.study.single import Payload, RunResult, run_spec
from engine.study.spec import RunSpec

EXECUTORS = ("serial", "pool", "ray")
Task = tuple[RunSpec, Payload]
DoneFn = Callable[[int, RunResult], None]  # (task index, result)
CancelFn = Callable[[], bool]


def execute(spec: RunSpec, payload: Payload) -> RunResult:
    """The worker function (top level, so every executor can pickle it)."""
    return run_spec(spec, payload=payload)


def run_tasks(
    tasks: Sequence[Task],
    on_done: DoneFn,
    *,
    executor: str = "pool",
    workers: int | None = None,
    ray_address: str | None = None,
    should_cancel: CancelFn | None = None,
) -> None:
    """Runs every task, calling ``on_done`` in this process as each finishes (any order).

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
            on_done(i, execute(spec, payload))
    elif executor == "pool":
        _run_pool(tasks, on_done, workers, cancel)
    else:
        from engine.study.ray_executor import run_ray

        run_ray(tasks, on_done, workers, ray_address, cancel)


def default_workers() -> int:
    """One worker per core this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _run_pool(
    tasks: Sequence[Task], on_done: DoneFn, workers: int | None, cancel: CancelFn
) -> None:
    method = "forkserver" if sys.platform.startswith("linux") else "spawn"
    count = min(workers or default_workers(), len(tasks))
    with ProcessPoolExecutor(count, mp_context=multiprocessing.get_context(method)) as pool:
        futures: dict[Future[RunResult], int] = {
            pool.submit(execute, spec, payload): i for i, (spec, payload) in enumerate(tasks)
        }
        pending: set[Future[Any]] = set(futures)
        try:
            while pending:
                done, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=futures.__getitem__):
                    on_done(futures[future], future.result())
                if pending and cancel():
                    raise SimulationCancelled("study cancelled")
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise

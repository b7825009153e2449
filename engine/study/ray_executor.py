"""The Ray executor (optional: ``pip install .[ray]``).

``ray.init(address=...)`` joins a cluster; without an address it starts a local Ray with
``workers`` CPUs (all cores by default). The trace bytes go to the object store once
(``ray.put``) and every task reads them from there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.errors import ConfigError, SimulationCancelled


def run_ray(
    tasks: Sequence[tuple[Any, Any]],
    on_done: Callable[[int, Any], None],
    workers: int | None,
    address: str | None,
    cancel: Callable[[], bool],
    fn: Callable[..., Any],
) -> None:
    """Runs the tasks as Ray tasks; see :func:`engine.study.executors.run_tasks`.

    Raises:
        ConfigError: if Ray is not installed.
        SimulationCancelled: on cancel (running tasks are cancelled with ``ray.cancel``).
    """
    try:
        import ray
    except ImportError as exc:
        raise ConfigError("the Ray executor needs Ray: pip install '.[ray]'") from exc
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    remote = ray.remote(fn)
    payload_refs: dict[int, Any] = {}
    refs = {}
    for i, (spec, payload) in enumerate(tasks):
        ref = payload_refs.setdefault(id(payload), ray.put(payload))
        refs[remote.remote(spec, ref)] = i
    pending = list(refs)
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1, timeout=0.25)
            for ref in done:
                on_done(refs[ref], ray.get(ref))
            if pending and cancel():
                raise SimulationCancelled("study cancelled")
    except BaseException:
        for ref in pending:
            ray.cancel(ref)
        raise

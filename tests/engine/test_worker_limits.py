"""Each pool worker is capped by the OS: a run that allocates beyond the memory cap, or loops
beyond the CPU cap without ever polling for a cancel, stops with a message; within the caps
runs finish as before."""

from __future__ import annotations

import pytest

from engine.budget import WorkerLimits
from engine.config import PolicySpec, ScenarioConfig
from engine.errors import EngineError
from engine.study.executors import run_tasks
from engine.study.spec import RunSpec

SPEC = RunSpec(ScenarioConfig(policies=(PolicySpec("fifo"),)), "base", 0, 0, "")


def allocate_a_gib(spec: RunSpec, payload) -> int:
    return len(bytearray(1024**3))


def spin_forever(spec: RunSpec, payload) -> int:
    while True:
        pass


def small(spec: RunSpec, payload) -> int:
    return len(bytearray(1024**2))


@pytest.mark.parametrize(
    ("fn", "limits"),
    [
        (allocate_a_gib, WorkerLimits(memory_bytes=512 * 1024**2)),
        (spin_forever, WorkerLimits(cpu_s=1)),
    ],
)
def test_a_worker_beyond_its_caps_stops_with_a_message(fn, limits: WorkerLimits) -> None:
    with pytest.raises(EngineError, match="a worker process stopped") as info:
        run_tasks([(SPEC, None)], lambda i, r: None, executor="pool", workers=1, fn=fn,
                  limits=limits)  # fmt: skip
    assert limits.describe() in str(info.value)


def test_runs_within_the_caps_finish() -> None:
    done: list[int] = []
    run_tasks([(SPEC, None)] * 2, lambda i, r: done.append(r), executor="pool", workers=2,
              fn=small, limits=WorkerLimits(512 * 1024**2, 60))  # fmt: skip
    assert done == [1024**2, 1024**2]

"""The dashboard's parallel run: the same tables as a serial run, statuses per policy, cancel.

These run the real process pool (the AppTests use the serial executor)."""

from __future__ import annotations

import threading
from pathlib import Path

import pandas as pd
import pytest

from dashboard.parallel_run import PolicyStatus, run_policies
from engine.config import PolicySpec, ScenarioConfig, TraceSpec
from engine.errors import SimulationCancelled
from engine.results import ComparisonResult
from engine.scenario import load_scenario_trace, run_scenario, scenario_specs
from engine.study.executors import execute
from engine.study.progress import ProgressFiles


@pytest.fixture(autouse=True)
def no_seen_run_times(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test orders its runs by the prior alone: run times an earlier test left in
    :mod:`dashboard.run_order`'s memory (a run slowed by load, or by Numba loading its kernels)
    would change which policy a one-worker pool starts first."""
    from dashboard import run_order

    monkeypatch.setattr(run_order, "_seen_s_per_job", {})


TABLES = ("jobs", "segments", "utilization", "decisions")


def _scenario(*policies: PolicySpec, max_jobs: int = 300) -> ScenarioConfig:
    return ScenarioConfig(trace=TraceSpec(max_jobs=max_jobs), policies=policies, seed=3)


def _run(config: ScenarioConfig, **kwargs: object):  # type: ignore[no-untyped-def]
    num_jobs = len(load_scenario_trace(config).jobs)
    runs = run_policies(scenario_specs(config, ""), None, num_jobs, **kwargs)  # type: ignore[arg-type]
    return ComparisonResult.of(config, runs)


@pytest.mark.parametrize("executor", ["pool", "serial"])
def test_parallel_tables_equal_the_serial_run(executor: str) -> None:
    policies = (PolicySpec("fifo"), PolicySpec("las", label="LAS"), PolicySpec("gavel_maxmin"))
    config = _scenario(*policies)
    seen: list[list[PolicyStatus]] = []
    parallel = _run(config, executor=executor, workers=2, on_status=seen.append)
    serial = run_scenario(config)
    assert parallel.policies == serial.policies == ["FIFO", "LAS", "Gavel max-min"]
    assert parallel.trace_notes == serial.trace_notes
    for ours, theirs in zip(parallel.results, serial.results, strict=True):
        for table in TABLES:
            pd.testing.assert_frame_equal(getattr(ours, table), getattr(theirs, table))
        assert ours.summary == theirs.summary
        assert ours.num_decisions == theirs.num_decisions
    assert seen, "no status was reported"
    assert [s.state for s in seen[-1]] == ["done"] * 3
    assert [s.name for s in seen[-1]] == parallel.policies


def test_statuses_move_from_waiting_through_running_to_done() -> None:
    """One worker, two policies: the second waits while the first runs. The whole sample, so
    SRTF runs for several of the caller's quarter-second polls (600 jobs took under 0.25 s
    once the engine got faster, and no poll saw it running)."""
    config = _scenario(PolicySpec("srtf"), PolicySpec("fifo"), max_jobs=2000)
    seen: list[list[PolicyStatus]] = []
    _run(config, executor="pool", workers=1, on_status=seen.append)
    first = [statuses[0].state for statuses in seen]
    second = [statuses[1].state for statuses in seen]
    assert first[-1] == second[-1] == "done"
    assert "done" not in second[: first.index("done")]  # FIFO never finishes before SRTF
    waiting_while_running = [s for s in seen if s[0].state == "running" and s[1].state == "waiting"]
    assert waiting_while_running
    fractions = [s[0].fraction for s in seen if s[0].state != "waiting"]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0


def test_cancel_stops_the_runs() -> None:
    """Two runs of about 6 s each, cancelled after 1 s (SRTF and Gavel max-min, as before,
    now both finish inside that second)."""
    config = _scenario(
        PolicySpec("sampling_placement"), PolicySpec("sampling_placement_exact"), max_jobs=2000
    )
    cancel = threading.Event()
    threading.Timer(1.0, cancel.set).start()
    with pytest.raises(SimulationCancelled):
        _run(config, executor="pool", workers=2, should_cancel=cancel.is_set)


def test_a_worker_stops_when_the_cancel_file_appears(tmp_path: Path) -> None:
    """The worker's side of Cancel: it finds the request at its next check and raises."""
    files = ProgressFiles(tmp_path, every_s=0.0)
    files.request_cancel()
    (spec,) = scenario_specs(_scenario(PolicySpec("fifo"), max_jobs=2000), "")
    with pytest.raises(SimulationCancelled):
        execute(spec, None, files)
    reported = files.read("FIFO")
    assert reported is not None and reported[0] < 1.0  # started, never finished


def test_a_pool_worker_importing_the_app_runs_nothing() -> None:
    """Streamlit installs app.py as ``__main__``, so each pool worker re-imports it as
    ``__mp_main__``; then it must not import Streamlit, draw, or start another pool."""
    import subprocess
    import sys

    app = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"
    code = (
        "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__mp_main__'); "
        "print(sorted(m for m in ('streamlit', 'dashboard.runner') if m in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(app)], capture_output=True, text=True, check=True
    )
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr


def test_the_longest_run_starts_first_and_results_keep_the_scenario_order() -> None:
    """One worker, FIFO listed before hadar: hadar (the slower, dashboard.run_order) runs
    first and FIFO waits; the result lists FIFO first all the same. Statuses come about every
    quarter second, so the evidence is any snapshot with hadar begun or done and FIFO not yet
    begun, or FIFO running after hadar is done (a short run may skip one of these)."""
    config = _scenario(PolicySpec("fifo"), PolicySpec("hadar"), max_jobs=1000)
    seen: list[list[PolicyStatus]] = []
    result = _run(config, executor="pool", workers=1, on_status=seen.append)
    assert result.policies == ["FIFO", "Hadar"]
    assert [s.policy for s in result.results] == ["FIFO", "Hadar"]
    hadar_first = [
        s for s in seen
        if (s[0].state == "waiting" and s[1].state != "waiting")
        or (s[0].state == "running" and s[1].state == "done")
    ]  # fmt: skip
    assert hadar_first, [[x.state for x in s] for s in seen]
    assert not [s for s in seen if s[0].state == "running" and s[1].state == "waiting"]


def test_longest_first_orders_by_seen_time_over_the_prior() -> None:
    from dashboard import run_order

    assert run_order.longest_first(["fifo", "sampling_placement", "las"], 2000) == [1, 2, 0]
    assert run_order.longest_first(["fifo", "no_such_policy"], 2000) == [1, 0]  # the median
    run_order.remember("fifo", elapsed_s=30.0, num_jobs=2000)  # FIFO seen slow in this server
    try:
        assert run_order.longest_first(["fifo", "sampling_placement", "las"], 2000) == [0, 1, 2]
    finally:
        run_order._seen_s_per_job.pop("fifo")


def test_the_pool_warm_up_runs_its_task(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dashboard warms the pool in a thread that swallows errors, so a warm-up whose spec
    is refused (the default scenario's two policies in one run spec) failed unseen and left
    the first Run to start the pool."""
    from dashboard import parallel_run

    ran: list[str] = []
    monkeypatch.setenv(parallel_run.EXECUTOR_ENV, "pool")  # the AppTests' conftest sets serial
    monkeypatch.setattr(
        parallel_run, "run_tasks", lambda tasks, *a, **k: ran.append(tasks[0][0].variant)
    )
    parallel_run.warm_up()
    assert ran == ["warm-up"]

"""Hare's HLAS and offline heuristic: hand-computed schedules, and relaxed-round properties.

Rates come from the throughput matrix: ResNet-50 (batch size 64) on one GPU runs ``r_v`` steps/s
on a V100 and ``r_k`` on a K80, so ``R = r_v / r_k`` (about 7.1) is both the K80's slowdown and
the V100's reference speed (the K80 is the slowest type). Work is written in V100-seconds: a job
of ``W`` V100-seconds has ``W * r_v`` steps and needs ``W`` s on a V100 or ``W * R`` s on a K80.
One-GPU jobs keep the relaxed model trivial: a lone task per round, no sync.
"""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.config import NetworkConfig, PolicySpec, RoundConfig, ScenarioConfig
from engine.errors import ConfigError
from engine.policies.hare.tasks import eft_task_counts
from engine.results import SimulationResult
from engine.simulator import simulate
from engine.step_time.progress import relaxed_round
from engine.step_time.throughput import load_matrix
from tests.engine.helpers import RESNET50, cluster, jobs_frame

MATRIX = load_matrix()
R_V = MATRIX.steps_per_s(RESNET50, "v100", 1)
R_K = MATRIX.steps_per_s(RESNET50, "k80", 1)
R = R_V / R_K
V100_K80 = cluster(("v100", 1, 1, "r0"), ("k80", 1, 1, "r0"))


def by_job(result: SimulationResult, column: str) -> dict[str, float]:
    return dict(zip(result.jobs["job_id"], result.jobs[column], strict=True))


def assert_bars(result: SimulationResult, expected: list[tuple[str, str, float, float]]) -> None:
    """Segments (job, worker type, start, end), by start time then job."""
    rows = result.segments.sort_values(["start_s", "job_id"])
    assert list(zip(rows["job_id"], rows["worker_type"], strict=True)) == [e[:2] for e in expected]
    times = [t for start_end in zip(rows["start_s"], rows["end_s"], strict=True) for t in start_end]
    assert times == pytest.approx([t for e in expected for t in e[2:]])


def test_hlas_serves_least_reference_service_first_on_the_fastest_gpu() -> None:
    """V100 + K80, 100 s rounds, plain LAS, default switch cost c = 0.5 s (the scenario's 30 s
    checkpoint-restore cost is not charged). HLAS re-plans at arrivals, completions and rounds.

    a (150 V100-s of work, t=0) is alone: fastest GPU, V100. b (120 V100-s) arrives at 50 with
    no service while a has 50 R ref-GPU-s (R = r_v / r_k, about 7.1): b takes the V100 and a
    moves to the K80, paying c (b's first start is free). At the round at 100, b (50 R) is still
    below a (50 R + 50): nothing moves. b ends at 50 + 120 = 170. At that completion a, alone,
    moves back to the V100 (paying c) with 100 - (120 - c)/R V100-s left, and ends at
    170 + c + 100 - (120 - c)/R.
    """
    jobs = jobs_frame(("a", 0, RESNET50, 1, 150 * R_V), ("b", 50, RESNET50, 1, 120 * R_V))
    config = ScenarioConfig(cluster=V100_K80, rounds=RoundConfig(round_duration_s=100.0))
    result = simulate(jobs, config, PolicySpec("hare_hlas"), MATRIX)
    c = 0.5
    end_a = 170 + c + 100 - (120 - c) / R
    assert by_job(result, "jct_s") == pytest.approx({"a": end_a, "b": 120.0})
    assert_bars(result, [
        ("a", "v100", 0, 50), ("a", "k80", 50, 170), ("b", "v100", 50, 170),
        ("a", "v100", 170, end_a),
    ])  # fmt: skip
    service = by_job(result, "attained_service_ref_gpu_s")
    assert service == pytest.approx({"a": 50 * R + 120 + (end_a - 170) * R, "b": 120 * R})


def test_hlas_queue_thresholds_keep_fifo_inside_a_queue() -> None:
    """Same jobs, one threshold at 10,000 ref-GPU-s (neither job reaches it): one queue, FIFO.

    a keeps the V100 throughout and ends at 150; b runs on the K80 from 50 (first start, no
    switch cost), doing 100/R V100-s by 150, when a's completion moves it to the V100 (paying
    c = 0.5 s) with 120 - 100/R left: it ends at 150 + c + 120 - 100/R.
    """
    jobs = jobs_frame(("a", 0, RESNET50, 1, 150 * R_V), ("b", 50, RESNET50, 1, 120 * R_V))
    config = ScenarioConfig(cluster=V100_K80, rounds=RoundConfig(round_duration_s=100.0))
    spec = PolicySpec("hare_hlas", {"queue_thresholds_ref_gpu_s": "10000"})
    result = simulate(jobs, config, spec, MATRIX)
    end_b = 150 + 0.5 + 120 - 100 / R
    assert by_job(result, "jct_s") == pytest.approx({"a": 150.0, "b": end_b - 50})


@pytest.mark.parametrize(
    ("name", "params"),
    [("hare_hlas", {"queue_thresholds_ref_gpu_s": "10,5"}), ("hare_hlas", {"switch_cost_s": -1.0}),
     ("hare_offline", {"switch_cost_s": -1.0})],
)  # fmt: skip
def test_bad_knobs_are_rejected_with_the_policy_name(name: str, params: dict[str, object]) -> None:
    jobs = jobs_frame(("a", 0, RESNET50, 1, 100.0))
    with pytest.raises(ConfigError, match=name):
        simulate(jobs, ScenarioConfig(cluster=V100_K80), PolicySpec(name, params), MATRIX)


def test_hlas_relaxed_grant_drops_a_gpu_too_slow_to_take_a_task() -> None:
    """One job, scale factor 2, alone on a V100, a P100 and a K80 (network model off).

    A round is 2 tasks of 1/r_v (V100), 1/r_p (P100), 1/r_k (K80) s. The first goes to the
    V100 (ends at 1/r_v); the second ends earliest on the P100 (1/r_p < 2/r_v < 1/r_k), so the
    K80 would get no task and is not granted. The round's compute is 1/r_p; the sync of two
    workers is the measured consolidated overhead of the slowest type that has one,
    max(2/r_v(2) - 1/r_v, 2/r_p(2) - 1/r_p, 0); the job makes 2 steps a round.
    """
    r_p = MATRIX.steps_per_s(RESNET50, "p100", 1)
    assert 1 / r_p < 2 / R_V < 1 / R_K
    sync_s = max(
        2 / MATRIX.steps_per_s(RESNET50, "v100", 2) - 1 / R_V,
        2 / MATRIX.steps_per_s(RESNET50, "p100", 2) - 1 / r_p,
        0.0,
    )
    steps = 1000.0
    config = ScenarioConfig(
        cluster=cluster(("v100", 1, 1, "r0"), ("p100", 1, 1, "r0"), ("k80", 1, 1, "r0")),
        network=NetworkConfig(enabled=False),
    )
    result = simulate(jobs_frame(("a", 0, RESNET50, 2, steps)), config, PolicySpec("hare_hlas"),
                      MATRIX)  # fmt: skip
    assert result.jobs.loc[0, "jct_s"] == pytest.approx(steps / (2 / (1 / r_p + sync_s)))
    assert sorted(result.segments["worker_type"]) == ["p100", "v100"]
    assert set(result.segments["combine"]) == {"relaxed"}


def test_attained_service_is_counted_in_reference_gpu_seconds() -> None:
    """Two one-GPU jobs at t=0: a on the V100 ends at 100; b does 100/R V100-s on the K80 by
    then, moves to the V100 (c = 0.5 s) and ends at 100 + c + 100 - 100/R. Service per held
    second is R on the V100 and 1 on the K80: a gains 100 R ref-GPU-s, b 100 + (JCT - 100) R,
    while both gain one plain GPU-second per second held."""
    jobs = jobs_frame(("a", 0, RESNET50, 1, 100 * R_V), ("b", 0, RESNET50, 1, 100 * R_V))
    config = ScenarioConfig(cluster=V100_K80, rounds=RoundConfig(round_duration_s=10_000.0))
    result = simulate(jobs, config, PolicySpec("hare_hlas"), MATRIX)
    jct_b = 100 + 0.5 + 100 - 100 / R
    assert by_job(result, "jct_s") == pytest.approx({"a": 100.0, "b": jct_b})
    assert by_job(result, "attained_service_gpu_s") == pytest.approx({"a": 100.0, "b": jct_b})
    ref = by_job(result, "attained_service_ref_gpu_s")
    assert ref == pytest.approx({"a": 100 * R, "b": 100 + (jct_b - 100) * R})


def with_weights(jobs: pd.DataFrame, weights: dict[str, float]) -> pd.DataFrame:
    frame = jobs.copy()
    frame["priority_weight"] = frame["job_id"].map(weights)
    return frame


def test_offline_orders_by_weighted_shortest_work() -> None:
    """V100 + K80, switch cost 0, all jobs at t=0: a 300, b 100, c 200 V100-s; c weighs 4.

    Weight / work: c 4/200 > b 1/100 > a 1/300. c takes the V100 (ends 200), b the K80; a finds
    both busy for far longer than a task and waits. At 200 (c done) b has 100 - 200/R left:
    it moves to the V100 and ends at 300 - 200/R; a takes the K80. When b ends, a moves to the
    V100 with 300 - (100 - 200/R)/R left.
    """
    jobs = jobs_frame(
        ("a", 0, RESNET50, 1, 300 * R_V), ("b", 0, RESNET50, 1, 100 * R_V),
        ("c", 0, RESNET50, 1, 200 * R_V),
    )  # fmt: skip
    jobs = with_weights(jobs, {"a": 1.0, "b": 1.0, "c": 4.0})
    config = ScenarioConfig(cluster=V100_K80)
    result = simulate(jobs, config, PolicySpec("hare_offline", {"switch_cost_s": 0.0}), MATRIX)
    end_b = 300 - 200 / R
    end_a = end_b + 300 - (end_b - 200) / R
    assert by_job(result, "jct_s") == pytest.approx({"a": end_a, "b": end_b, "c": 200.0})
    assert_bars(result, [
        ("b", "k80", 0, 200), ("c", "v100", 0, 200), ("a", "k80", 200, end_b),
        ("b", "v100", 200, end_b), ("a", "v100", end_b, end_a),
    ])  # fmt: skip


@pytest.mark.parametrize("wait", [True, False])
def test_offline_waits_for_a_busy_faster_gpu_that_frees_up_soon_enough(wait: bool) -> None:
    """V100 + K80, default switch cost c = 0.5 s. a (100 V100-s, t=0) runs on the V100 to 100.

    b (50 V100-s) arrives at 99.5; a (0.5 V100-s left) stays first. b's one task would end at
    99.5 + 1/r_k on the free K80 but at 100 + 1/r_v on the V100 once a ends, which is earlier:
    b waits, gets the V100 at 100 (its first start, no switch cost) and ends at 150.
    Without waiting, b starts on the K80 at 99.5, does 0.5/R V100-s, moves to the V100 at 100,
    pays c and ends at 100 + c + 50 - 0.5/R.
    """
    assert 100 + 1 / R_V < 99.5 + 1 / R_K
    jobs = jobs_frame(("a", 0, RESNET50, 1, 100 * R_V), ("b", 99.5, RESNET50, 1, 50 * R_V))
    spec = PolicySpec("hare_offline", {"wait_for_faster": wait})
    result = simulate(jobs, ScenarioConfig(cluster=V100_K80), spec, MATRIX)
    end_b = 150.0 if wait else 100 + 0.5 + 50 - 0.5 / R
    assert by_job(result, "jct_s") == pytest.approx({"a": 100.0, "b": end_b - 99.5})
    assert (set(result.segments["worker_type"]) == {"v100"}) is wait


def test_offline_keeps_a_running_job_on_its_gpus() -> None:
    """A later, longer job does not displace a running one: no preemption, no switch cost."""
    jobs = jobs_frame(("a", 0, RESNET50, 1, 100 * R_V), ("b", 10, RESNET50, 1, 500 * R_V))
    result = simulate(jobs, ScenarioConfig(cluster=V100_K80), PolicySpec("hare_offline"), MATRIX)
    assert by_job(result, "num_preemptions") == {"a": 0, "b": 1}
    assert by_job(result, "jct_s")["a"] == pytest.approx(100.0)


task_times = st.lists(st.floats(0.01, 100.0, allow_nan=False), min_size=1, max_size=8)


@given(task_s=task_times, num_tasks=st.integers(0, 40))
def test_relaxed_round_schedules_every_task_once_without_overlap(
    task_s: list[float], num_tasks: int
) -> None:
    plan = relaxed_round(task_s, num_tasks)
    assert len(plan.tasks) == num_tasks
    for task in plan.tasks:
        assert 0 <= task.gpu < len(task_s)
        assert task.end_s - task.start_s == pytest.approx(task_s[task.gpu])
        assert task.start_s >= 0
        assert plan.compute_s >= task.end_s
    for gpu in range(len(task_s)):
        runs = sorted((t.start_s, t.end_s) for t in plan.tasks if t.gpu == gpu)
        for (_, end), (start, _) in zip(runs, runs[1:], strict=False):
            assert start >= end - 1e-9
    if plan.tasks:
        assert plan.compute_s == max(t.end_s for t in plan.tasks)


@given(task_s=task_times, num_tasks=st.integers(0, 40), data=st.data())
def test_eft_with_ready_times_matches_relaxed_round_when_all_are_free(
    task_s: list[float], num_tasks: int, data: st.DataObject
) -> None:
    """With every GPU ready at 0 the ready-time variant gives the relaxed round's task counts;
    delaying a GPU never gives it more tasks."""
    plan = relaxed_round(task_s, num_tasks)
    counts = eft_task_counts([0.0] * len(task_s), task_s, num_tasks)
    assert counts == [sum(t.gpu == g for t in plan.tasks) for g in range(len(task_s))]
    late = data.draw(st.integers(0, len(task_s) - 1))
    ready = [0.0] * len(task_s)
    ready[late] = data.draw(st.floats(0.0, 1000.0))
    assert eft_task_counts(ready, task_s, num_tasks)[late] <= counts[late]
    assert sum(eft_task_counts(ready, task_s, num_tasks)) == num_tasks


def test_hlas_reuses_the_previous_allocation_only_when_dispatch_would_repeat_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A busy mixed cluster (20 jobs of 1-4 GPUs on 4 V100 + 4 K80, 50 s rounds): the tables with
    the previous-decision memo equal those of dispatching at every decision, and the memo is
    used (fewer dispatches than decisions)."""
    from engine.policies.hare.hlas import HareHlas

    rows = [(f"j{i}", 37.0 * i, RESNET50, (1, 2, 4)[i % 3], (300 + 97 * (i % 7)) * R_V)
            for i in range(20)]  # fmt: skip
    jobs = jobs_frame(*rows)
    config = ScenarioConfig(
        cluster=cluster(("v100", 1, 4, "r0"), ("k80", 1, 4, "r0")),
        rounds=RoundConfig(round_duration_s=50.0),
    )
    dispatch = HareHlas._dispatch
    calls: list[int] = []

    def counted(self: HareHlas, *args: object) -> object:
        calls.append(1)
        return dispatch(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(HareHlas, "_dispatch", counted)
    memo = simulate(jobs, config, PolicySpec("hare_hlas"), MATRIX)
    assert 0 < len(calls) < memo.num_decisions
    allocate = HareHlas.allocate

    def fresh(self: HareHlas, state: object) -> object:
        self._last = ([], {})  # forget the previous decision: always dispatch
        return allocate(self, state)  # type: ignore[arg-type]

    monkeypatch.setattr(HareHlas, "allocate", fresh)
    plain = simulate(jobs, config, PolicySpec("hare_hlas"), MATRIX)
    for table in ("jobs", "segments"):
        pd.testing.assert_frame_equal(getattr(memo, table), getattr(plain, table))

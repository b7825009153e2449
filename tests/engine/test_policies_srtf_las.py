"""SRTF and Tiresias LAS on one GPU: hand-computed schedules.

Every expected time is derived here from the policy's rule; rates come from the throughput
matrix (ResNet-50 bs64 on one V100), so a job of ``d * rate`` steps needs ``d`` seconds alone.
"""

from __future__ import annotations

import pytest

from engine.config import PolicySpec, RoundConfig, ScenarioConfig
from engine.errors import ConfigError
from engine.policies.las.keys import parse_thresholds
from engine.simulator import simulate
from engine.step_time.throughput import load_matrix
from tests.engine.helpers import RESNET50, cluster, jobs_frame

MATRIX = load_matrix()
RATE = MATRIX.steps_per_s(RESNET50, "v100", 1)


def one_gpu(**rounds: object) -> ScenarioConfig:
    return ScenarioConfig(
        cluster=cluster(("v100", 1, 1, "r0")),
        rounds=RoundConfig(**rounds),  # type: ignore[arg-type]
    )


def jcts(result: object) -> dict[str, float]:
    jobs = result.jobs  # type: ignore[attr-defined]
    return dict(zip(jobs["job_id"], jobs["jct_s"], strict=True))


@pytest.mark.parametrize("restore_s", [0.0, 30.0])
def test_srtf_short_job_preempts_long_one(restore_s: float) -> None:
    """a needs 1000 s from t=0; b needs 200 s and arrives at t=100.

    At t=100 a has 900 s left > 200 s, so b preempts it: b runs 100..300 (its first start pays
    no restore), JCT_b = 200. a restarts at 300, restores until 300 + r, finishes at
    300 + r + 900: JCT_a = 1200 + r (r = 0 or 30 s).
    """
    jobs = jobs_frame(("a", 0, RESNET50, 1, 1000 * RATE), ("b", 100, RESNET50, 1, 200 * RATE))
    result = simulate(jobs, one_gpu(checkpoint_restore_s=restore_s), PolicySpec("srtf"), MATRIX)
    assert jcts(result) == pytest.approx({"a": 1200 + restore_s, "b": 200.0})
    assert result.jobs.set_index("job_id")["num_preemptions"].to_dict() == {"a": 1, "b": 0}


def test_srtf_long_job_arriving_later_does_not_preempt() -> None:
    """b (1000 s) arrives at t=100 while a has 100 s left: a keeps the GPU; b waits until 200."""
    jobs = jobs_frame(("a", 0, RESNET50, 1, 200 * RATE), ("b", 100, RESNET50, 1, 1000 * RATE))
    result = simulate(jobs, one_gpu(), PolicySpec("srtf"), MATRIX)
    assert jcts(result) == pytest.approx({"a": 200.0, "b": 1100.0})


def test_srtf_picks_the_fastest_worker_type() -> None:
    """One V100 and one K80: the lone job goes to the V100 (ResNet-50 runs faster there)."""
    config = ScenarioConfig(cluster=cluster(("k80", 1, 1, "r0"), ("v100", 1, 1, "r0")))
    result = simulate(jobs_frame(("a", 0, RESNET50, 1, 100)), config, PolicySpec("srtf"), MATRIX)
    assert result.segments["worker_type"].tolist() == ["v100"]


def test_las_time_slices_by_queue_threshold() -> None:
    """Threshold 300 GPU-s, 100 s rounds, no promotion, no restore cost.

    a (1000 s, t=0) runs alone, then with b (500 s, t=50) waiting in queue 0 FIFO keeps a first
    until a's service reaches 300 GPU-s at t=300 (queue 1). b runs 300..600 and drops to queue
    1 too; FIFO in queue 1 gives the GPU back to a, which finishes at 600 + 700 = 1300; b
    resumes and finishes at 1300 + 200 = 1500. JCT_a = 1300, JCT_b = 1450.
    """
    jobs = jobs_frame(("a", 0, RESNET50, 1, 1000 * RATE), ("b", 50, RESNET50, 1, 500 * RATE))
    spec = PolicySpec("las", {"queue_thresholds_gpu_s": "300", "promote_knob": 0.0})
    result = simulate(jobs, one_gpu(round_duration_s=100.0, checkpoint_restore_s=0.0), spec, MATRIX)
    assert jcts(result) == pytest.approx({"a": 1300.0, "b": 1450.0})
    bars = result.segments.sort_values("start_s")
    assert bars["job_id"].tolist() == ["a", "b", "a", "b"]
    assert bars["start_s"].tolist() == pytest.approx([0, 300, 600, 1300])


def test_las_promotion_turns_starvation_into_round_robin() -> None:
    """Threshold 100 GPU-s, knob 1, 100 s rounds: a and b (950 s each, t=0) alternate.

    a runs 0..100 and drops to queue 1; b runs 100..200. At t=200 a has waited 100 s >= 1 x its
    last run (100 s): promoted to queue 0, it runs 200..300, and so on. a's tenth slice is
    1800..1850 and completes it; b (nine slices done) takes the freed GPU and ends at 1900.
    Without promotion a runs 200..1050 straight and b 1050..1900.
    """
    jobs = jobs_frame(("a", 0, RESNET50, 1, 950 * RATE), ("b", 0, RESNET50, 1, 950 * RATE))
    config = one_gpu(round_duration_s=100.0, checkpoint_restore_s=0.0)
    promoted = PolicySpec("las", {"queue_thresholds_gpu_s": "100", "promote_knob": 1.0})
    starved = PolicySpec("las", {"queue_thresholds_gpu_s": "100", "promote_knob": 0.0})
    assert jcts(simulate(jobs, config, promoted, MATRIX)) == pytest.approx({"a": 1850, "b": 1900})
    assert jcts(simulate(jobs, config, starved, MATRIX)) == pytest.approx({"a": 1050, "b": 1900})


def test_las_threshold_parsing() -> None:
    assert parse_thresholds("3600, 36000") == (3600.0, 36000.0)
    assert parse_thresholds("") == ()
    for bad in ("x", "0", "10,5", "5,5"):
        with pytest.raises(ConfigError):
            parse_thresholds(bad)


def test_srsf_ranks_by_remaining_time_times_gpus() -> None:
    """One 8-GPU V100 node. a: 1 GPU, 1000 s; b: 8 GPUs, 200 s; both at t=0.

    SRTF serves b first (200 < 1000): b runs 0..200, then a 200..1200. SRSF weighs remaining
    time by GPUs (a: 1000 x 1 = 1000 < b: 200 x 8 = 1600): a runs 0..1000, b cannot fit beside
    it (7 GPUs free) and runs 1000..1200.
    """
    rate_8 = MATRIX.steps_per_s(RESNET50, "v100", 8)
    jobs = jobs_frame(("a", 0, RESNET50, 1, 1000 * RATE), ("b", 0, RESNET50, 8, 200 * rate_8))
    node = ScenarioConfig(cluster=cluster(("v100", 1, 8, "r0")))
    srtf = simulate(jobs, node, PolicySpec("srtf"), MATRIX)
    assert jcts(srtf) == pytest.approx({"a": 1200.0, "b": 200.0})
    srsf = simulate(jobs, node, PolicySpec("srsf"), MATRIX)
    assert jcts(srsf) == pytest.approx({"a": 1000.0, "b": 1200.0})
    assert srsf.policy == "SRSF"


@pytest.mark.parametrize("requeue", [False, True])
def test_las_requeue_keeps_running_jobs_ahead_of_waiting_ones(requeue: bool) -> None:
    """One 2-GPU node, one queue, rounds of 100 s at boundaries only, no restore cost.
    a: 1 GPU, 150 s; b: 2 GPUs, 300 s; c: 1 GPU, 950 s; all at t=0 (index order a, b, c).

    t=0: a and c start; b (2 GPUs) finds 1 free and waits. a ends at 150. At t=200:
    - FIFO by arrival: b (older) comes before c: b takes both GPUs (200..500), c is preempted
      with 200 s done and ends at 500 + 750 = 1250.
    - requeue (Tiresias' and Muri's code): waiting b moved behind the running jobs after the
      first decision, so c keeps its GPU and ends at 950; b starts at the boundary at 1000
      and ends at 1300.
    """
    rate_2 = MATRIX.steps_per_s(RESNET50, "v100", 2)
    jobs = jobs_frame(
        ("a", 0, RESNET50, 1, 150 * RATE), ("b", 0, RESNET50, 2, 300 * rate_2),
        ("c", 0, RESNET50, 1, 950 * RATE),
    )  # fmt: skip
    config = ScenarioConfig(
        cluster=cluster(("v100", 1, 2, "r0")),
        rounds=RoundConfig(round_duration_s=100.0, admit_mid_round=False, checkpoint_restore_s=0),
    )
    params = {"queue_thresholds_gpu_s": "", "promote_knob": 0.0, "requeue": requeue}
    result = simulate(jobs, config, PolicySpec("las", params), MATRIX)
    expected = {"a": 150.0, "c": 950.0, "b": 1300.0} if requeue else {
        "a": 150.0, "b": 500.0, "c": 1250.0
    }  # fmt: skip
    assert jcts(result) == pytest.approx(expected)

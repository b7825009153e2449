"""The doubling heuristic (Capes et al., arXiv 2019) and its one-GPU-per-job baseline.

Hand-computed decisions on one 4-GPU V100 node, where every placement is node-local so the
engine's speed is Gavel's measurement: ResNet-50 (batch size 64) runs at r1 = 4.39477,
r2 = 7.92205, r4 = 9.45195 steps/s on 1, 2, 4 V100s. Job A (12,000 steps) arrives at 0 s, job
B (2,000 steps) at 500 s. The heuristic's cases set a vast gradient noise scale (``PERFECT``), so
that growing a job's batch costs no statistical efficiency and the speeds are the measured ones;
the default efficiency has its own case.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.config import (
    ClusterSpec,
    NetworkConfig,
    NodeGroup,
    PolicySpec,
    RoundConfig,
    ScenarioConfig,
)
from engine.policies.base import PolicyContext
from engine.policies.doubling import RingSpeed
from engine.simulator import simulate
from engine.state import JobState
from engine.step_time.throughput import gradient_bytes, load_matrix
from tests.engine.helpers import RESNET50, cluster, jobs_frame

MATRIX = load_matrix()
R1, R2, R4 = (MATRIX.steps_per_s(RESNET50, "v100", n) for n in (1, 2, 4))
ONE_NODE = cluster(("v100", 1, 4, "r0"))
TWO_JOBS = jobs_frame(("A", 0.0, RESNET50, 1, 12_000.0), ("B", 500.0, RESNET50, 1, 2_000.0))
PERFECT = 1e12  # noise_scale_ratio at which a bigger batch is as sample-efficient as the request


def _run(restore_s: float, params: dict[str, float] | None = None) -> pd.DataFrame:
    config = ScenarioConfig(cluster=ONE_NODE, rounds=RoundConfig(checkpoint_restore_s=restore_s))
    spec = PolicySpec("doubling", {"noise_scale_ratio": PERFECT, **(params or {})})
    return simulate(TWO_JOBS, config, spec, MATRIX).segments


def test_the_default_statistical_efficiency_stops_growth_where_progress_stops_rising() -> None:
    """Default noise_scale_ratio r = 1: on n GPUs a one-GPU job's batch is n-fold, so its
    progress is r_n (1 + r) / (r + n): 2 r2 / 3 = 5.28 on 2 GPUs beats r1 = 4.39, but 2 r4 / 5 =
    3.78 on 4 does not beat 5.28. A alone stays on 2 GPUs: JCT = 12000 / (2 r2 / 3) s."""
    jobs = jobs_frame(("A", 0.0, RESNET50, 1, 12_000.0))
    result = simulate(jobs, ScenarioConfig(cluster=ONE_NODE), PolicySpec("doubling"), MATRIX)
    assert result.segments["num_gpus"].tolist() == [2]
    assert result.jobs["jct_s"].iloc[0] == pytest.approx(12_000.0 / (2 * R2 / 3))


def _sizes(segments: pd.DataFrame, job_id: str) -> list[int]:
    return segments[segments["job_id"] == job_id].sort_values("start_s")["num_gpus"].tolist()


def _jct(segments: pd.DataFrame, job_id: str, arrival_s: float) -> float:
    return float(segments[segments["job_id"] == job_id]["end_s"].max()) - arrival_s


def test_with_no_restart_cost_a_job_doubles_back_when_gpus_free_up() -> None:
    """Restart cost 0.

    t=0: A alone gets 1 GPU, doubles to 2 and 4 (each doubling saves time). t=500: A and B get
    1 GPU each; the two remaining GPUs go one to each (A's 2 -> 4 no longer fits), so A runs on
    2 (done 500 r4 = 4,726 steps) and B on 2. B ends at 500 + 2000/r2 = 752.46 s (JCT 252.46 s),
    when A has done 4,726 + 2,000 steps. A alone again doubles 1 -> 2 -> 4 and ends after
    (12000 - 500 r4 - 2000)/r4 = 557.96 s: JCT_A = 2000/r2 + 10000/r4 = 1,310.44 s.
    """
    segments = _run(restore_s=0.0)
    assert _sizes(segments, "A") == [4, 2, 4]
    assert _sizes(segments, "B") == [2]
    assert _jct(segments, "B", 500.0) == pytest.approx(2000 / R2)
    assert _jct(segments, "A", 0.0) == pytest.approx(2000 / R2 + 10_000 / R4)
    assert _jct(segments, "A", 0.0) == pytest.approx(1310.44, abs=0.01)


def test_a_large_restart_cost_keeps_the_size() -> None:
    """Restart cost 200 s (scenario and heuristic).

    t=500: as above, but A's shrink to 2 GPUs costs 200 s, so by B's end (752.46 s) A has done
    500 r4 + 52.46 r2 = 5,141.8 steps. Doubling A 2 -> 4 would save 6,858.2 (1/r2 - 1/r4) =
    140.1 s, less than the 200 s restart: A keeps its 2 GPUs and ends at
    700 + (12000 - 500 r4)/r2, JCT_A = 1,618.19 s. B's JCT is 252.46 s as before.
    """
    segments = _run(restore_s=200.0)
    assert _sizes(segments, "A") == [4, 2]
    assert _sizes(segments, "B") == [2]
    saving_s = (12_000 - 500 * R4 - (2000 / R2 - 200) * R2) * (1 / R2 - 1 / R4)
    assert saving_s == pytest.approx(140.1, abs=0.1)
    assert _jct(segments, "B", 500.0) == pytest.approx(2000 / R2)
    assert _jct(segments, "A", 0.0) == pytest.approx(700 + (12_000 - 500 * R4) / R2)
    assert _jct(segments, "A", 0.0) == pytest.approx(1618.19, abs=0.01)


def test_the_restart_cost_knob_weighs_decisions_while_the_engine_charges_the_scenario() -> None:
    """Heuristic weighs 200 s, scenario charges 0 s: A keeps 2 GPUs after B ends (5,273.8
    remaining steps save 107.8 s < 200 s) and pays no restore: JCT_A = 500 + (12000 - 500
    r4)/r2 = 1,418.19 s."""
    segments = _run(restore_s=0.0, params={"restart_cost_s": 200.0})
    assert _sizes(segments, "A") == [4, 2]
    assert _jct(segments, "A", 0.0) == pytest.approx(500 + (12_000 - 500 * R4) / R2)


def test_the_speed_estimate_is_the_engines_rate_across_nodes() -> None:
    """A job alone on two 4-GPU nodes of one rack grows to 8 GPUs (level "rack"); its run time
    is total_steps / the estimate, so the estimate matches the engine's ring model."""
    two_nodes = cluster(("v100", 2, 4, "r0"))
    jobs = jobs_frame(("A", 0.0, RESNET50, 1, 5_000.0))
    spec = PolicySpec("doubling", {"noise_scale_ratio": PERFECT})
    result = simulate(jobs, ScenarioConfig(cluster=two_nodes), spec, MATRIX)
    assert result.segments["num_gpus"].tolist() == [8]
    assert result.segments["level"].tolist() == ["rack"]
    job = JobState(0, "A", 0.0, RESNET50, 1, 5_000.0, 1.0, {}, gradient_bytes(RESNET50))
    context = PolicyContext(
        two_nodes, RoundConfig(), np.random.default_rng(0), NetworkConfig(), MATRIX
    )
    speed = RingSpeed(context, noise_scale_ratio=PERFECT).steps_per_s(job, "v100", 8, 0.0)
    assert speed < MATRIX.steps_per_s(RESNET50, "v100", 8)  # the 25 Gb/s hop costs time
    assert result.jobs["jct_s"].iloc[0] == pytest.approx(5_000.0 / speed)
    default = RingSpeed(context).steps_per_s(job, "v100", 8, 0.0)
    assert default == pytest.approx(speed * 2 / 9)  # (1 + r) / (r + 8) with r = 1


def test_max_gpus_per_job_caps_the_size() -> None:
    jobs = jobs_frame(("A", 0.0, RESNET50, 1, 1_000.0))
    config = ScenarioConfig(cluster=ONE_NODE)
    params = {"max_gpus_per_job": 3, "noise_scale_ratio": PERFECT}
    result = simulate(jobs, config, PolicySpec("doubling", params), MATRIX)
    assert result.segments["num_gpus"].tolist() == [2]
    assert result.jobs["jct_s"].iloc[0] == pytest.approx(1_000.0 / R2)


def test_a_job_type_measured_on_one_gpu_only_is_not_grown() -> None:
    jobs = jobs_frame(("A", 0.0, "A3C", 1, 1_000.0))
    result = simulate(jobs, ScenarioConfig(cluster=ONE_NODE), PolicySpec("doubling"), MATRIX)
    assert result.segments["num_gpus"].tolist() == [1]


def test_one_gpu_per_job_runs_jobs_on_one_gpu_in_arrival_order() -> None:
    """Two 4-GPU jobs and a single V100: A runs 0 .. 1000/r1, then B runs on the same GPU."""
    jobs = jobs_frame(("A", 0.0, RESNET50, 4, 1_000.0), ("B", 1.0, RESNET50, 4, 1_000.0))
    one_gpu = cluster(("v100", 1, 1, "r0"))
    result = simulate(jobs, ScenarioConfig(cluster=one_gpu), PolicySpec("one_gpu_per_job"), MATRIX)
    assert result.segments["num_gpus"].tolist() == [1, 1]
    completion = result.jobs.set_index("job_id")["completion_s"]
    assert completion["A"] == pytest.approx(1_000.0 / R1)
    assert completion["B"] == pytest.approx(2_000.0 / R1)


JOB_TYPES = [
    RESNET50,
    "ResNet-50 (batch size 128)",
    "Transformer (batch size 32)",
    "A3C",
    "LM (batch size 20)",
]


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[pd.DataFrame, ScenarioConfig, int]:
    groups = draw(
        st.lists(
            st.builds(
                NodeGroup,
                worker_type=st.sampled_from(["v100", "k80"]),
                nodes=st.integers(1, 3),
                gpus_per_node=st.sampled_from([1, 2, 4, 8]),
                rack=st.sampled_from(["r0", "r1"]),
            ),
            min_size=1,
            max_size=3,
        )
    )
    spec = ClusterSpec(tuple(groups))
    rows = []
    for i in range(draw(st.integers(1, 8))):
        job_type = draw(st.sampled_from(JOB_TYPES))
        scale_factor = draw(st.sampled_from([1, 2, 4]))
        if any(
            cap >= scale_factor and MATRIX.steps_per_s(job_type, wt, scale_factor) > 0
            for wt, cap in spec.capacity().items()
        ):
            arrival = draw(st.floats(0, 3000))
            rows.append((f"j{i}", arrival, job_type, scale_factor, draw(st.floats(50, 5000))))
    if not rows:
        rows.append(("j0", 0.0, "A3C", 1, 100.0))
    rounds = RoundConfig(checkpoint_restore_s=draw(st.sampled_from([0.0, 30.0])))
    config = ScenarioConfig(cluster=spec, rounds=rounds)
    return jobs_frame(*rows), config, draw(st.sampled_from([0, 2, 4]))


def _useful(job_type: str, scale_factor: int, worker_type: str, n: int, cap: int) -> bool:
    """The module docstring's rule for the largest useful size, and a non-zero speed."""
    measured = sorted(MATRIX.table[job_type][worker_type])
    limit = scale_factor if measured == [1] else math.inf
    return (
        n <= limit and (cap == 0 or n <= cap) and MATRIX.steps_per_s(job_type, worker_type, n) > 0
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=scenarios())
def test_doubling_grants_powers_of_two_a_job_can_use_within_capacity(
    data: tuple[pd.DataFrame, ScenarioConfig, int],
) -> None:
    jobs, config, cap = data
    params = {"max_gpus_per_job": cap}
    result = simulate(jobs, config, PolicySpec("doubling", params), MATRIX)
    segments = result.segments.merge(jobs[["job_id", "job_type", "scale_factor"]], on="job_id")
    for row in segments.itertuples():
        n = int(row.num_gpus)
        assert n & (n - 1) == 0, f"size {n} is not a power of two"
        assert _useful(str(row.job_type), int(row.scale_factor), str(row.worker_type), n, cap)
    capacity = config.cluster.capacity()
    for worker_type, rows in segments.groupby("worker_type"):
        events = sorted(
            [(t, 0, -n) for t, n in zip(rows["end_s"], rows["num_gpus"], strict=True)]
            + [(t, 1, n) for t, n in zip(rows["start_s"], rows["num_gpus"], strict=True)]
        )
        held = 0
        for _, _, delta in events:
            held += delta
            assert held <= capacity[str(worker_type)]
    assert result.jobs["completion_s"].notna().all()


def test_the_speed_of_a_job_type_depends_on_the_jobs_scale_factor() -> None:
    """Two ResNet-50 jobs on 2 V100s of one node: the one that asked for 1 GPU runs a 2-fold
    batch at efficiency (1 + 1) / (1 + 2) = 2/3, the one that asked for 2 at full efficiency,
    whichever the estimate was asked about first."""
    context = PolicyContext(
        ONE_NODE, RoundConfig(), np.random.default_rng(0), NetworkConfig(), MATRIX
    )
    speed = RingSpeed(context)
    grad = gradient_bytes(RESNET50)
    one = JobState(0, "A", 0.0, RESNET50, 1, 1_000.0, 1.0, {}, grad)
    two = JobState(1, "B", 0.0, RESNET50, 2, 1_000.0, 1.0, {}, grad)
    assert speed.steps_per_s(one, "v100", 2, 0.0) == pytest.approx(R2 * 2 / 3)
    assert speed.steps_per_s(two, "v100", 2, 0.0) == pytest.approx(R2)

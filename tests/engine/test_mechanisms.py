"""The engine's general mechanisms for heterogeneity-aware policies, with scripted policies.

Each test registers a tiny policy that always asks for the same grant, so the engine's step-time
model of each combine mode (engine/step_time/progress.py) can be checked against numbers computed
by hand
from the throughput matrix. ResNet-50 one-GPU speeds: v100 r_v = 4.3948, k80 r_k = 0.6190
steps/s; two V100s measured at 7.9221 steps/s (Gavel's table).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config import NetworkConfig, PolicySpec, ScenarioConfig
from engine.errors import AllocationError
from engine.policies import base
from engine.policies.fifo import Fifo
from engine.results import SimulationResult
from engine.simulator import simulate
from engine.step_time.progress import statistical_efficiency
from engine.step_time.throughput import gradient_bytes, load_matrix
from tests.engine.helpers import RESNET50, cluster, jobs_frame

MATRIX = load_matrix()
R_V = MATRIX.steps_per_s(RESNET50, "v100", 1)
R_K = MATRIX.steps_per_s(RESNET50, "k80", 1)
SYNC_V2 = 2 / MATRIX.steps_per_s(RESNET50, "v100", 2) - 1 / R_V  # measured 2-GPU sync (s)
SYNC_K2 = 2 / MATRIX.steps_per_s(RESNET50, "k80", 2) - 1 / R_K
V100_K80 = cluster(("v100", 1, 1, "r0"), ("k80", 1, 1, "r0"))  # nodes n0 (v100), n1 (k80)
NO_NETWORK = NetworkConfig(enabled=False)


@pytest.fixture
def scripted() -> Iterator[list[base.Grant]]:
    """Registers policy "scripted", which grants every waiting job ``grants[0]``."""
    grants: list[base.Grant] = []

    class Scripted(Fifo):
        def allocate(self, state: base.SchedulerState) -> base.Allocation:
            return {job.index: grants[0] for job in state.waiting}

    base.POLICIES.register("scripted", Scripted)
    yield grants
    base.POLICIES.unregister("scripted")


def _run(grant: base.Grant, grants: list[base.Grant], steps: float = 1000.0) -> SimulationResult:
    grants.append(grant)
    config = ScenarioConfig(cluster=V100_K80, network=NO_NETWORK)
    jobs = jobs_frame(("a", 0, RESNET50, 2, steps))
    return simulate(jobs, config, PolicySpec("scripted"), MATRIX)


V100, K80 = base.Part("v100", 1), base.Part("k80", 1)


def test_a_mixed_gang_runs_at_the_slowest_workers_pace(scripted: list[base.Grant]) -> None:
    """Lockstep: each iteration = the K80's worker-batch (1/r_k) + the slower type's measured
    2-GPU sync; 2 steps per iteration. JCT = 1000 / (2 / (1/r_k + sync_k2))."""
    result = _run(base.Grant.of_parts([V100, K80], "gang"), scripted)
    expected = 1000 * (1 / R_K + max(SYNC_V2, SYNC_K2)) / 2
    assert result.jobs.loc[0, "jct_s"] == pytest.approx(expected)


def test_proportional_shares_add_the_workers_throughputs(scripted: list[base.Grant]) -> None:
    """Batch shares by throughput: the global batch of 2 worker-batches takes 2/(r_v + r_k)."""
    result = _run(base.Grant.of_parts([V100, K80], "proportional"), scripted)
    expected = 1000 * (2 / (R_V + R_K) + max(SYNC_V2, SYNC_K2)) / 2
    assert result.jobs.loc[0, "jct_s"] == pytest.approx(expected)


def test_relaxed_tasks_skip_a_gpu_too_slow_to_help(scripted: list[base.Grant]) -> None:
    """Hare: 2 tasks per round; both finish sooner on the V100 in turn (2/r_v = 0.46 s) than
    one on the K80 (1/r_k = 1.6 s), so the round is 2/r_v with no sync: JCT = 1000 / r_v."""
    result = _run(base.Grant.of_parts([V100, K80], "relaxed"), scripted)
    assert result.jobs.loc[0, "jct_s"] == pytest.approx(1000 / R_V)
    assert result.jobs.loc[0, "comm_overhead"] == 0.0


def test_copies_add_their_speeds_and_pay_consolidation_each_round(
    scripted: list[base.Grant],
) -> None:
    """HadarE: copies on n0 (v100) and n1 (k80) of a 2-GPU job (so the global batch is the
    requested one: no statistical-efficiency loss) advance one counter at r_v + r_k; with the
    network off the consolidation costs gradient transfer at the intra-rack 25 Gb/s,
    c = 8 * grad / 25e9 s, per 360 s round (fixed part 0), and once more after the last step:
    JCT = 1000 / ((r_v + r_k)(1 - c / 360)) + c."""
    grant = base.Grant.of_parts([base.Part("v100", 1, 0), base.Part("k80", 1, 1)], "copies")
    result = _run(grant, scripted)
    consolidation_s = gradient_bytes(RESNET50) * 8 / 25e9
    expected = 1000 / ((R_V + R_K) * (1 - consolidation_s / 360)) + consolidation_s
    assert result.jobs.loc[0, "jct_s"] == pytest.approx(expected)
    lanes = result.segments
    assert list(lanes["nodes"]) == ["n0", "n1"] and list(lanes["lane"]) == [0, 1]
    assert (lanes["end_s"] == result.jobs.loc[0, "completion_s"]).all()


def test_a_copy_pinned_to_a_node_of_another_type_is_rejected(scripted: list[base.Grant]) -> None:
    grant = base.Grant.of_parts([base.Part("v100", 1, 1)], "copies")
    with pytest.raises(AllocationError, match="pinned"):
        _run(grant, scripted)


def test_attained_service_counts_reference_gpu_seconds(scripted: list[base.Grant]) -> None:
    """One V100 counts r_v / r_k reference GPUs (the K80 is the slowest type)."""
    result = _run(base.Grant("v100", 1), scripted)
    job = result.jobs.loc[0]
    assert job["attained_service_gpu_s"] == pytest.approx(job["jct_s"])
    assert job["attained_service_ref_gpu_s"] == pytest.approx(job["jct_s"] * R_V / R_K)


@st.composite
def copies_grants(draw: st.DrawFn) -> list[tuple[int, int]]:
    """(node, GPUs) copies on a cluster of 2 V100 nodes x 4 and 2 K80 nodes x 2."""
    nodes = draw(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=1, max_size=4, unique=True))
    return [(n, draw(st.integers(1, 4 if n < 2 else 2))) for n in nodes]


@settings(max_examples=30, deadline=None)
@given(copies=copies_grants(), arrivals=st.lists(st.floats(0, 500), min_size=1, max_size=3))
def test_copies_stay_on_their_nodes_and_never_overshoot_the_counter(
    copies: list[tuple[int, int]], arrivals: list[float]
) -> None:
    """Invariants of job copies: every lane of a copies segment sits on one node of its own
    worker type, and no job's shared step counter passes its total steps."""
    types = ["v100", "v100", "k80", "k80"]
    seen_steps: list[tuple[float, float]] = []

    class Copies(Fifo):
        preemptive = True
        uses_rounds = True

        def allocate(self, state: base.SchedulerState) -> base.Allocation:
            seen_steps.extend((j.steps_done, j.total_steps) for j in state.running)
            jobs = sorted([*state.running, *state.waiting], key=lambda j: j.index)
            parts = [base.Part(types[n], c, n) for n, c in copies]
            return {jobs[0].index: base.Grant.of_parts(parts, "copies")} if jobs else {}

    base.POLICIES.register("copies_test", Copies)
    try:
        config = ScenarioConfig(cluster=cluster(("v100", 2, 4, "r0"), ("k80", 2, 2, "r1")))
        jobs = jobs_frame(*[(f"j{i}", t, RESNET50, 2, 3000.0) for i, t in enumerate(arrivals)])
        result = simulate(jobs, config, PolicySpec("copies_test"), MATRIX)
    finally:
        base.POLICIES.unregister("copies_test")
    segments = result.segments
    assert (segments["combine"] == "copies").all()
    assert not segments["nodes"].str.contains(",").any()
    node_type = segments["nodes"].str[1:].astype(int).map(dict(enumerate(types)))
    assert (node_type == segments["worker_type"]).all()
    assert all(done <= total + 1e-9 for done, total in seen_steps)
    per_job = segments[segments["end_reason"] == "completed"].groupby("job_id")["end_s"]
    assert (per_job.nunique() == 1).all()
    assert np.allclose(
        per_job.max().sort_index(), result.jobs.set_index("job_id")["completion_s"].sort_index()
    )


def test_statistical_efficiency_follows_pollux() -> None:
    """(r + 1) / (r + b) for a b-fold batch, 1 at or below the requested batch; r = 0 (no
    gradient noise) gains nothing from a bigger batch: b GPUs' worth of samples, 1/b each."""
    assert statistical_efficiency(1.0, 1.0) == 1.0
    assert statistical_efficiency(0.5, 1.0) == 1.0
    assert statistical_efficiency(2.0, 1.0) == pytest.approx(2 / 3)
    assert statistical_efficiency(8.0, 1.0) == pytest.approx(2 / 9)
    assert statistical_efficiency(4.0, 0.0) == pytest.approx(1 / 4)
    assert statistical_efficiency(4.0, 1e12) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="noise_scale_ratio"):
        statistical_efficiency(2.0, -1.0)

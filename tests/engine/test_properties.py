"""Invariants of every registered policy over random small clusters and traces (Hypothesis).

Each test runs once per registered policy (``pytest -k <policy>`` selects one), each with its own
Hypothesis examples, so a policy added to the registry is covered without further work.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.config import (
    ClusterSpec,
    CongestionEpisode,
    NetworkConfig,
    NodeGroup,
    PolicySpec,
    RoundConfig,
    ScenarioConfig,
)
from engine.policies import list_policies
from engine.simulator import simulate
from engine.step_time.throughput import load_matrix
from tests.engine.helpers import jobs_frame

MATRIX = load_matrix()
JOB_TYPES = [
    "ResNet-50 (batch size 64)",
    "ResNet-18 (batch size 32)",
    "Transformer (batch size 32)",
    "LM (batch size 20)",
    "A3C",
    "Recommendation (batch size 1024)",
]


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[pd.DataFrame, ScenarioConfig]:
    groups = draw(
        st.lists(
            st.builds(
                NodeGroup,
                worker_type=st.sampled_from(["v100", "p100", "k80"]),
                nodes=st.integers(1, 3),
                gpus_per_node=st.sampled_from([1, 2, 4]),
                rack=st.sampled_from(["r0", "r1"]),
            ),
            min_size=1,
            max_size=3,
        )
    )
    spec = ClusterSpec(tuple(groups))
    capacity = spec.capacity()
    rows = []
    for i in range(draw(st.integers(1, 10))):
        job_type = draw(st.sampled_from(JOB_TYPES))
        sizes = [sf for sf in (1, 2, 4) if _fits(job_type, sf, capacity)]
        if not sizes:
            continue
        arrival = draw(st.floats(0, 2000, allow_nan=False))
        rows.append(
            (f"j{i}", arrival, job_type, draw(st.sampled_from(sizes)), draw(st.floats(50, 3000)))
        )
    if not rows:
        rows.append(("j0", 0.0, "A3C", 1, 100.0))
    rounds = RoundConfig(
        round_duration_s=draw(st.sampled_from([60.0, 360.0])),
        admit_mid_round=draw(st.booleans()),
        checkpoint_restore_s=draw(st.sampled_from([0.0, 20.0])),
        reallocation_interval_s=draw(st.sampled_from([0.0, 1920.0])),
        relaunch_on_event=draw(st.booleans()),
    )
    congestion = draw(st.sampled_from([(), (CongestionEpisode(100.0, 900.0, 3.0),)]))
    config = ScenarioConfig(
        cluster=spec, rounds=rounds, network=NetworkConfig(congestion=congestion),
        placement=draw(st.sampled_from(["consolidated", "first_fit"])),
    )  # fmt: skip
    return jobs_frame(*rows), config


def _fits(job_type: str, scale_factor: int, capacity: dict[str, int]) -> bool:
    return any(
        cap >= scale_factor and MATRIX.steps_per_s(job_type, wt, scale_factor) > 0
        for wt, cap in capacity.items()
    )


def _max_concurrent_gpus(segments: pd.DataFrame) -> dict[str, int]:
    """Peak GPUs held at once per worker type (ends sort before starts at equal times)."""
    peaks = {}
    for worker_type, rows in segments.groupby("worker_type"):
        events = sorted(
            [(t, 0, -n) for t, n in zip(rows["end_s"], rows["num_gpus"], strict=True)]
            + [(t, 1, n) for t, n in zip(rows["start_s"], rows["num_gpus"], strict=True)]
        )
        peaks[worker_type] = int(np.max(np.cumsum([e[2] for e in events])))
    return peaks


@pytest.mark.parametrize("policy", list_policies())
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=scenarios())
def test_invariants_hold_for_every_policy(
    policy: str, data: tuple[pd.DataFrame, ScenarioConfig]
) -> None:
    jobs, config = data
    result = simulate(jobs, config, PolicySpec(policy), MATRIX)
    capacity = config.cluster.capacity()
    # no GPU over-allocated
    for worker_type, peak in _max_concurrent_gpus(result.segments).items():
        assert peak <= capacity[worker_type]
    # no job runs before it arrives; segments are well-formed
    arrival = jobs.set_index("job_id")["arrival_s"]
    assert (result.segments["start_s"] >= result.segments["job_id"].map(arrival) - 1e-9).all()
    assert (result.segments["end_s"] >= result.segments["start_s"]).all()
    # each job completes exactly once (a job with several lanes ends them all at once)
    completed = result.segments[result.segments["end_reason"] == "completed"]
    assert sorted(completed.drop_duplicates("job_id")["job_id"]) == sorted(jobs["job_id"])
    assert (completed.groupby("job_id")["end_s"].nunique() == 1).all()
    assert (completed.groupby("job_id")["lane"].agg(lambda s: s.is_unique)).all()
    assert result.jobs["completion_s"].notna().all()
    assert (result.jobs["jct_s"] > 0).all()
    # utilization within [0, 1]
    assert result.utilization["utilization"].between(0, 1).all()
    assert 0 <= result.summary["utilization_mean"] <= 1 + 1e-9
    assert result.summary["utilization_mean"] <= result.summary["utilization_active"] + 1e-9
    assert result.summary["utilization_active"] <= 1 + 1e-9


@pytest.mark.parametrize("policy", list_policies())
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=scenarios())
def test_same_scenario_gives_identical_tables(
    policy: str, data: tuple[pd.DataFrame, ScenarioConfig]
) -> None:
    jobs, config = data
    first = simulate(jobs, config, PolicySpec(policy), MATRIX)
    second = simulate(jobs, config, PolicySpec(policy), MATRIX)
    for table in ("jobs", "segments", "utilization"):
        pd.testing.assert_frame_equal(getattr(first, table), getattr(second, table))
    assert first.summary == second.summary or all(
        (np.isnan(a) and np.isnan(b)) or a == b
        for a, b in zip(first.summary.values(), second.summary.values(), strict=True)
    )

"""Tiresias LAS's cached queue keys of running jobs against computing every key afresh.

:meth:`engine.policies.las.TiresiasLas._running_key` keeps each running job's key with a time
before which its service cannot cross the next threshold (issue 11's speed work). With small
thresholds, random scenarios cross them often, mid-run and between rounds; the schedule must be
the one where every key is computed at every round boundary, to the last bit. The fresh keys
come from an infinite margin (``las._KEY_MARGIN_GPU_S``, a module global so that the patch
reaches the mypyc-compiled module too; a compiled class's methods cannot be patched).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cluster import Placement
from engine.config import PolicySpec, RoundConfig, ScenarioConfig, default_cluster
from engine.policies import las
from engine.policies.base import PolicyContext
from engine.simulator import simulate
from engine.state import JobState
from engine.throughput import load_matrix
from tests.engine.test_properties import scenarios

MATRIX = load_matrix()
SPECS = [
    PolicySpec("las", {"queue_thresholds_gpu_s": "60, 600"}),
    PolicySpec("las", {"queue_thresholds_gpu_s": "200", "promote_knob": 0.5}),
]


def _segments(jobs: pd.DataFrame, config: ScenarioConfig, spec: PolicySpec) -> pd.DataFrame:
    result = simulate(jobs, config, spec, MATRIX, decision_log=False)
    return result.segments.reset_index(drop=True)


@given(scenario=scenarios())
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@pytest.mark.parametrize("spec", SPECS, ids=["two-thresholds", "promote-fast"])
def test_cached_keys_give_the_schedule_of_fresh_keys(
    scenario: tuple[pd.DataFrame, ScenarioConfig], spec: PolicySpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    jobs, config = scenario
    cached = _segments(jobs, config, spec)
    with monkeypatch.context() as patch:
        patch.setattr(las, "_KEY_MARGIN_GPU_S", math.inf)  # every key computed at every look
        fresh = _segments(jobs, config, spec)
    pd.testing.assert_frame_equal(cached, fresh)


_CONTEXT = PolicyContext(default_cluster(), RoundConfig(), np.random.default_rng(0))


def _running_job(attained_gpu_s: float, num_gpus: int, updated_s: float) -> JobState:
    job = JobState(7, "j7", 0.0, "A3C", num_gpus, 1e6, 1.0, {"v100": 1.0}, 1e8)
    job.attained_service_gpu_s = attained_gpu_s
    job.last_update_s = updated_s
    job.placement = Placement("v100", (0,), (num_gpus,), ("r0",), "node", num_gpus)
    return job


@given(
    attained_gpu_s=st.floats(0, 20_000),
    num_gpus=st.sampled_from([1, 2, 4, 8]),
    updated_s=st.floats(0, 5_000),
    looked_s=st.floats(0, 5_000),
    later=st.lists(st.floats(0, 1), min_size=1, max_size=5),
)
def test_a_cached_key_holds_until_its_time(
    attained_gpu_s: float, num_gpus: int, updated_s: float, looked_s: float, later: list[float]
) -> None:
    """The key computed afresh at any time before the cached key's time is the cached key."""
    policy = las.TiresiasLas(las.LasParams("600, 3600, 7200"), _CONTEXT)
    job = _running_job(attained_gpu_s, num_gpus, updated_s)
    now_s = max(looked_s, updated_s)  # the engine looks at a job after its last update
    key, until_s = policy._running_key(job, now_s)
    assert key == policy._queue_key(job, now_s)
    horizon_s = min(until_s, now_s + 20_000.0)
    for fraction in later:
        at_s = now_s + fraction * (horizon_s - now_s)
        if at_s < until_s:
            assert policy._queue_key(job, at_s) == key

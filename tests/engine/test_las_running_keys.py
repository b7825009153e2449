"""Tiresias LAS's cached queue keys of running jobs against computing every key afresh.

:meth:`engine.policies.las.TiresiasLas._running_key` keeps each running job's key with a time
before which its service cannot cross the next threshold (issue 11's speed work). With small
thresholds, random scenarios cross them often, mid-run and between rounds; the schedule must be
the one where every key is computed at every round boundary, to the last bit.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

from engine.config import PolicySpec, ScenarioConfig
from engine.policies import las
from engine.simulator import simulate
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
    fresh_key = las.TiresiasLas._running_key

    def never_cached(self: las.TiresiasLas, job: object, now_s: float) -> tuple[int, float]:
        key, _ = fresh_key(self, job, now_s)  # type: ignore[arg-type]
        return key, -math.inf  # computed again at every look

    with monkeypatch.context() as patch:
        patch.setattr(las.TiresiasLas, "_running_key", never_cached)
        fresh = _segments(jobs, config, spec)
    pd.testing.assert_frame_equal(cached, fresh)

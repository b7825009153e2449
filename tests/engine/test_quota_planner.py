"""The planner with teams: quotas follow the mix, and "every team's p95 wait at most T"."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import PolicySpec, ScenarioConfig, TraceSpec
from engine.errors import ConfigError
from engine.quota.defaults import scaled_queues
from engine.quota.model import Cohort, FlavorQuota, ResourceFlavor
from engine.step_time.throughput import load_matrix
from engine.study.planner import Candidate, PlanSpec, plan
from tests.engine.kueue_cases import config, cq

JOB_TYPE = "ResNet-50 (batch size 128)"  # runs on 2 V100s
HOUR_S = 3600.0
TEAMS = config(cq("a", ("v100", 2), cohort="c"), cq("b", ("v100", 2), cohort="c"))


def _trace(tmp_path: Path) -> Path:
    """Two teams, two 2-GPU jobs each, all at time 0, one hour each on 2 V100s."""
    steps = HOUR_S * load_matrix().steps_per_s(JOB_TYPE, "v100", 2)
    rows = [f"{t}{i},0,{JOB_TYPE},2,{steps!r},{t}\n" for t in "ab" for i in range(2)]
    path = tmp_path / "teams.csv"
    path.write_text("job_id,arrival_s,job_type,scale_factor,total_steps,queue\n" + "".join(rows))
    return path


def test_quotas_keep_each_teams_share_of_a_new_mix() -> None:
    queues = config(cq("a", ("v100", 6), ("k80", 2), cohort="c"), cq("b", ("v100", 2), cohort="c"),
                    cohorts=(Cohort("c", "", (FlavorQuota("v100", 0),)),))  # fmt: skip
    scaled = scaled_queues(queues, {"v100": 4, "p100": 8})
    a, b = scaled.cluster_queues
    assert a.flavors == (FlavorQuota("v100", 3), FlavorQuota("p100", 6))  # 3/4 of v100; 8/10
    assert b.flavors == (FlavorQuota("v100", 1), FlavorQuota("p100", 2))  # of all its GPUs
    assert ResourceFlavor("p100") in scaled.flavors
    scaled.check({"v100": 4, "p100": 8})


def test_the_planner_meets_every_teams_p95_wait(tmp_path: Path) -> None:
    # with n 2-GPU V100 nodes (n < 4) 4 - n jobs wait an hour; each team keeps half the quota,
    # so some team's p95 wait is 0.95 h or more; with 4 nodes no job waits
    base = ScenarioConfig(trace=TraceSpec(source=str(_trace(tmp_path))),
                          policies=(PolicySpec("fifo"),), queues=TEAMS)  # fmt: skip
    spec = PlanSpec(base, (Candidate("v100", 0.74, 6, 2),), "worst_team_queueing_p95_s",
                    0.5 * HOUR_S, (0, 1))  # fmt: skip
    result = plan(spec, executor="serial", results_dir=tmp_path / "runs")
    assert result.chosen is not None
    assert result.chosen.capacity() == {"v100": 8}
    tried = result.tried.set_index("mix")
    assert not tried.loc["3 V100 nodes", "meets"]
    assert tried.loc["4 V100 nodes", "mean"] == 0
    assert any("every team's p95 queueing delay" in line for line in result.explanation)


def test_a_team_target_without_queues_is_refused(tmp_path: Path) -> None:
    base = ScenarioConfig(trace=TraceSpec(source=str(_trace(tmp_path))),
                          policies=(PolicySpec("fifo"),))  # fmt: skip
    spec = PlanSpec(base, (Candidate("v100", 0.74, 2, 2),), "worst_team_queueing_p95_s", 1800.0,
                    (0,))  # fmt: skip
    with pytest.raises(ConfigError, match="needs teams"):
        plan(spec, executor="serial", results_dir=tmp_path / "runs")

"""Two quota configurations compared per team on the same seeds: a study whose variant caps
borrowing at one node per GPU type, paired per team like any KPI (the Compare page's per-team
rows)."""

from __future__ import annotations

from pathlib import Path

from dashboard.study_tables import cell_key, pair_table, team_columns
from engine.config import LoadConfig, PolicySpec, ScenarioConfig, TraceSpec
from engine.quota.defaults import default_queues
from engine.scenario import load_scenario_trace
from engine.study import Study, Variant
from engine.study.paired import every_pair
from engine.study.run import run_study


def test_a_borrowing_limit_is_paired_per_team(tmp_path: Path) -> None:
    base = ScenarioConfig(
        trace=TraceSpec(source="sample:philly_2000.csv", team_column="cluster", max_jobs=300),
        load=LoadConfig(arrival_scale=4.0), policies=(PolicySpec("fifo"),),
    )  # fmt: skip
    queues = default_queues(load_scenario_trace(base).jobs, base.cluster.capacity())
    base = ScenarioConfig(**{**base.__dict__, "queues": queues})
    capped = {
        f"queues.cluster_queues.{i}.flavors.{j}.borrowing_limit_gpus": 8
        for i, cq in enumerate(queues.cluster_queues) for j in range(len(cq.flavors))
    }  # fmt: skip
    study = Study(base, (Variant("unlimited"), Variant("one node", capped)), seeds=(0, 1, 2))
    result = run_study(study, executor="serial", results_dir=tmp_path)
    columns = team_columns(result.runs)
    teams = {c.split(":", 1)[1] for c in columns}
    assert teams == {cq.name for cq in queues.cluster_queues if any(
        result.runs[f"team_queueing_mean_s:{cq.name}"].notna())}  # fmt: skip
    rows = every_pair(result, columns)
    assert set(rows["metric"]) == set(columns)
    assert (rows["Seeds"] == 3).all()
    # somebody waits longer when a team may borrow one node at most
    no_borrow = result.runs[result.runs["variant"] == "one node"][columns].mean()
    unlimited = result.runs[result.runs["variant"] == "unlimited"][columns].mean()
    assert (no_borrow >= unlimited - 1e-9).any() and (no_borrow > unlimited + 60).any()
    a, b = cell_key(("one node", "FIFO")), cell_key(("unlimited", "FIFO"))
    table = pair_table(result, a, b, columns)
    assert len(table) == len(columns)

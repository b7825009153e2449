"""Runs under quotas give the tables recorded before the quota layer was made faster.

The Philly 2,000-job sample, its teams from the ``cluster`` column, under FIFO and LAS, with
queue configurations that reach each path of the admission cycle: the default quotas (one
cohort, unlimited borrowing), the same with every borrowing limit at 8 GPUs, a two-level tree
(two sub-cohorts with lending limits, half the teams StrictFIFO, ``whenCanBorrow:
TryNextFlavor``), and the default quotas with preemption (reclaim Any, LowerPriority within the
queue). The jobs, segments and quota-usage tables and the summary are hashed as in
:mod:`tests.engine.test_native` and compared with the hashes recorded by plain Python on main at
d2def11 (before the wake index of :mod:`engine.quota.admission`):

    ENGINE_NATIVE=0 .venv/bin/python -m tests.engine.test_quota_reference

prints them. Rewrite them only when a change is meant to change results, and say so.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from engine.config import PolicySpec, ScenarioConfig, TraceSpec
from engine.quota.defaults import default_queues
from engine.quota.model import Cohort, FlavorQuota, Preemption, QueueConfig
from engine.scenario import load_scenario_trace, run_matrix
from engine.simulator import simulate
from tests.engine.test_native import FLOAT_FORMAT, _sha256

CONFIG = ScenarioConfig(trace=TraceSpec(source="sample:philly_2000.csv", team_column="cluster"))

RECORDED: dict[str, dict[str, str]] = {
    "fifo/default": {
        "summary": "0ffc2acecbbb8b173437437aaef8d246643daf965f7b621e078be51d53ff2098",
        "jobs": "c62ee51d30169577f79748f5b9a14236a0713a9b3939b256f078027ce8bb5268",
        "segments": "02165b76fdf18d7d4aa60f32728083503cb7957fc774ce321ad1bc0f5177169c",
        "quota_usage": "4181ff7b8f32af984ca44bfe9765b34bedb7d0c6ac4ddc2ee88574f4950e2e97",
    },
    "fifo/capped": {
        "summary": "a5be01128782ae151d7976382c82cb681a0261fd495b6694c9b2f67cc18e2e65",
        "jobs": "0f05923eeb30262d21841260c048b310e9fb81b8645b4c611d8bdc2ca1cf9dea",
        "segments": "c5cda96bf7860d5d5969f0b967b9305ff0d47b98afa2de3174d872efb92e7069",
        "quota_usage": "d7ed02605eeb96eea763a6eed2c3207ad291928458cdf0c7aaf5500c2413d388",
    },
    "fifo/tree": {
        "summary": "a13de00912fa091fdc2d424844be8f666a4e4d2e1c43e1e0a66325b349be442d",
        "jobs": "1be3a0f182c3355d7e1b034d9c6c292030f0de5bf72d732004fbc6e4465d213d",
        "segments": "2a2d7af9d6921a2831b20425bf7c51133df2e40fbc82b2195deaae663c85ed61",
        "quota_usage": "04327f1706db733c87e7eae51c062596fe4414072c9613c2aacc21ad41ead7c8",
    },
    "fifo/preempting": {
        "summary": "1b97ff4613f548fa1544542e807278e5eda8a6b86396407c97187f2708d1ec52",
        "jobs": "aebdd54554d86d91db0280965dae1d186511fba0a12333b300f8147f3d86c3ab",
        "segments": "eb7d0008956b1db3c1cd78b49b0fdc60f2092c5b4e580ff46eef0376c1b6a9d3",
        "quota_usage": "1ad651c5e4ae3992e85378d48093f808c34c64a810c17c72de9f496470fef348",
    },
    "las/default": {
        "summary": "0ffc2acecbbb8b173437437aaef8d246643daf965f7b621e078be51d53ff2098",
        "jobs": "c62ee51d30169577f79748f5b9a14236a0713a9b3939b256f078027ce8bb5268",
        "segments": "02165b76fdf18d7d4aa60f32728083503cb7957fc774ce321ad1bc0f5177169c",
        "quota_usage": "4181ff7b8f32af984ca44bfe9765b34bedb7d0c6ac4ddc2ee88574f4950e2e97",
    },
    "las/preempting": {
        "summary": "1b97ff4613f548fa1544542e807278e5eda8a6b86396407c97187f2708d1ec52",
        "jobs": "aebdd54554d86d91db0280965dae1d186511fba0a12333b300f8147f3d86c3ab",
        "segments": "eb7d0008956b1db3c1cd78b49b0fdc60f2092c5b4e580ff46eef0376c1b6a9d3",
        "quota_usage": "1ad651c5e4ae3992e85378d48093f808c34c64a810c17c72de9f496470fef348",
    },
}


def variant(queues: QueueConfig, name: str) -> QueueConfig:
    """The default ``queues`` changed as the module docstring says for variant ``name``."""
    cqs = queues.cluster_queues
    if name == "capped":
        cqs = tuple(
            dataclasses.replace(
                cq,
                flavors=tuple(dataclasses.replace(q, borrowing_limit_gpus=8) for q in cq.flavors),
            )
            for cq in cqs
        )
        return dataclasses.replace(queues, cluster_queues=cqs)  # fmt: skip
    if name == "preempting":
        preemption = Preemption("LowerPriority", "Any")
        cqs = tuple(dataclasses.replace(cq, preemption=preemption) for cq in cqs)
        return dataclasses.replace(queues, cluster_queues=cqs)
    if name == "tree":
        return _tree(queues)
    return queues


def _tree(queues: QueueConfig) -> QueueConfig:
    root = queues.cohorts[0].name
    subs = (Cohort("left", root, (FlavorQuota("k80", 0),)), Cohort("right", root))
    cqs = []
    for i, cq in enumerate(queues.cluster_queues):
        flavors = tuple(
            dataclasses.replace(q, lending_limit_gpus=q.nominal_gpus // 2 if i % 3 else None)
            for q in cq.flavors
        )
        cqs.append(dataclasses.replace(
            cq, flavors=flavors, cohort=subs[i % 2].name,
            queueing_strategy="StrictFIFO" if i % 4 == 1 else "BestEffortFIFO",
            when_can_borrow="TryNextFlavor" if i % 2 else "MayStopSearch",
        ))  # fmt: skip
    return dataclasses.replace(
        queues, cluster_queues=tuple(cqs), cohorts=(queues.cohorts[0], *subs)
    )


def table_hashes(policy: str, name: str) -> dict[str, str]:
    """sha256 of the run's jobs, segments and quota-usage tables and its summary."""
    trace = load_scenario_trace(CONFIG)
    queues = variant(default_queues(trace.jobs, CONFIG.cluster.capacity()), name)
    config = dataclasses.replace(CONFIG, queues=queues)
    result = simulate(trace.jobs, config, PolicySpec(policy), run_matrix(CONFIG, trace))
    summary = {key: FLOAT_FORMAT % value for key, value in sorted(result.summary.items())}
    hashes = {"summary": _sha256(json.dumps(summary))}
    for key, table in (("jobs", result.jobs), ("segments", result.segments),
                       ("quota_usage", result.quota_usage)):  # fmt: skip
        assert table is not None
        dtypes = repr(list(table.dtypes.astype(str).items()))
        hashes[key] = _sha256(dtypes + "\n" + table.to_csv(float_format=FLOAT_FORMAT))
    return hashes


@pytest.mark.parametrize("case", sorted(RECORDED))
def test_the_recorded_tables(case: str) -> None:
    policy, name = case.split("/")
    assert table_hashes(policy, name) == RECORDED[case]


if __name__ == "__main__":
    cases = {case: table_hashes(*case.split("/")) for case in RECORDED}
    print(json.dumps(cases, indent=4))

"""Scenario presets: named transformations of a ScenarioConfig.

``gavel_compatible`` reproduces the rules of Gavel's own simulator (Narayanan et al., OSDI 2020;
stanford-futuredata/gavel ``scheduler/scheduler.py``): new jobs are admitted only at round
boundaries and the allocation is recomputed at most every 1920 s; Gavel's policies run in its
micro-task round loop with its per-type priority queues (``RoundConfig.gavel_rules``, see
:mod:`engine.micro_tasks` and :mod:`engine.policies.gavel.queues`). It also turns off what Gavel
does not model: the checkpoint-restore cost of a preemption and the network penalty of a spread
placement. Results under this preset can be set beside Gavel's
(``tests/engine/test_fidelity_gavel.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from engine.config import (
    ClusterSpec,
    NetworkConfig,
    NodeGroup,
    PolicySpec,
    ScenarioConfig,
    SyntheticSpec,
    TraceSpec,
)

GAVEL_REALLOCATION_INTERVAL_S = 1920.0


def gavel_compatible(config: ScenarioConfig) -> ScenarioConfig:
    """Gavel's simulator rules (see module docstring); round length is kept."""
    rounds = dataclasses.replace(
        config.rounds,
        admit_mid_round=False,
        reallocation_interval_s=GAVEL_REALLOCATION_INTERVAL_S,
        checkpoint_restore_s=0.0,
        gavel_rules=True,
    )
    network = dataclasses.replace(config.network, enabled=False)
    return dataclasses.replace(config, rounds=rounds, network=network)


PRESETS: dict[str, Callable[[ScenarioConfig], ScenarioConfig]] = {
    "Gavel-compatible": gavel_compatible,
}


CLUSTER_2026_NAME = "2026 cluster (MLPerf)"


def cluster_2026_scenario(seed: int = 0) -> ScenarioConfig:
    """A 2026 training cluster [R]: 64 H100-SXM and 32 B200 nodes of 8 GPUs (768 GPUs, one rack
    per 16 nodes), the ``mlperf`` matrix, the LLM-era synthetic mix (200 jobs, 3 jobs/h on
    average with a daily cycle; :mod:`engine.traces.llm_mix`), FIFO, Tiresias LAS and Gavel's
    heterogeneity-aware max-min fairness. Links are those of an NVLink / 8 x 400 Gb/s
    InfiniBand node (900 GB/s = 7,200 Gb/s in a node, 3,200 Gb/s per node between nodes); the
    ``mlperf`` matrix's times already include communication, so they change nothing for its jobs.
    """
    groups = tuple(NodeGroup("H100-SXM", 16, 8, f"h100-{i}") for i in range(4)) + tuple(
        NodeGroup("B200", 16, 8, f"b200-{i}") for i in range(2)
    )
    return ScenarioConfig(
        trace=TraceSpec(
            source="synthetic",
            assumed_worker_type="H100-SXM",
            synthetic=SyntheticSpec(num_jobs=200, jobs_per_hour=3.0, workload="llm"),
        ),
        cluster=ClusterSpec(groups),
        network=NetworkConfig(
            intra_node_gbps=7200.0, intra_rack_gbps=3200.0, cross_rack_gbps=3200.0
        ),  # fmt: skip
        policies=(PolicySpec("fifo"), PolicySpec("las"), PolicySpec("gavel_maxmin")),
        seed=seed,
        throughputs="mlperf",
    )

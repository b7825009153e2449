"""Scenario presets: named transformations of a ScenarioConfig that set another system's rules.

``gavel_compatible`` reproduces the rules of Gavel's own simulator (Narayanan et al., OSDI 2020;
stanford-futuredata/gavel ``scheduler/scheduler.py``): new jobs are admitted only at round
boundaries and the allocation is recomputed at most every 1920 s; Gavel's policies run in its
micro-task round loop with its per-type priority queues (``RoundConfig.gavel_rules``, see
:mod:`engine.lease_rounds` and :mod:`engine.policies.gavel.queues`). It also turns off what Gavel
does not model: the checkpoint-restore cost of a preemption and the network penalty of a spread
placement. Results under this preset can be set beside Gavel's
(``tests/engine/test_fidelity_gavel.py``).

``muri_testbed`` reproduces how the Muri testbed ran its jobs (Zhao et al., "Multi-Resource
Interleaving for Deep Learning Training", SIGCOMM 2022; github.com/Rivendile/Muri at commit
4e69a78, Apache-2.0, read, not copied). Rule by rule, with where each comes from:

- Rounds of 360 s from time 0; arrivals wait for the next boundary; the scheduler re-plans only
  there (``cluster_exp/run.sh``: ``schedule_intervals=("360")``; ``run.py``: the loop of
  ``dlas_sim_jobs`` and ``shortest_first_sim_jobs`` admits arrivals with ``has_ready_jobs`` at
  each check and decides only then). A finished job's GPUs stay idle until the boundary.
- Every running job is relaunched at a boundary that has an event: an arrival, a completion,
  a queue change (LAS's ``demote_flag``), or a change of GPUs (``run.py``: every placed job is
  killed and ``execute``d again when ``done_flag or new_flag or demote_flag``); rounds without
  one leave jobs running (``RoundConfig.relaunch_on_event``).
- A launch costs :data:`MURI_LAUNCH_S` of lost progress, the first launch included [R]: the
  median (8.5 s) of the start overheads the authors profiled per model and GPU count (4-46 s,
  ``simulator/run_sim.py``, ``overhead_dict``), plus what the fast-forwarded protocol loses per
  launch: 65 iterations run (``cluster_exp/jobs.py``, ``to_jobinfo``: 5 + fast_forwarding) of
  which 60 are credited (``run.py``), and the worker's 2-s poll for finished tasks
  (``worker.py``, ``check_tasks``), about 1.5 s together; rounded to 10 s. One cost for every
  model (our simplification: the profiled costs range from 4 s, shufflenet, to 46 s, a2c).
- Every step takes :data:`MURI_STEP_TIME_OVERHEAD` longer than the trace's measured iteration
  time: the ratio of real to trace iteration time for a job running alone that the authors'
  own simulator uses for this testbed (``simulator/jobs.py``, ``itertime_overhead_list[0]``).
- Placement: a job of up to a node's GPUs on one node, a larger one on whole nodes
  (``run.sh``: ``placement=('yarn')``; ``switch.py``, ``ms_yarn_alloc_res``). Our
  ``consolidated`` placement puts a job on one node whenever one has room (best fit), but
  spreads it when none has, where the testbed's would wait: the known departure (on the
  testbed's trace, forcing the testbed's rule in a throwaway run moved SRTF's makespan by 0.2
  points and left LAS's figures unchanged, November 2026).
- No network penalty: the trace's iteration times were measured on the testbed's own
  placements (network off, as in Gavel's preset).
- Tiresias LAS (``dlas-gpu``) orders each queue as the testbed's code does: jobs join at the
  back, and after each decision waiting jobs move behind the running ones (``requeue``, see
  :mod:`engine.policies.las`). Its thresholds (3,250 and 7,200 GPU-s, ``cluster_exp/jobs.py``
  ``queue_limit``) and no promotion are the scenario's to set.
- Muri-S and Muri-L (:mod:`engine.policies.muri`) put up to 4 jobs on the same GPUs
  (``run.sh``: ``packing_nums=("4")``) unless the scenario gives them another ``k``; a
  scenario with either gets Muri's measured interleaving overheads
  (:data:`engine.sharing.MURI_GROUP_OVERHEADS`, from Muri's simulator).

Results under this preset are set beside the testbed's own logs in
``tests/engine/test_fidelity_muri.py`` and ``benchmarks/bench_fidelity_muri.py``.
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
from engine.errors import ConfigError
from engine.sharing import MURI_GROUP_OVERHEADS, MURI_K, SharingConfig

GAVEL_REALLOCATION_INTERVAL_S = 1920.0
MURI_POLICIES = ("muri_s", "muri_l")
MURI_ROUND_S = 360.0
MURI_LAUNCH_S = 10.0
"""Seconds of lost progress per launch on Muri's testbed [R] (module docstring)."""
MURI_STEP_TIME_OVERHEAD = 0.015
"""Muri's simulator's ratio of real to trace iteration time, less 1 (module docstring)."""


def gavel_compatible(config: ScenarioConfig) -> ScenarioConfig:
    """Gavel's simulator: admission at round boundaries, an allocation at most every 1920 s,
    Gavel's micro-task rounds and queues, no restore cost, no network penalty; the round length
    is kept (module docstring)."""
    rounds = dataclasses.replace(
        config.rounds,
        admit_mid_round=False,
        reallocation_interval_s=GAVEL_REALLOCATION_INTERVAL_S,
        checkpoint_restore_s=0.0,
        gavel_rules=True,
    )
    network = dataclasses.replace(config.network, enabled=False)
    return dataclasses.replace(config, rounds=rounds, network=network)


def muri_testbed(config: ScenarioConfig) -> ScenarioConfig:
    """Muri's testbed: 360-s rounds, admission at boundaries, every running job relaunched at a
    boundary with an event (10 s a launch), steps 1.5% slower than measured, no network
    penalty, LAS queues in the testbed's order; the GPU mix and the trace are kept (module
    docstring)."""
    rounds = dataclasses.replace(
        config.rounds,
        round_duration_s=MURI_ROUND_S,
        admit_mid_round=False,
        reallocation_interval_s=0.0,
        checkpoint_restore_s=MURI_LAUNCH_S,
        gavel_rules=False,
        relaunch_on_event=True,
        step_time_overhead=MURI_STEP_TIME_OVERHEAD,
    )
    network = dataclasses.replace(config.network, enabled=False)
    policies = tuple(_testbed_params(spec) for spec in config.policies)
    sharing = config.sharing
    if any(spec.name in MURI_POLICIES for spec in policies):
        sharing = dataclasses.replace(
            sharing or SharingConfig(), group_overheads=MURI_GROUP_OVERHEADS
        )
    return dataclasses.replace(
        config, rounds=rounds, network=network, placement="consolidated", policies=policies,
        sharing=sharing,
    )  # fmt: skip


def _testbed_params(spec: PolicySpec) -> PolicySpec:
    """Tiresias LAS with the testbed's queue order (``requeue``); Muri's policies with the
    testbed's ``k`` = 4 unless the scenario sets one (``run.sh``, ``packing_nums``); other
    policies as they are."""
    if spec.name in MURI_POLICIES:
        return dataclasses.replace(spec, params={"k": MURI_K, **spec.params})
    if spec.name != "las":
        return spec
    return dataclasses.replace(spec, params={**spec.params, "requeue": True})


PRESETS: dict[str, Callable[[ScenarioConfig], ScenarioConfig]] = {
    "gavel_compatible": gavel_compatible,
    "muri_testbed": muri_testbed,
}
"""Preset name -> its transformation; the names the CLI, studies and the dashboard share."""

PRESET_LABELS: dict[str, str] = {
    "gavel_compatible": "Gavel-compatible (Gavel's simulator)",
    "muri_testbed": "Muri testbed (64 V100s, SIGCOMM 2022)",
}
"""What the dashboard's picker shows for each preset."""

PRESET_ALIASES: dict[str, str] = {"Gavel-compatible": "gavel_compatible"}
"""Older names still read from links (the dashboard's first preset was named so)."""


def apply_preset(name: str, config: ScenarioConfig) -> ScenarioConfig:
    """``config`` under preset ``name`` (or an alias of one).

    Raises:
        ConfigError: for an unknown name (lists the presets).
    """
    name = PRESET_ALIASES.get(name, name)
    if name not in PRESETS:
        raise ConfigError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}")
    return PRESETS[name](config)


def describe_preset(name: str) -> str:
    """The preset's label and what it sets, in one line (for ``python -m engine presets``)."""
    text = " ".join((PRESETS[name].__doc__ or "").split())
    return f"{PRESET_LABELS[name]}. {text}"


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
